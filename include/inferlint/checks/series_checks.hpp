// Tripwires read from a gauge recording: T8 (concurrency not reached), T9 (falling
// ceiling) and T14 (reserved null block). Each takes the recording already reduced to
// SeriesStats (parse/series.hpp), so a recording of any length is checked in one pass.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace inferlint::checks {

// The result for a tripwire about a behaviour `engine` does not have (T14 on an engine
// that exports no block count); nullopt when the tripwire applies.
std::optional<CheckResult> does_not_apply(TripwireId tripwire, const Engine& engine);

// T14. The usage gauge counts out of num_gpu_blocks - 1: the denominator inferred from
// the readings alone, against the num_gpu_blocks label the snapshot's cache-config info
// series exports. Doubles as a self-test of infer_blocks.
CheckResult check_null_block(const SeriesStats& stats, const Snapshot& snapshot);

// T14's result and, when it passed, the usable block count it inferred (what T9's
// arithmetic may then use).
struct NullBlockFinding {
    CheckResult result;
    std::optional<long long> usable_blocks;
    std::optional<long long> reported_blocks;  // num_gpu_blocks, as the server reported it
    std::optional<long long> inferred_blocks;  // the usage gauge's steps, whether or not they match
};
NullBlockFinding null_block(const SeriesStats& stats, const Snapshot& snapshot);

inline constexpr double kSaturatedUsage = 0.9;

// T9. How many requests fit, floor(1 / share), on every sample where the cache is the
// binding constraint (usage >= saturated; every busy sample when none is). A ceiling
// that moved during the run is a warning. `usable_blocks` (from a passing T14) makes the
// arithmetic exact in whole blocks.
CheckResult concurrency_ceiling(const SeriesStats& stats, const Engine& engine,
                                std::optional<long long> usable_blocks = std::nullopt,
                                double saturated = kSaturatedUsage);

// T8. Did the requested concurrency ever run at once? With the boot log's facts, the
// message names admission control (--max-num-queued-reqs) or the server's own running
// limit when either was what held the run back. `client_streaming`: the most requests the
// load tool saw receiving tokens at once (T21's), given only where the engine's gauge lags;
// it decides where the gauge cannot, and the message says which witness it used.
CheckResult check_concurrency_reached(const SeriesStats& stats, const Engine& engine, long long requested,
                                      const parse::BootFacts* facts = nullptr,
                                      std::optional<long long> client_streaming = std::nullopt);

// The most requests the server runs at once by its own setting, and how it was set
// (SGLang's lowered limit, --max-running-requests, --max-num-seqs); nullopt if unsaid.
std::optional<std::pair<long long, std::string>> running_cap(const parse::BootFacts* facts);

// The same on a whole summary (its engine from the recording's header).
inline CheckResult check_null_block(const SeriesSummary& s, const Snapshot& snapshot) {
    return check_null_block(s.stats, snapshot);
}
inline CheckResult concurrency_ceiling(const SeriesSummary& s, std::optional<long long> usable_blocks = std::nullopt,
                                       double saturated = kSaturatedUsage) {
    return concurrency_ceiling(s.stats, s.engine(), usable_blocks, saturated);
}
inline CheckResult check_concurrency_reached(const SeriesSummary& s, long long requested,
                                             const parse::BootFacts* facts = nullptr) {
    return check_concurrency_reached(s.stats, s.engine(), requested, facts);
}

}  // namespace inferlint::checks
