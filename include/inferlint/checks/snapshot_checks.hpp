// Tripwires read from two snapshots of /metrics: T1 (silent preemption) and T10
// (throughput from the snapshots' own clocks).
#pragma once

#include "inferlint/checks/measured.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace inferlint::checks {

// The engine that served these snapshots, from their metric names (vLLM if none tells).
const Engine& engine_of(const std::vector<const Snapshot*>& snapshots);

// What the server log and the recording say about pauses, for an engine that counts
// none (TensorRT-LLM). Filled by the caller from BootFacts and the Series.
struct PauseEvidence {
    bool have_log = false;                        // a boot log was given
    std::optional<long long> logged_pauses;       // `request ID N -> pause` lines, when countable
    std::optional<long long> served_in_log;       // answered requests the log covers
    std::optional<std::string> scheduler_policy;  // LLM Args capacity_scheduler_policy
    // vLLM 0.12+: its periodic stats lines and the "Preemptions: N" they summed (a second
    // witness beside vllm:num_preemptions; nullopt when no line counted one).
    long long stats_lines = 0;
    std::optional<long long> logged_preemptions;
    // TensorRT-LLM: the release that wrote the log, and whether the log shows DEBUG lines
    // (some releases log their pauses at DEBUG only).
    std::optional<std::string> engine_version;
    bool debug_lines = false;
    // The recording's paused gauge: how many readings had it, how many were above 0, the most.
    long long paused_readings = 0;
    long long paused_nonzero = 0;
    double paused_max = 0.0;
};

// A tripwire that two snapshots cannot judge because the server restarted between them:
// the restart's message, and its evidence with "restarted": true.
CheckResult restarted(TripwireId id, Status status, const Restart& restart);

// T1. Preemptions (SGLang: retractions; TensorRT-LLM: pauses) between two snapshots.
// The count goes into `measured` when given.
CheckResult check_no_preemption(const Snapshot& before, const Snapshot& after, const PauseEvidence& pauses = {},
                                Measured* measured = nullptr);

// T10. Tokens over the monotonic span; `counter` defaults to the generated-token counter.
// The rate, span and timer error go into `measured` when given.
CheckResult precise_rate(const Snapshot& before, const Snapshot& after, const std::string& counter = "",
                         Measured* measured = nullptr);

// T10's message with what an integer-second timer would have said, for the terminal.
CheckResult with_timer_comparison(CheckResult r, const Measured& measured);

}  // namespace inferlint::checks
