// The settings a start asked for that the checks use, typed, from each engine's arguments
// line: vLLM's non-default args (vllm/entrypoints/utils.py log_non_default_args), SGLang's
// server_args (sglang/srt/server_args.py), TensorRT-LLM's LLM Args (tensorrt_llm/llmapi).
#include "bootlog_text.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/pyliteral.hpp"

namespace inferlint::parse::detail {

namespace {

const Json* key_in(const Json& args, const char* key) {
    auto it = args.find(key);
    return it == args.end() ? nullptr : &*it;
}

std::optional<long long> whole(const Json* v) {
    if (v && v->is_number_integer()) return v->get<long long>();
    if (v && v->is_string()) return to_int(v->get_ref<const std::string&>());  // TensorRT-LLM's text
    return std::nullopt;
}

std::optional<std::string> text(const Json* v) {
    if (!v || v->is_null()) return std::nullopt;
    return v->is_string() ? v->get<std::string>() : py_str(*v);
}

std::optional<bool> flag(const Json* v) {
    if (v && v->is_boolean()) return v->get<bool>();
    return std::nullopt;
}

void vllm_asked(const Json& args, AskedSettings& a) {
    a.max_running = whole(key_in(args, "max_num_seqs"));
    // Absent from the non-default args: the default, "auto".
    a.kv_cache_dtype = key_in(args, "kv_cache_dtype") ? text(key_in(args, "kv_cache_dtype")) : std::string("auto");
    a.prefix_caching = flag(key_in(args, "enable_prefix_caching"));
    a.block_size = whole(key_in(args, "block_size"));
    if (const Json* spec = key_in(args, "speculative_config"); spec && !spec->is_null()) {
        const Json* method = spec->is_object() ? key_in(*spec, "method") : nullptr;
        a.speculative_method = method && method->is_string() ? method->get<std::string>() : py_str(*spec);
    }
    a.max_num_queued_reqs = whole(key_in(args, "max_num_queued_reqs"));
    if (const Json* t = key_in(args, "max_num_queued_tokens"); t && !t->is_null()) a.max_num_queued_tokens = *t;
}

void sglang_asked(const Json& args, AskedSettings& a) {
    a.max_running = whole(key_in(args, "max_running_requests"));
    a.kv_cache_dtype = text(key_in(args, "kv_cache_dtype"));
    if (auto off = flag(key_in(args, "disable_radix_cache"))) a.prefix_caching = !*off;
    a.block_size = whole(key_in(args, "page_size"));
    a.speculative_method = text(key_in(args, "speculative_algorithm"));
}

// The value of `name='x'` or `name=x` inside the LLM Args text after `from`.
std::optional<std::string> llm_args_value(std::string_view s, std::string_view name, std::size_t from = 0) {
    auto at = s.find(name, from);
    if (at == std::string_view::npos) return std::nullopt;
    at += name.size();
    if (at < s.size() && s[at] == '\'') ++at;
    std::size_t end = at;
    while (end < s.size() && s[end] != '\'' && s[end] != ',' && s[end] != ')' && s[end] != ' ') ++end;
    if (end == at) return std::nullopt;
    return std::string(s.substr(at, end - at));
}

void trtllm_asked(const Json& args, AskedSettings& a) {
    a.max_running = whole(key_in(args, "max_batch_size"));
    a.block_size = whole(key_in(args, "tokens_per_block"));
    a.scheduler_policy = text(key_in(args, "capacity_scheduler_policy"));
    if (auto spec = text(key_in(args, "speculative_config")); spec && *spec != "None") a.speculative_method = spec;
    a.kv_cache_dtype = text(key_in(args, "kv_cache_dtype"));
    const Json* line = key_in(args, "llm_args");
    if (!line || !line->is_string()) return;
    const std::string& s = line->get_ref<const std::string&>();
    // kv_cache_config=KvCacheConfig(..., dtype='auto', ...)
    if (!a.kv_cache_dtype) {
        if (auto cfg = s.find("kv_cache_config=KvCacheConfig("); cfg != std::string::npos)
            a.kv_cache_dtype = llm_args_value(s, " dtype=", cfg);
    }
    if (s.find("enable_block_reuse=False") != std::string::npos)
        a.prefix_caching = false;
    else if (s.find("enable_block_reuse=True") != std::string::npos)
        a.prefix_caching = true;
}

}  // namespace

void fill_asked(BootFacts& f) {
    if (f.non_default_args && f.non_default_args->is_object()) {
        vllm_asked(*f.non_default_args, f.asked);
    } else if (f.server_args && f.server_args->is_object()) {
        if (f.engine == "trtllm" || f.server_args->contains("llm_args"))
            trtllm_asked(*f.server_args, f.asked);
        else
            sglang_asked(*f.server_args, f.asked);
    }
    // TensorRT-LLM 1.1 prints no LLM Args line, but its loader states the KV dtype setting.
    if (f.engine == "trtllm" && !f.asked.kv_cache_dtype) f.asked.kv_cache_dtype = f.realized.trt_kv_dtype_setting;
}

}  // namespace inferlint::parse::detail
