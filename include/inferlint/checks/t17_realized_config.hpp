// T17: the server ran a configuration nobody asked for. A checkpoint's config.json can
// switch the KV cache to FP8 without a flag (vLLM reads its quantization_config's
// kv_cache_scheme), so two starts with identical command lines hold different KV pools.
// The command line (vLLM's non-default args, SGLang's server_args, TensorRT-LLM's LLM
// Args) is what was asked; the log's own lines are what ran.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/metrics_pool.hpp"
#include "inferlint/parse/model_config.hpp"

#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace inferlint::checks {

// One field of a start's configuration: what the command line asked (null: not asked, so
// the engine's default) and what the log says the engine ran (null: the log does not say).
struct ConfigField {
    std::string_view name;
    Json asked;
    Json realized;
};

// The fields T17 compares, always in this order: engine_version, kv_cache_dtype,
// kv_capacity_tokens, block_size, attention_backend, draft_attention_backend,
// tensor_parallel_size, pipeline_parallel_size, data_parallel_size, max_running_requests,
// max_model_len, gpu_memory_utilization, prefix_caching, chunked_prefill,
// speculative_decoding, quantization, cuda_graphs, compile.
std::vector<ConfigField> realized_config(const parse::BootFacts& facts);

// The same fields for a run with no boot log, from what /metrics states of the pool
// (kv_cache_dtype, kv_capacity_tokens, block_size; the rest null): a fleet read from a
// Prometheus has only these.
std::vector<ConfigField> metrics_config(const parse::MetricsPool& pool);

// One start: the KV cache dtype the engine used against the one asked (WARN when they
// differ, naming the cause from `config`, the model's config.json, when it was read).
// Unknown when the log states no dtype or has no arguments line.
CheckResult check_kv_dtype_as_asked(const parse::BootFacts& facts, const parse::ModelConfig* config);

// Several starts: WARN listing every field whose asked or realized values differ; PASS
// when none does. Starts that never came up are left out; unknown with fewer than two
// left. Evidence: {fields: {name: {asked: [...], realized: [...]}}, starts: [...]}, one
// entry per start compared in each list.
CheckResult check_realized_config(const std::vector<const parse::BootFacts*>& facts,
                                  const std::vector<std::string>& labels);

// Several replicas with no boot log (a fleet read from a Prometheus): the same diff over
// what each one's /metrics states (metrics_config), evidence `pool_source: "metrics"`.
// A replica whose /metrics states no pool (nullopt) is left out; unknown with fewer than
// two left.
CheckResult check_metrics_config(const std::vector<std::pair<std::string, std::optional<parse::MetricsPool>>>& pools);

}  // namespace inferlint::checks
