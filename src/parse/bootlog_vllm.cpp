// vLLM's boot lines (verified on 0.28, 0.29 and 0.30).
#include "bootlog_text.hpp"

namespace inferlint::parse::detail {

// The field scanners, named apart from the other engines' ones of the same name.
namespace vllm_lines {
namespace {

using Out = std::optional<Json>;

Out version(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Initializing a V1 LLM engine \(v([^)\s]+)\))");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return std::string(group(m, 1));
}

Out non_default_args(std::string_view line, std::size_t) { return dict_after(line, "non-default args: "); }

std::string strip_quotes(std::string_view s) {
    auto is_q = [](char c) { return c == ' ' || c == '\'' || c == '"'; };
    while (!s.empty() && is_q(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_q(s.back())) s.remove_suffix(1);
    return std::string(s);
}

Out backend_with_candidates(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Using (\w+) attention backend out of potential backends: \[([^\]]*)\])");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    Json candidates = Json::array();
    std::string_view c = group(m, 2);
    // split(",") keeps empty pieces: "[]" gives one empty candidate, as in Python.
    for (;;) {
        auto comma = c.find(',');
        candidates.push_back(strip_quotes(c.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        c.remove_prefix(comma + 1);
    }
    return Json::array({std::string(group(m, 1)), candidates});
}

bool enum_backend_anchor(std::string_view line) {
    INFERLINT_RX(rx, R"(Using AttentionBackendEnum\.\w+ backend\.)");
    std::cmatch m;
    return search_bounded(line, rx, m, line.find("Using AttentionBackendEnum."));
}

Out backend_requested(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Using AttentionBackendEnum\.(\w+) backend\.\s*$)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return Json::array({std::string(group(m, 1)), Json::array()});
}

Out block_size(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Setting attention block size to (\d+) tokens)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto v = to_int(group(m, 1));
    return v ? Out(*v) : std::nullopt;
}

Out mamba_padding(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Padding mamba page size by ([\d.]+)%)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto v = to_float(group(m, 1));
    return v ? Out(*v) : std::nullopt;
}

Out kv_pool(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(GPU KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto tok = to_int_commas(group(m, 1));
    auto len = to_int_commas(group(m, 2));
    auto x = to_float(group(m, 3));
    if (!tok || !len || !x) return std::nullopt;
    return Json::array({*tok, *len, *x});
}

// A field whose value is one number in GiB.
template <const char* Pattern>
Out one_gib(std::string_view line, std::size_t at) {
    static const std::regex rx(Pattern, std::regex::ECMAScript | std::regex::optimize);
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto v = to_float_commas(group(m, 1));
    return v ? Out(*v) : std::nullopt;
}

constexpr char kAvailable[] = R"(Available KV cache memory: ([\d.]+) GiB)";
constexpr char kEstimated[] = R"(Estimated CUDA graph memory: ([\d.]+) GiB total)";
constexpr char kActual[] = R"(CUDA graph pool memory: ([\d.]+) GiB \(actual\))";
constexpr char kCompile[] = R"(torch\.compile took ([\d.]+) s in total)";

Out model_load(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Model loading took ([\d.]+) GiB memory and ([\d.]+) seconds)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto g = to_float_commas(group(m, 1));
    auto s = to_float_commas(group(m, 2));
    if (!g || !s) return std::nullopt;
    return Json::array({*g, *s});
}

// How vLLM split its budget: what it counts as used, and the activation peak it measured.
Out memory_split(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(Actual usage is ([\d.]+) GiB for consumed memory \(weights \+ non-torch\), ([\d.]+) GiB for peak activation)");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto c = to_float_commas(group(m, 1));
    auto p = to_float_commas(group(m, 2));
    if (!c || !p) return std::nullopt;
    return Json::array({*c, *p});
}

Out cudagraph_downgrade(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"((\w+) is not supported with spec-decode .*setting cudagraph_mode=(\w+))");
    std::cmatch m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return Json::array({std::string(group(m, 1)), std::string(group(m, 2))});
}

}  // namespace
}  // namespace vllm_lines

const std::vector<Field>& vllm_fields() {
    using namespace vllm_lines;
    static const std::vector<Field> fields{
        {"vllm_version", "Initializing a V1 LLM engine", nullptr, {version}},
        {"non_default_args", "non-default args:", nullptr, {non_default_args}},
        {"selected_backend", "attention backend out of potential backends", nullptr, {backend_with_candidates}},
        // With a backend requested there is no candidate list, only this line. The trailing
        // " backend." keeps the vision encoder's "Using AttentionBackendEnum.X for
        // MMEncoderAttention." out.
        {"selected_backend", "Using AttentionBackendEnum.", enum_backend_anchor, {backend_requested}},
        {"attention_block_size", "Setting attention block size to", nullptr, {block_size}},
        {"mamba_page_padding_pct", "Padding mamba page size by", nullptr, {mamba_padding}},
        {"kv_pool", "GPU KV cache size:", nullptr, {kv_pool}},
        {"available_kv_cache_gib", "Available KV cache memory:", nullptr, {one_gib<kAvailable>}},
        {"model_load", "Model loading took", nullptr, {model_load}},
        {"cudagraph_estimated_gib", "Estimated CUDA graph memory:", nullptr, {one_gib<kEstimated>}},
        {"cudagraph_actual_gib", "CUDA graph pool memory:", nullptr, {one_gib<kActual>}},
        {"memory_split", "GiB for consumed memory", nullptr, {memory_split}},
        {"compile_s", "torch.compile took", nullptr, {one_gib<kCompile>}},
        {"cudagraph_mode_downgrade", "is not supported with spec-decode", nullptr, {cudagraph_downgrade}},
    };
    return fields;
}

}  // namespace inferlint::parse::detail
