// T20: failed requests left out of the figures. Load tools compute latency and throughput
// over the requests that succeeded; a run where some failed, were cancelled or never
// finished reports the survivors' figures as the run's (InferenceX #357, guidellm #444), and
// `vllm bench serve` can exit 0 with every request failed (pytorch PR #172616).
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>

namespace inferlint::checks {

// What the load tool's result says of the requests that did not complete; nullopt fields:
// the file does not say.
struct ClientFailures {
    std::optional<long long> completed;
    std::optional<long long> lost;  // failed, errored, cancelled or never finished
    std::string basis;              // how `lost` was read, for the message
    std::string problem;            // non-empty: the counts cannot be trusted (negative, do not add up)
};
ClientFailures client_failures(const BenchResult& bench);

// What the server's own counters say between the snapshots: the requests it finished as
// aborted or errored, over all it finished. nullopt fields: the engine exports no such
// counter, or a snapshot lacks it (never read as 0).
struct ServerFailures {
    std::optional<double> failed;
    std::optional<double> finished;  // every request the server finished, failed ones included
    std::string counters;            // the series read, for the message
    std::string problem;             // non-empty: a restart or a counter that is not a count
};
ServerFailures server_failures(const Snapshot& before, const Snapshot& after);

// FAIL when either side says requests failed during the measured window, with the count,
// the share and which figures cover only the survivors; WARN instead when the share is at
// or under `accepted_share` (a fraction, 0..1: --max-failed-share); PASS when every side
// present says none failed; unknown without either side, or with counts that contradict
// themselves (negative, more failed than sent, nothing completed and nothing failed).
CheckResult check_failed_requests(const BenchResult* bench, const Snapshot* before, const Snapshot* after,
                                  double accepted_share = 0.0);

// The failed share a result file states (lost / (completed + lost)); nullopt when it does
// not say, or its counts cannot be trusted. For compare's C8.
std::optional<double> failed_share(const BenchResult& bench);

}  // namespace inferlint::checks
