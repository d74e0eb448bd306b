// vLLM's boot lines (verified on 0.28, 0.29 and 0.30; 0.31's and the XPU and two-line KV
// formats on the field logs in ../shared/field and vllm/v1/core/kv_cache_utils.py,
// vllm/v1/worker/gpu_worker.py at vllm-project/vllm main, 2026).
#include "bootlog_patterns.hpp"

#include <algorithm>
#include <array>

namespace inferlint::parse::detail {

// The field scanners, named apart from the other engines' ones of the same name.
namespace vllm_lines {
namespace {

using Out = std::optional<Json>;

constexpr Extractor version = text_of<R"(Initializing a V1 LLM engine \(v([^)\s]+)\))">;

Out non_default_args(std::string_view line, std::size_t) { return dict_after(line, "non-default args: "); }

std::string strip_quotes(std::string_view s) {
    auto is_q = [](char c) { return c == ' ' || c == '\'' || c == '"'; };
    while (!s.empty() && is_q(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_q(s.back())) s.remove_suffix(1);
    return std::string(s);
}

// The backends a "potential backends: [...]" list names, unquoted. split(",") keeps empty
// pieces: "[]" gives one empty candidate, as in Python.
Json candidates_of(std::string_view list) {
    Json candidates = Json::array();
    for (;;) {
        auto comma = list.find(',');
        candidates.push_back(strip_quotes(list.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return candidates;
}

// The backend a line names (group 1) with the candidates it lists (group 2; none when the
// pattern has no list): [backend, [candidates...]].
template <const char* P, bool kList>
Out backend_of(std::string_view line, std::size_t at) {
    static const Regex rx(P);
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return Json::array({std::string(group(m, 1)), kList ? candidates_of(group(m, 2)) : Json::array()});
}

constexpr char kWithCandidates[] = R"(Using (\w+) attention backend out of potential backends: \[([^\]]*)\])";

bool enum_backend_anchor(std::string_view line) {
    INFERLINT_RX(rx, R"(Using AttentionBackendEnum\.\w+ backend\.)");
    Match m;
    return search_bounded(line, rx, m, line.find("Using AttentionBackendEnum."));
}

constexpr char kRequested[] = R"(Using AttentionBackendEnum\.(\w+) backend\.\s*$)";

constexpr Extractor block_size = int_of<R"(Setting attention block size to (\d+) tokens)">;

constexpr Extractor mamba_padding = float_of<R"(Padding mamba page size by ([\d.]+)%)">;

Out kv_pool(std::string_view line, std::size_t at) {
    INFERLINT_RX(
        rx, R"(GPU KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto tok = to_int_commas(group(m, 1));
    auto len = to_int_commas(group(m, 2));
    auto x = to_float(group(m, 3));
    if (!tok || !len || !x) return std::nullopt;
    return Json::array({*tok, *len, *x});
}

// The pool alone: "GPU KV cache size: 229,344 tokens" with the concurrency on the next line
// (kv_cache_utils.py before the lines were merged), or "XPU KV cache size: N tokens" (Intel).
Out kv_pool_bare(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(KV cache size: ([\d,]+) tokens\s*$)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto tok = to_int_commas(group(m, 1));
    if (!tok) return std::nullopt;
    return Json::array({*tok, nullptr, nullptr});
}

// "Maximum concurrency for 16,384 tokens per request: 14.00x" on a line of its own.
bool max_concurrency_alone(std::string_view line) { return line.find("KV cache size:") == std::string_view::npos; }

constexpr Extractor max_concurrency =
    pair_of<R"(Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)", to_int_commas, to_float>;

// --kv-cache-memory-bytes skips the profile: "Initial free memory 31.16 GiB, reserved 4.25
// GiB memory for KV Cache as specified by kv_cache_memory_bytes config ..." (gpu_worker.py).
constexpr char kReserved[] = R"(reserved ([\d.]+) GiB memory for KV Cache)";
// The start-up check that fails: "... is larger than the available KV cache memory (4.25 GiB)."
constexpr char kAvailableInError[] = R"(the available KV cache memory \(([\d.]+) GiB\))";
// 0.2x-0.31: "Actual usage is 15.26 GiB for consumed memory (weights + non-torch), 1.44 GiB
// for peak activation, and 0.23 GiB for CUDAGraph memory."
constexpr char kGraphShare[] = R"(([\d.]+) GiB for CUDAGraph memory)";

// ROCm and others that name the backend the flag chose: "Using ROCM_AITER_FA backend
// (selected via --attention-backend)."
constexpr char kSelectedViaFlag[] = R"(Using (\w+) backend \(selected via --attention-backend\))";

// ROCm's own choice when none was asked: "Found incompatible backend(s) [...] ... Overriding
// with ROCM_ATTN out of potential backends: ['ROCM_ATTN', ...]" (vllm/platforms/rocm.py).
constexpr char kRocmOverride[] = R"(Overriding with (\w+) out of potential backends: \[([^\]]*)\])";

bool rocm_override_anchor(std::string_view line) { return line.find("Overriding with ") != std::string_view::npos; }

constexpr char kAvailable[] = R"(Available KV cache memory: ([\d.]+) GiB)";
constexpr char kEstimated[] = R"(Estimated CUDA graph memory: ([\d.]+) GiB total)";
constexpr char kActual[] = R"(CUDA graph pool memory: ([\d.]+) GiB \(actual\))";
constexpr char kCompile[] = R"(torch\.compile took ([\d.]+) s in total)";

constexpr Extractor model_load =
    pair_of<R"(Model loading took ([\d.]+) GiB memory and ([\d.]+) seconds)", to_float_commas, to_float_commas>;

// How vLLM split its budget: what it counts as used, and the activation peak it measured.
constexpr Extractor memory_split = pair_of<
    R"(Actual usage is ([\d.]+) GiB for consumed memory \(weights \+ non-torch\), ([\d.]+) GiB for peak activation)",
    to_float_commas, to_float_commas>;

constexpr Extractor cudagraph_downgrade =
    pair_of<R"((\w+) is not supported with spec-decode .*setting cudagraph_mode=(\w+))", as_text, as_text>;

// ---- beyond the Python tool (T17): what the engine says it ran

constexpr Extractor kv_dtype_line = text_of<R"(Using (\w+) data type to store kv cache)">;

// "Using V2 Model Runner" (vllm/v1/worker/gpu_worker.py, at start-up where the V2 model
// runner is used: the default from vLLM 0.29.0, which otherwise warns why it fell back to V1;
// vLLM's model runner V2 announcement, vllm-project/vllm issue 48168).
constexpr Extractor model_runner_v2 = flag_of<R"(Using V2 Model Runner)">;

constexpr Extractor gpu_utilization = float_of<R"(Desired GPU memory utilization is \(([\d.]+),)">;

// The periodic stats line; its value is the "Preemptions: N" it carries, else null:
// "Engine 000: Avg prompt throughput: 83.2 tokens/s, Avg generation throughput: 201.2
// tokens/s, Running: 6 reqs, Waiting: 4 reqs, Preemptions: 3, GPU KV cache usage: 100.0%,
// Prefix cache hit rate: 0.0%" (vllm/v1/metrics/loggers.py LoggingStatLogger.log: the part
// is appended only when the interval's count is above 0; vllm-project/vllm PR #28522).
Out stats_line(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"(, Preemptions: (\d+),)");
    Match m;
    if (!search_bounded(line, rx, m, at)) return Json(nullptr);
    auto v = to_int(group(m, 1));
    return v ? Json(*v) : Json(nullptr);
}

// The keys of the engine's config line that T17 compares.
constexpr std::array<std::string_view, 12> kConfigKeys{"model",
                                                       "speculative_config",
                                                       "dtype",
                                                       "max_seq_len",
                                                       "tensor_parallel_size",
                                                       "pipeline_parallel_size",
                                                       "data_parallel_size",
                                                       "quantization",
                                                       "enforce_eager",
                                                       "kv_cache_dtype",
                                                       "enable_prefix_caching",
                                                       "enable_chunked_prefill"};

// Where the value that starts at `from` ends: the next ", " outside brackets and quotes.
std::size_t config_value_end(std::string_view s, std::size_t from) {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = from; i < s.size(); ++i) {
        char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{' || c == '<') {
            ++depth;
        } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
            --depth;
        } else if (depth == 0 && c == ',' && i + 1 < s.size() && s[i + 1] == ' ') {
            return i;
        }
    }
    return s.size();
}

// "<CompilationMode.VLLM_COMPILE: 3>" after `'key': ` in the compilation_config text.
std::optional<std::string> enum_member_after(std::string_view s, std::string_view key) {
    auto at = s.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t v = at + key.size();
    if (v >= s.size() || s[v] != '<') return std::nullopt;
    auto dot = s.find('.', v);
    auto colon = s.find(':', v);
    if (dot == std::string_view::npos || colon == std::string_view::npos || colon < dot) return std::nullopt;
    return std::string(s.substr(dot + 1, colon - dot - 1));
}

// "Initializing a V1 LLM engine (v0.28.0) with config: model='...', dtype=torch.bfloat16, ..."
Out engine_config(std::string_view line, std::size_t at) {
    constexpr std::string_view kWith = "with config: ";
    auto start = line.find(kWith, at);
    if (start == std::string_view::npos) return std::nullopt;
    Json out = Json::object();
    std::size_t p = start + kWith.size();
    while (p < line.size()) {
        auto eq = line.find('=', p);
        if (eq == std::string_view::npos) break;
        std::string_view key = line.substr(p, eq - p);
        std::size_t end = config_value_end(line, eq + 1);
        std::string_view value = line.substr(eq + 1, end - eq - 1);
        if (std::find(kConfigKeys.begin(), kConfigKeys.end(), key) != kConfigKeys.end()) {
            out[std::string(key)] = strip_quotes(value);
        } else if (key == "compilation_config") {
            if (auto mode = enum_member_after(value, "'mode': ")) out["compilation_mode"] = *mode;
            if (auto mode = enum_member_after(value, "'cudagraph_mode': ")) out["cudagraph_mode"] = *mode;
        }
        p = end + 2;
    }
    if (out.empty()) return std::nullopt;
    return out;
}

}  // namespace
}  // namespace vllm_lines

const std::vector<Field>& vllm_fields() {
    using namespace vllm_lines;
    static const std::vector<Field> fields{
        {"vllm_version", "Initializing a V1 LLM engine", nullptr, {version}},
        {"non_default_args", "non-default args:", nullptr, {non_default_args}},
        {"selected_backend",
         "attention backend out of potential backends",
         nullptr,
         {backend_of<kWithCandidates, true>}},
        // With a backend requested there is no candidate list, only this line. The trailing
        // " backend." keeps the vision encoder's "Using AttentionBackendEnum.X for
        // MMEncoderAttention." out.
        {"selected_backend", "Using AttentionBackendEnum.", enum_backend_anchor, {backend_of<kRequested, false>}},
        {"attention_block_size", "Setting attention block size to", nullptr, {block_size}},
        {"mamba_page_padding_pct", "Padding mamba page size by", nullptr, {mamba_padding}},
        {"kv_pool", "GPU KV cache size:", nullptr, {kv_pool, kv_pool_bare}},
        {"kv_pool", "XPU KV cache size:", nullptr, {kv_pool, kv_pool_bare}},
        {"max_concurrency", "Maximum concurrency for", max_concurrency_alone, {max_concurrency}},
        {"available_kv_cache_gib", "Available KV cache memory:", nullptr, {float_commas_of<kAvailable>}},
        {"available_kv_cache_gib", "GiB memory for KV Cache", nullptr, {float_commas_of<kReserved>}},
        {"available_kv_cache_gib", "the available KV cache memory (", nullptr, {float_commas_of<kAvailableInError>}},
        {"selected_backend", "(selected via --attention-backend)", nullptr, {backend_of<kSelectedViaFlag, false>}},
        {"selected_backend", "out of potential backends", rocm_override_anchor, {backend_of<kRocmOverride, true>}},
        {"model_load", "Model loading took", nullptr, {model_load}},
        {"cudagraph_estimated_gib", "Estimated CUDA graph memory:", nullptr, {float_commas_of<kEstimated>}},
        {"cudagraph_actual_gib", "CUDA graph pool memory:", nullptr, {float_commas_of<kActual>}},
        {"memory_split", "GiB for consumed memory", nullptr, {memory_split}},
        {"compile_s", "torch.compile took", nullptr, {float_commas_of<kCompile>}},
        {"cudagraph_mode_downgrade", "is not supported with spec-decode", nullptr, {cudagraph_downgrade}},
        // Beyond the Python tool (T17).
        {"vllm_engine_config", "Initializing a V1 LLM engine", nullptr, {engine_config}, Reference::beyond},
        {"vllm_kv_cache_dtype", "data type to store kv cache", nullptr, {kv_dtype_line}, Reference::beyond},
        {"vllm_gpu_memory_utilization",
         "Desired GPU memory utilization is",
         nullptr,
         {gpu_utilization},
         Reference::beyond},
        {"vllm_cudagraph_memory_gib",
         "GiB for CUDAGraph memory",
         nullptr,
         {float_commas_of<kGraphShare>},
         Reference::beyond},
        {"vllm_stats_line", "Avg prompt throughput:", nullptr, {stats_line}, Reference::beyond},
        {"vllm_model_runner_v2", "Using V2 Model Runner", nullptr, {model_runner_v2}, Reference::beyond},
    };
    return fields;
}

}  // namespace inferlint::parse::detail
