// T16: how much of the run's prompt the server took from its prefix cache instead of
// computing it. A harness that repeats one prompt measures a server that skips most of
// its prefill, and the arm with more free KV memory keeps more prefixes cached.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>
#include <string>

namespace inferlint::checks {

// Above this share of the prompt served from the cache, T16 warns; above the second, a
// load meant to be unique repeated its prompts.
inline constexpr double kPrefixCacheWarnShare = 0.01;
inline constexpr double kPrefixCacheFailShare = 0.10;

struct PrefixCacheContext {
    // The start's boot log, where it says whether the prefix cache was on.
    const parse::BootFacts* facts = nullptr;
    // Why the load's prompts were meant to be unique ("--unique-prompts", "--dataset-name
    // random"); nullopt: nothing says so.
    std::optional<std::string> unique_prompts;
};

// Where the boot log says the prefix cache was off: vLLM's non-default args
// (enable_prefix_caching False), SGLang's server_args (disable_radix_cache True),
// TensorRT-LLM's LLM Args (kv_cache_config enable_block_reuse=False). nullopt when the
// log does not say so.
std::optional<std::string> prefix_caching_off(const parse::BootFacts& facts);

// The same from a snapshot: vLLM's cache_config_info label enable_prefix_caching="False".
std::optional<std::string> prefix_caching_off(const Snapshot& snapshot);

// The share of the prompt tokens between the snapshots that came from the prefix cache
// (vLLM: prefix_cache_hits / prefix_cache_queries; SGLang: cached tokens, else the prompt
// tokens less the uncached ones, over the prompt tokens; TensorRT-LLM: cached prompt
// tokens over prompt tokens, else reused over looked-up KV blocks). Pass at most 1% or
// with the cache off; warn above; fail above 10% when the prompts were meant to be
// unique. Absent counters, no prompt looked up, or a restart between the snapshots is
// unknown.
// The share goes into `measured` when given.
CheckResult check_prefix_cache(const Snapshot& before, const Snapshot& after, const PrefixCacheContext& ctx = {},
                               Measured* measured = nullptr);

}  // namespace inferlint::checks
