// What the checks measured on the way to their verdicts, as typed values: the figures that
// compare, the report's tiles and "what limited this run" use. A check that measures one
// fills it where it writes its evidence, so nothing reads a figure back out of evidence JSON
// (the JSON is written from the same values, at the edge).
#pragma once

#include "inferlint/core/tripwire_id.hpp"

#include <optional>

namespace inferlint::checks {

struct Measured {
    std::optional<double> preemptions;  // T1: requests preempted, retracted or paused (from a counter or the log)
    std::optional<long long> preemptions_in_log;      // T1: what vLLM's periodic stats lines count (0.33+)
    std::optional<double> output_rate_per_s;          // T10: generated tokens over the snapshots' own span
    std::optional<double> span_s;                     // T10: that span
    std::optional<double> integer_second_rate_per_s;  // T10: the rate a whole-second timer would give
    std::optional<double> integer_second_error;       // T10: what a whole-second timer would have been off by
    std::optional<double> peak_running;               // T8: the most requests the recording saw running
    std::optional<long long> reported_blocks;         // T14: the KV blocks the server reported
    std::optional<long long> inferred_blocks;         // T14: the blocks the usage gauge's steps imply
    std::optional<double> prefix_hit_rate;            // T16: the share of looked-up prompt tokens served from the cache
    bool restarted = false;  // T1 found the server restarted between the snapshots (so no count of its own)

    // Drops what this tripwire measured: its verdict was replaced by another (a fleet's
    // verdict made of its replicas'), so its figures no longer stand beside it.
    void forget(TripwireId id) {
        switch (id) {
            case TripwireId::T1:
                preemptions.reset(), preemptions_in_log.reset();
                break;
            case TripwireId::T10:
                output_rate_per_s.reset(), span_s.reset(), integer_second_rate_per_s.reset();
                integer_second_error.reset();
                break;
            case TripwireId::T14:
                reported_blocks.reset(), inferred_blocks.reset();
                break;
            case TripwireId::T16:
                prefix_hit_rate.reset();
                break;
            default:
                break;
        }
    }
};

}  // namespace inferlint::checks
