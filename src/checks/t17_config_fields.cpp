// T17's fields: per engine, where the command line states each setting and where the log
// states what ran (verified on vLLM 0.28-0.30, SGLang 0.5.20, TensorRT-LLM 1.3.0rc29).
#include "inferlint/checks/t17_realized_config.hpp"

#include "inferlint/parse/pyliteral.hpp"

#include <cctype>

namespace inferlint::checks {

namespace {

// The argument as given: vLLM's non-default args (absent: the default, null), SGLang's
// server_args or TensorRT-LLM's LLM Args.
Json t17_arg(const parse::BootFacts& f, std::string_view key) {
    const std::optional<Json>& args = f.non_default_args ? f.non_default_args : f.server_args;
    if (!args || !args->is_object()) return nullptr;
    auto it = args->find(std::string(key));
    return it == args->end() ? Json(nullptr) : *it;
}

// A value of vLLM's config line as JSON: True/False, None, a whole number, else the text.
Json t17_config_value(const parse::BootFacts& f, std::string_view key) {
    const Json& cfg = f.realized.engine_config;
    auto it = cfg.find(std::string(key));
    if (it == cfg.end() || !it->is_string()) return nullptr;
    const std::string& s = it->get_ref<const std::string&>();
    if (s == "True") return true;
    if (s == "False") return false;
    if (s == "None") return nullptr;
    bool digits = !s.empty() && s.size() < 18;
    for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) return std::stoll(s);
    return s;
}

template <typename T>
Json t17_opt(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

Json t17_last(const std::vector<std::string>& v) { return v.empty() ? Json(nullptr) : Json(v.back()); }

// The typed settings the parser read from the arguments line (parse::AskedSettings).
Json t17_asked_kv(const parse::BootFacts& f) { return t17_opt(f.asked.kv_cache_dtype); }
Json t17_asked_block(const parse::BootFacts& f) { return t17_opt(f.asked.block_size); }
Json t17_asked_running(const parse::BootFacts& f) { return t17_opt(f.asked.max_running); }
Json t17_asked_prefix(const parse::BootFacts& f) { return t17_opt(f.asked.prefix_caching); }
Json t17_asked_spec(const parse::BootFacts& f) { return t17_opt(f.asked.speculative_method); }

// The dtype the engine stored the KV cache in: vLLM's "auto" is the model's dtype.
Json t17_realized_kv(const parse::BootFacts& f) {
    const auto& r = f.realized;
    if (!r.kv_cache_dtype) return nullptr;
    if (f.engine == "trtllm" && r.kv_dtype_from_checkpoint) return "checkpoint's";
    if (*r.kv_cache_dtype == "auto" && f.engine == "vllm") {
        Json model_dtype = t17_config_value(f, "dtype");
        if (model_dtype.is_string()) return model_dtype;
    }
    return *r.kv_cache_dtype;
}

// vLLM's asked value, with the default it takes when the flag is absent from the
// non-default args (only where an arguments line is there to be absent from).
Json t17_vllm_arg(const parse::BootFacts& f, std::string_view key, Json fallback) {
    Json v = t17_arg(f, key);
    if (!v.is_null() || !f.non_default_args) return v;
    return fallback;
}

// CUDA graphs as run: the mode (FULL_AND_PIECEWISE, or the one a downgrade set), or eager.
Json t17_graphs_realized(const parse::BootFacts& f) {
    if (!f.cudagraphs) return nullptr;
    if (!*f.cudagraphs) return "eager";
    if (f.cudagraph_mode_downgrade) return f.cudagraph_mode_downgrade->second;
    Json mode = t17_config_value(f, "cudagraph_mode");
    return mode.is_null() ? Json("cuda graphs") : mode;
}

// --num-gpu-blocks-override in tokens: blocks of --block-size (16 by default on CUDA).
Json t17_vllm_tokens_asked(const parse::BootFacts& f) {
    Json blocks = t17_arg(f, "num_gpu_blocks_override");
    if (!blocks.is_number_integer()) return nullptr;
    return blocks.get<long long>() * f.asked.block_size.value_or(16);
}

std::vector<ConfigField> t17_vllm_fields(const parse::BootFacts& f) {
    Json eager = t17_arg(f, "enforce_eager");
    Json spec_realized = t17_config_value(f, "speculative_config");
    if (spec_realized.is_null() && !f.realized.engine_config.empty()) spec_realized = false;
    return {
        {"kv_cache_dtype", t17_asked_kv(f), t17_realized_kv(f)},
        {"kv_capacity_tokens", t17_vllm_tokens_asked(f), t17_opt(f.kv_pool_tokens)},
        {"block_size", t17_asked_block(f), t17_opt(f.attention_block_size)},
        {"attention_backend", t17_opt(f.requested_backend), t17_last(f.selected_backends)},
        {"draft_attention_backend", f.speculative == true ? t17_opt(f.requested_backend) : Json(nullptr),
         t17_last(f.drafter_backends)},
        {"tensor_parallel_size", t17_vllm_arg(f, "tensor_parallel_size", 1),
         t17_config_value(f, "tensor_parallel_size")},
        {"pipeline_parallel_size", t17_vllm_arg(f, "pipeline_parallel_size", 1),
         t17_config_value(f, "pipeline_parallel_size")},
        {"data_parallel_size", t17_vllm_arg(f, "data_parallel_size", 1), t17_config_value(f, "data_parallel_size")},
        {"max_running_requests", t17_asked_running(f), nullptr},
        {"max_model_len", t17_arg(f, "max_model_len"), t17_config_value(f, "max_seq_len")},
        {"gpu_memory_utilization", t17_arg(f, "gpu_memory_utilization"), t17_opt(f.realized.gpu_memory_utilization)},
        {"prefix_caching", t17_asked_prefix(f), t17_config_value(f, "enable_prefix_caching")},
        {"chunked_prefill", t17_arg(f, "enable_chunked_prefill"), t17_config_value(f, "enable_chunked_prefill")},
        {"speculative_decoding", t17_asked_spec(f), spec_realized},
        {"quantization", t17_arg(f, "quantization"), t17_config_value(f, "quantization")},
        {"cuda_graphs", eager.is_boolean() && eager.get<bool>() ? Json("eager") : Json(nullptr),
         t17_graphs_realized(f)},
        {"compile", t17_arg(f, "compilation_config"), t17_config_value(f, "compilation_mode")},
    };
}

std::vector<ConfigField> t17_sglang_fields(const parse::BootFacts& f) {
    Json graphs_off = t17_arg(f, "disable_cuda_graph");
    return {
        {"kv_cache_dtype", t17_asked_kv(f), t17_realized_kv(f)},
        {"kv_capacity_tokens", t17_arg(f, "max_total_tokens"), t17_opt(f.kv_pool_tokens)},
        {"block_size", t17_asked_block(f), nullptr},
        {"attention_backend", t17_opt(f.requested_backend), t17_last(f.selected_backends)},
        {"draft_attention_backend", nullptr, t17_last(f.drafter_backends)},
        {"tensor_parallel_size", t17_arg(f, "tp_size"), nullptr},
        {"pipeline_parallel_size", t17_arg(f, "pp_size"), nullptr},
        {"data_parallel_size", t17_arg(f, "dp_size"), nullptr},
        {"max_running_requests", t17_asked_running(f), t17_opt(f.running_cap)},
        {"max_model_len", t17_arg(f, "context_length"), t17_opt(f.realized.max_model_len)},
        {"gpu_memory_utilization", t17_arg(f, "mem_fraction_static"), nullptr},
        {"prefix_caching", t17_asked_prefix(f), nullptr},
        {"chunked_prefill", t17_arg(f, "chunked_prefill_size"), t17_opt(f.realized.chunked_prefill_tokens)},
        {"speculative_decoding", t17_asked_spec(f), nullptr},
        {"quantization", t17_arg(f, "quantization"), nullptr},
        {"cuda_graphs",
         graphs_off.is_boolean() ? Json(graphs_off.get<bool>() ? "eager" : "cuda graphs") : Json(nullptr),
         t17_graphs_realized(f)},
        {"compile", t17_arg(f, "enable_torch_compile"), nullptr},
    };
}

// TensorRT-LLM's LLM Args line holds the settings the parser keeps (parse/bootlog_trtllm).
std::vector<ConfigField> t17_trtllm_fields(const parse::BootFacts& f) {
    return {
        {"kv_cache_dtype", t17_asked_kv(f), t17_realized_kv(f)},
        {"kv_capacity_tokens", nullptr, t17_opt(f.kv_pool_tokens)},
        {"block_size", t17_asked_block(f), t17_opt(f.page_size)},
        {"attention_backend", t17_arg(f, "attn_backend"), t17_last(f.selected_backends)},
        {"draft_attention_backend", nullptr, t17_last(f.drafter_backends)},
        {"tensor_parallel_size", nullptr, nullptr},
        {"pipeline_parallel_size", nullptr, nullptr},
        {"data_parallel_size", nullptr, nullptr},
        {"max_running_requests", t17_asked_running(f), t17_opt(f.running_cap)},
        {"max_model_len", t17_arg(f, "max_seq_len"), t17_opt(f.realized.max_model_len)},
        {"gpu_memory_utilization", t17_arg(f, "free_gpu_memory_fraction"), t17_opt(f.realized.gpu_memory_utilization)},
        {"prefix_caching", nullptr, nullptr},
        {"chunked_prefill", t17_arg(f, "enable_chunked_prefill"), nullptr},
        {"speculative_decoding", t17_asked_spec(f), t17_opt(f.speculative)},
        {"quantization", nullptr, nullptr},
        {"cuda_graphs", nullptr, t17_graphs_realized(f)},
        {"compile", nullptr, nullptr},
    };
}

}  // namespace

std::vector<ConfigField> realized_config(const parse::BootFacts& f) {
    std::vector<ConfigField> out{{"engine_version", nullptr, t17_opt(f.version())}};
    std::vector<ConfigField> rest = f.engine == "sglang"   ? t17_sglang_fields(f)
                                    : f.engine == "trtllm" ? t17_trtllm_fields(f)
                                                           : t17_vllm_fields(f);
    for (auto& field : rest) out.push_back(std::move(field));
    return out;
}

std::vector<ConfigField> metrics_config(const parse::MetricsPool& pool) {
    parse::BootFacts none;
    std::vector<ConfigField> out = realized_config(none);
    for (auto& field : out) {
        if (field.name == "kv_cache_dtype") field.realized = t17_opt(pool.kv_cache_dtype);
        if (field.name == "kv_capacity_tokens") field.realized = t17_opt(pool.tokens);
        if (field.name == "block_size") field.realized = t17_opt(pool.block_size);
    }
    return out;
}

}  // namespace inferlint::checks
