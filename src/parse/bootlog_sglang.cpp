// SGLang's boot lines (verified on 0.5.20).
#include "bootlog_text.hpp"

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

Out model_load(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Load weight end\. elapsed=([\d.]+) s,.* mem usage=([\d.]+) GB)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto s = to_float_commas(group(m, 1));
    auto g = to_float_commas(group(m, 2));
    if (!s || !g) return std::nullopt;
    return Json::array({*g, *s});
}

// One line per capture phase (decode, prefill); the parser adds them up.
Out cudagraph(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(CUDA graph end\. elapsed=[\d.]+ s, mem usage=([\d.]+) GB)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto g = to_float_commas(group(m, 1));
    return g ? Out(*g) : std::nullopt;
}

Out running_cap_reason(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(max_running_requests is capped to (\d+) by the ([^(]+?) \()");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto n = to_int(group(m, 1));
    if (!n) return std::nullopt;
    return Json::array({*n, std::string(util::text::trim(group(m, 2), util::text::kPySpace))});
}

Out limits(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(max_total_num_tokens=(\d+),.* max_running_requests=(\d+))");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto tok = to_int(group(m, 1));
    auto n = to_int(group(m, 2));
    if (!tok || !n) return std::nullopt;
    return Json::array({*tok, *n});
}

Out default_backend(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Attention backend not specified\. Use (\w+) backend by default)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return std::string(group(m, 1));
}

// ---- beyond the Python tool (T17)

Out kv_dtype(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(KV Cache is allocated\. dtype: ([^,\s]+),)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return std::string(group(m, 1));
}

// "max_total_num_tokens=32096, chunked_prefill_size=4096, ..., context_len=16384, ..."
Out realized_limits(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(chunked_prefill_size=(-?\d+),.* context_len=(\d+))");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto chunk = to_int(group(m, 1));
    auto len = to_int(group(m, 2));
    if (!chunk || !len) return std::nullopt;
    return Json::array({*chunk, *len});
}

}  // namespace
}  // namespace sglang_lines

const std::vector<Field>& sglang_fields() {
    using namespace sglang_lines;
    static const std::vector<Field> fields{
        {"server_args", "server_args={", nullptr, {server_args}},
        {"sglang_kv_pool", "KV Cache is allocated.", nullptr, {kv_pool}},
        {"model_load", "Load weight end.", nullptr, {model_load}},
        {"sglang_cudagraph_gib", "CUDA graph end.", nullptr, {cudagraph}},
        {"sglang_running_cap_reason", "max_running_requests is capped to", nullptr, {running_cap_reason}},
        {"sglang_limits", "max_total_num_tokens=", nullptr, {limits}},
        {"sglang_default_backend", "Attention backend not specified.", nullptr, {default_backend}},
        // Beyond the Python tool (T17).
        {"sglang_kv_cache_dtype", "KV Cache is allocated.", nullptr, {kv_dtype}, Reference::beyond},
        {"sglang_realized_limits", "max_total_num_tokens=", nullptr, {realized_limits}, Reference::beyond},
    };
    return fields;
}

}  // namespace inferlint::parse::detail
