// The KV pool as a server's /metrics states it, for runs and fleets read without a boot
// log (a Prometheus, snapshots only): pool size, block size and KV cache dtype.
#pragma once

#include "inferlint/parse/snapshot.hpp"

#include <optional>
#include <string>

namespace inferlint::parse {

struct MetricsPool {
    std::string source;  // the series the figures come from, for evidence
    std::optional<long long> blocks;
    std::optional<long long> block_size;  // tokens per block
    std::optional<long long> tokens;      // the pool, in tokens
    std::optional<std::string> kv_cache_dtype;
};

// vLLM's vllm:cache_config_info labels (num_gpu_blocks, block_size, cache_dtype and, on
// 0.30+, kv_cache_size_tokens), or TensorRT-LLM's trtllm_kv_cache_max_blocks and
// trtllm_kv_cache_tokens_per_block (with trtllm_kv_cache_config_info's cache_dtype).
// nullopt when the snapshot states no pool.
std::optional<MetricsPool> pool_from_metrics(const Snapshot& snapshot);

}  // namespace inferlint::parse
