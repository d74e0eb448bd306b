// A fleet's verdicts: each replica's own, and one set for the fleet. The fleet's T8 holds
// the requested concurrency against the sum of the replicas' running requests at each
// step; T9 and T14 are per replica (the fleet's row says how the replicas went); the
// snapshot tripwires read the union of the replicas' snapshots, so counters sum over the
// fleet. A replica that fails fails the fleet.
#pragma once

#include "inferlint/checks/suite.hpp"

#include <string>
#include <utility>
#include <vector>

namespace inferlint::checks {

struct ReplicaEvidence {
    std::string name;      // "10.0.0.5:8000", "vllm-0"
    RunEvidence evidence;  // its snapshots at the window's ends and its gauges
    long long resets = 0;  // counter resets seen in the window: it restarted
};

struct FleetVerdicts {
    std::vector<std::pair<std::string, RunVerdicts>> replicas;  // by name, as given
    RunVerdicts fleet;
};

// `fleet` holds what belongs to the whole fleet: the requested concurrency, the load
// tool's result, the union snapshots (when every replica has both) and the summed gauges.
// `step_s` is how often the gauges were sampled: T8's message and evidence say it, and
// that a sampled peak is a lower bound. With one replica the fleet's verdicts are its own.
FleetVerdicts check_fleet(const std::vector<ReplicaEvidence>& replicas, const RunEvidence& fleet, double step_s);

// One verdict from the replicas' verdicts on one tripwire: failed when any failed (naming
// it), else Can't tell when any could not tell (a replica without the verdict, nullptr,
// could not tell), else a warning when any warned, else passed;
// not applicable when none applies. The evidence holds each replica's.
CheckResult across_replicas(TripwireId tripwire, const std::vector<std::pair<std::string, const CheckResult*>>& each);

}  // namespace inferlint::checks
