// SGLang's boot lines (verified on 0.5.20; the MLA, DeepSeek-V4, NPU and draft formats on
// the field logs of 0.5.2x in ../shared/field, and sglang/srt/model_executor/model_runner.py,
// mem_cache/memory_pool.py at sgl-project/sglang main, 2026).
#include "bootlog_patterns.hpp"

namespace inferlint::parse::detail {

// The field scanners, named apart from the other engines' ones of the same name.
namespace sglang_lines {
namespace {

using Out = std::optional<Json>;

Out server_args(std::string_view line, std::size_t) { return dict_after(line, "server_args="); }

Out kv_pool(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(KV Cache is allocated\. dtype: \S+, #tokens: (\d+), K size: ([\d.]+) GB, V size: ([\d.]+) GB)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto tok = to_int(group(m, 1));
    auto k = to_float(group(m, 2));
    auto v = to_float(group(m, 3));
    if (!tok || !k || !v) return std::nullopt;
    return Json::array({*tok, round2(*k + *v)});
}

// MLA models (DeepSeek, Kimi) keep one latent cache, not K and V:
// "KV Cache is allocated. #tokens: 10000, KV size: 0.65 GB" (MLATokenToKVPool).
std::optional<double> to_float_round2(std::string_view s) {
    auto v = to_float(s);
    return v ? std::optional<double>(round2(*v)) : std::nullopt;
}
constexpr Extractor kv_pool_mla =
    pair_of<R"(KV Cache is allocated\. (?:dtype: \S+, )?#tokens: (\d+), KV size: ([\d.]+) GB)", to_int,
            to_float_round2>;

// DeepSeek-V4's hybrid pools print no "KV Cache is allocated" line; the full-attention
// pool is sized here: "DSV4 memory calculation: bytes_per_full_token=7705.45,
// available_bytes=11.89 GB, c128_state_fixed=0.11 GB, full_token=1641472".
constexpr Extractor kv_pool_dsv4 =
    swapped_pair_of<R"(DSV4 memory calculation: .*available_bytes=([\d.]+) GB,.* full_token=(\d+))", to_float, to_int>;

constexpr Extractor model_load = swapped_pair_of<R"(Load weight end\. elapsed=([\d.]+) s,.* mem usage=([\d.]+) GB)",
                                                 to_float_commas, to_float_commas>;

// Forks and older releases print no elapsed time: "Load weight end. type=DeepseekV3ForCausalLM,
// dtype=torch.bfloat16, avail mem=33.80 GB, mem usage=13.06 GB."
std::optional<std::nullptr_t> untimed(std::string_view) { return nullptr; }
constexpr Extractor model_load_untimed =
    pair_of<R"(Load weight end\. .*mem usage=([\d.]+) GB)", to_float_commas, untimed>;

// The rank of a scheduler line, "TP3" in "[2026-08-07 17:36:17 TP3] ...", or "" (one process).
std::string rank_of(std::string_view line) {
    if (line.empty() || line[0] != '[') return {};
    const auto close = line.find(']');
    if (close == std::string_view::npos) return {};
    const auto space = line.rfind(' ', close);
    if (space == std::string_view::npos || space + 1 >= close) return {};
    std::string_view r = line.substr(space + 1, close - space - 1);
    return (r.starts_with("TP") || r.starts_with("DP") || r.starts_with("PP")) ? std::string(r) : std::string();
}

// One line per capture phase (decode, prefill) and per rank; the parser adds up the phases
// of the first rank. [GB, rank, drafter]. "Capture draft verify CUDA graph end ... mem
// usage=-0.01 GB": the draft's graphs (the figure is a difference of free memory and can
// go below zero); "Capture target decode NPU graph end" on Ascend.
Out cudagraph(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"((?:CUDA|NPU) graph end\. elapsed=[\d.]+ s, mem usage=(-?[\d.]+) GB)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    std::string_view num = group(m, 1);
    const bool negative = num.starts_with('-');
    auto g = to_float_commas(negative ? num.substr(1) : num);
    if (!g) return std::nullopt;
    const bool draft = line.find("Capture draft") != std::string_view::npos;
    return Json::array({negative ? -*g : *g, rank_of(line), draft});
}

std::optional<std::string> py_stripped(std::string_view s) {
    return std::string(util::text::trim(s, util::text::kPySpace));
}
constexpr Extractor running_cap_reason =
    pair_of<R"(max_running_requests is capped to (\d+) by the ([^(]+?) \()", to_int, py_stripped>;

constexpr Extractor limits = pair_of<R"(max_total_num_tokens=(\d+),.* max_running_requests=(\d+))", to_int, to_int>;

constexpr Extractor default_backend = text_of<R"(Attention backend not specified\. Use (\w+) backend by default)">;

// ---- beyond the Python tool (T17)

constexpr Extractor kv_dtype = text_of<R"(KV Cache is allocated\. dtype: ([^,\s]+),)">;

// "Using KV cache dtype: torch.bfloat16" (model_runner.py, before the pool line).
constexpr Extractor kv_dtype_using = text_of<R"(Using KV cache dtype: ([^,\s]+))">;

// Hybrid linear-attention models: "Linear attention kernel backend: decode=triton,
// prefill=triton, verify=triton" (the full-attention layers keep the backend named apart).
constexpr Extractor linear_backend = text_of<R"(Linear attention kernel backend: decode=(\w+))">;

// "Overriding draft attention backend to flashinfer." (speculative decoding's drafter).
constexpr Extractor draft_backend = text_of<R"(Overriding draft attention backend to (\w+))">;

// "max_total_num_tokens=32096, chunked_prefill_size=4096, ..., context_len=16384, ..."
constexpr Extractor realized_limits = pair_of<R"(chunked_prefill_size=(-?\d+),.* context_len=(\d+))", to_int, to_int>;

}  // namespace
}  // namespace sglang_lines

const std::vector<Field>& sglang_fields() {
    using namespace sglang_lines;
    static const std::vector<Field> fields{
        {"server_args", "server_args={", nullptr, {server_args}},
        {"sglang_kv_pool", "KV Cache is allocated.", nullptr, {kv_pool, kv_pool_mla}},
        {"sglang_kv_pool", "DSV4 memory calculation:", nullptr, {kv_pool_dsv4}},
        {"model_load", "Load weight end.", nullptr, {model_load, model_load_untimed}},
        {"sglang_cudagraph_gib", "CUDA graph end.", nullptr, {cudagraph}},
        {"sglang_cudagraph_gib", "NPU graph end.", nullptr, {cudagraph}},
        {"sglang_draft_backend", "Overriding draft attention backend to", nullptr, {draft_backend}},
        {"sglang_running_cap_reason", "max_running_requests is capped to", nullptr, {running_cap_reason}},
        {"sglang_limits", "max_total_num_tokens=", nullptr, {limits}},
        {"sglang_default_backend", "Attention backend not specified.", nullptr, {default_backend}},
        // Beyond the Python tool (T17).
        {"sglang_kv_cache_dtype", "KV Cache is allocated.", nullptr, {kv_dtype}, Reference::beyond},
        {"sglang_kv_cache_dtype", "Using KV cache dtype:", nullptr, {kv_dtype_using}, Reference::beyond},
        {"sglang_linear_backend", "Linear attention kernel backend:", nullptr, {linear_backend}, Reference::beyond},
        {"sglang_realized_limits", "max_total_num_tokens=", nullptr, {realized_limits}, Reference::beyond},
    };
    return fields;
}

}  // namespace inferlint::parse::detail
