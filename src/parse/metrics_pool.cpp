// The KV pool from /metrics. Sources:
// - vLLM: vllm:cache_config_info, a gauge of 1 whose labels are CacheConfig's fields
//   (vllm/v1/metrics/loggers.py PrometheusStatLogger.log_metrics_info("cache_config") at
//   vllm-project/vllm 005a810bc40faa25b8870fbc8559c3462581eee3; the fields in
//   vllm/config/cache.py). Recorded on 0.30: num_gpu_blocks="2021", block_size="16",
//   cache_dtype="auto", kv_cache_size_tokens="32336" (the pool the boot log states).
// - TensorRT-LLM: trtllm_kv_cache_max_blocks and trtllm_kv_cache_tokens_per_block, one
//   series per process (tensorrt_llm/metrics/collector.py; recorded on 1.3.0rc29: 1180
//   blocks of 32 tokens), and trtllm_kv_cache_config_info{cache_dtype}.
#include "inferlint/parse/metrics_pool.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace inferlint::parse {

namespace {

std::optional<long long> label_int(const std::map<std::string, std::string>& labels, const char* key) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second.empty()) return std::nullopt;
    long long v = 0;
    const std::string& s = it->second;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

std::optional<std::string> label_text(const std::map<std::string, std::string>& labels, const char* key) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second.empty() || it->second == "None") return std::nullopt;
    return it->second;
}

// One series' whole, non-negative value; nullopt when absent, several or not whole.
std::optional<long long> whole(const prom::Metrics& m, const char* name) {
    std::optional<double> v;
    try {
        v = m.single(name);
    } catch (const std::runtime_error&) {
        return std::nullopt;  // one per process: a pool per rank, not one pool
    }
    if (!v || !std::isfinite(*v) || *v < 0 || *v != std::floor(*v) || *v > 1e15) return std::nullopt;
    return static_cast<long long>(*v);
}

std::optional<MetricsPool> from_vllm(const prom::Metrics& m) {
    auto info = m.info("vllm:cache_config_info");
    if (!info) return std::nullopt;
    MetricsPool p;
    p.source = "vllm:cache_config_info";
    p.blocks = label_int(*info, "num_gpu_blocks");
    p.block_size = label_int(*info, "block_size");
    p.tokens = label_int(*info, "kv_cache_size_tokens");
    if (!p.tokens && p.blocks && p.block_size) p.tokens = *p.blocks * *p.block_size;
    p.kv_cache_dtype = label_text(*info, "cache_dtype");
    if (!p.blocks && !p.tokens) return std::nullopt;
    return p;
}

std::optional<MetricsPool> from_trtllm(const prom::Metrics& m) {
    auto blocks = whole(m, "trtllm_kv_cache_max_blocks");
    if (!blocks) return std::nullopt;
    MetricsPool p;
    p.source = "trtllm_kv_cache_max_blocks";
    p.blocks = blocks;
    p.block_size = whole(m, "trtllm_kv_cache_tokens_per_block");
    if (p.block_size) {
        p.source += " x trtllm_kv_cache_tokens_per_block";
        p.tokens = *p.blocks * *p.block_size;
    }
    if (auto info = m.info("trtllm_kv_cache_config_info")) p.kv_cache_dtype = label_text(*info, "cache_dtype");
    return p;
}

}  // namespace

std::optional<MetricsPool> pool_from_metrics(const Snapshot& snapshot) {
    const prom::Metrics& m = snapshot.metrics();
    if (auto p = from_vllm(m)) return p;
    return from_trtllm(m);
}

}  // namespace inferlint::parse
