// T18: did the load tool count stream chunks as tokens?
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>

namespace inferlint::checks {

// The mean tokens one step emitted between the snapshots, from the speculative-decoding
// counters: 1 + accepted / drafts (vLLM), or SGLang's mean accept length gauge (after
// snapshot; below 1, no speculation: 1). nullopt when the server exports none of them.
// The counters read go into `evidence` (null when absent); a restart shows in `delta`.
std::optional<double> tokens_per_step(const Snapshot& before, const Snapshot& after, Deltas& delta, Json& evidence);

// Compares the load tool's output tokens with the server's generated tokens once the
// requests agree (the same rule as T15, `expected_extra_requests` allowed for). Under
// speculative decoding one stream chunk carries several tokens: a client short of the
// server by about the mean tokens per step counted chunks (fail, with both counts and
// the ratio). Counts that agree pass. Unknown without the result (`bench` null), without
// a counter, on a restart between the snapshots, when the requests disagree, or when the
// tokens disagree in a way the speculative-decoding counters do not explain (or cannot,
// being absent): T15 reports that disagreement.
CheckResult check_chunks_not_tokens(const BenchResult* bench, const Snapshot& before, const Snapshot& after,
                                    long long expected_extra_requests = 0);

}  // namespace inferlint::checks
