// A fleet's xray run folder read for judging: what xray and `report DIR` both do with a
// fleet, so `report` on the folder gives the verdicts xray gave.
//
//   each replica's folder --(folder_input, load_run)--> ReplicaEvidence ─┐
//   the replicas' recordings on the run's schedule --> FleetWindow ──────┼--(check_fleet)--> FleetVerdicts
//   the summed snapshots and gauges, the load's result, T2 and T19 --> the fleet's RunEvidence ┘
#pragma once

#include "inferlint/checks/fleet.hpp"
#include "inferlint/run/judge.hpp"
#include "inferlint/run/prometheus.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::run {

struct FleetRun {
    FleetWindow window;
    std::vector<checks::ReplicaEvidence> replicas;  // in the plan's order
    checks::RunEvidence fleet;
    Series fleet_series;             // the summed gauges, for the page's chart
    std::vector<std::string> notes;  // what was read around, for stderr (load_run's notes)
};

// The fleet at `folder`, whose replicas and window `in.live->fleet` names. `in.files` are the
// run folder's own: the load's result and log, the GPU recording. The user's --requested,
// --unique-prompts and --max-failed-share (in `in`) win over the record's. nullopt when
// `in.accept` refused an input; InputError naming the file for one that cannot be read.
std::optional<FleetRun> load_fleet_run(const std::filesystem::path& folder, const JudgeInput& in);

}  // namespace inferlint::run
