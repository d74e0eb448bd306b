// TensorRT-LLM's boot lines (verified on 1.3.0rc29; 1.1.0rc3's and 1.2.0rc5's on the field
// logs in ../shared/field: the hyphenated version line, "Number of tokens per block", the
// PyTorchConfig line instead of "LLM Args").
#include "bootlog_patterns.hpp"

#include <array>
#include <cctype>

namespace inferlint::parse::detail {

// The field scanners, named apart from the other engines' ones of the same name.
namespace trtllm_lines {
namespace {

using Out = std::optional<Json>;

constexpr Extractor version = text_of<R"(TensorRT LLM version: (\S+))">;

// Printed twice: once by a dry run that sizes the pool, then for the pool itself.
constexpr Extractor kv_pool =
    swapped_pair_of<R"(Allocated ([\d.]+) GiB for max tokens in paged KV cache \((\d+)\))", to_float_commas, to_int>;

// 1.1 and older: "[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3".
constexpr Extractor version_hyphen = text_of<R"(TensorRT-LLM version: (\S+))">;

// "[TensorRT-LLM][INFO] Number of tokens per block: 32." (the KV cache manager, each pool).
constexpr Extractor tokens_per_block = int_of<R"(Number of tokens per block: (\d+))">;

// Without an "LLM Args" line (1.1): "PyTorchConfig(..., attn_backend='TRTLLM', ...)".
constexpr Extractor pytorch_attn_backend = text_of<R"(attn_backend='(\w+)')">;

// "Use 63.32 GB for model weights." (the PyTorch backend's loader; GB as printed).
constexpr Extractor weights_gb = float_of<R"(Use ([\d.]+) GB for model weights)">;

// "ATTENTION RUNTIME FEATURES: AttentionRuntimeFeatures(..., has_speculative_draft_tokens=False, ...)"
constexpr Extractor no_draft = flag_of<R"(has_speculative_draft_tokens=False)">;

constexpr Extractor page_size = int_of<R"(tokens per block=(\d+))">;

constexpr Extractor limits =
    pair_of<R"(max_num_requests=(\d+), max_num_tokens=\d+, max_batch_size=(\d+))", to_int, to_int>;

constexpr Extractor load_gib =
    float_commas_of<R"(after loading weights \(inside torch\) in memory usage profiling: ([\d.]+) GiB)">;

// The settings follow on the next line; the parser reads them there.
Out llm_args(std::string_view line, std::size_t at) {
    std::string_view rest = line.substr(at + std::string_view("LLM Args:").size());
    return util::text::trim(rest, util::text::kPySpace).empty() ? Out(true) : std::nullopt;
}

// ---- beyond the Python tool (T17)

// KV cache quantization set to "auto". Using checkpoint KV quantization.
Out kv_quantization(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"rx(KV cache quantization set to "([^"]+)"\.( Using checkpoint KV quantization)?)rx");
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return Json::array({std::string(group(m, 1)), m.matched(2)});
}

// The KV dtype setting TensorRT-LLM was given, asked or by default, on every start:
// "Validating KV Cache config against kv_cache_dtype="auto"" (validate_and_set_kv_cache_quant,
// tensorrt_llm/_torch/pyexecutor/model_loader.py @004b733e), and 1.1's "PyTorchConfig(...,
// kv_cache_dtype='auto', ...)". The one source of what was asked where no LLM Args line is.
Out kv_dtype_setting(std::string_view line, std::size_t at) {
    INFERLINT_RX(rx, R"rx(kv_cache_dtype=["']([\w.]+)["'])rx");
    return fact(group_text(line, rx, at));
}

constexpr Extractor max_seq_len = int_of<R"(max sequence length=(\d+))">;

constexpr Extractor memory_fraction = float_of<R"(fraction is set ([\d.]+))">;

}  // namespace
}  // namespace trtllm_lines

namespace {

bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// The settings kept from the LLM Args line, in the order they are tried.
constexpr std::array<std::string_view, 11> kTrtArgs{"attn_backend",
                                                    "max_batch_size",
                                                    "max_num_tokens",
                                                    "max_seq_len",
                                                    "free_gpu_memory_fraction",
                                                    "tokens_per_block",
                                                    "capacity_scheduler_policy",
                                                    "enable_chunked_prefill",
                                                    "speculative_config",
                                                    "kv_cache_dtype",
                                                    "disable_overlap_scheduler"};

}  // namespace

const std::vector<Field>& trtllm_fields() {
    using namespace trtllm_lines;
    static const std::vector<Field> fields{
        {"engine_version", "TensorRT LLM version:", nullptr, {version}},
        {"engine_version", "TensorRT-LLM version:", nullptr, {version_hyphen}},
        {"page_size", "Number of tokens per block:", nullptr, {tokens_per_block}},
        {"trt_kv_pool", "for max tokens in paged KV cache", nullptr, {kv_pool}},
        {"page_size", "tokens per block=", nullptr, {page_size}},
        {"trt_limits", "max_num_requests=", nullptr, {limits}},
        {"model_load_gib", "after loading weights (inside torch)", nullptr, {load_gib}},
        {"trt_llm_args", "LLM Args:", nullptr, {llm_args}},
        // Beyond the Python tool (T17).
        {"trt_kv_quantization", "KV cache quantization set to", nullptr, {kv_quantization}, Reference::beyond},
        {"trt_max_seq_len", "max sequence length=", nullptr, {max_seq_len}, Reference::beyond},
        {"trt_memory_fraction", "fraction is set ", nullptr, {memory_fraction}, Reference::beyond},
        {"trt_no_draft", "has_speculative_draft_tokens=", nullptr, {no_draft}, Reference::beyond},
        // Read where the Python tool read nothing (1.1 logs): a line that does not match is no
        // unparsed fact, since 1.3 prints these lines beside the ones it reads.
        {"trt_attn_backend", "PyTorchConfig(", nullptr, {pytorch_attn_backend}, Reference::beyond},
        {"trt_kv_dtype_setting", "PyTorchConfig(", nullptr, {kv_dtype_setting}, Reference::beyond},
        {"trt_kv_dtype_setting", "Validating KV Cache config against", nullptr, {kv_dtype_setting}, Reference::beyond},
        {"trt_weights_gib", "GB for model weights", nullptr, {weights_gb}, Reference::beyond},
    };
    return fields;
}

// name=value, name=<Enum.VALUE: 1> or name='value' for each setting kept; nested configs
// repeat names, and the first one (the top level) wins.
Json trtllm_settings(std::string_view line) {
    Json found = Json::object();
    found["llm_args"] = std::string(line);
    if (line.substr(0, 7) == "model='") {
        auto end = line.find('\'', 7);
        if (end != std::string_view::npos && end > 7) found["model"] = std::string(line.substr(7, end - 7));
    }
    std::size_t p = 0;
    while (p < line.size()) {
        bool boundary = is_word(line[p]) && (p == 0 || !is_word(line[p - 1]));
        std::size_t matched_end = 0;
        if (boundary) {
            for (auto name : kTrtArgs) {
                if (line.compare(p, name.size(), name) != 0 || p + name.size() >= line.size() ||
                    line[p + name.size()] != '=')
                    continue;
                std::size_t q = p + name.size() + 1;
                auto value_at = [&](std::size_t v) {
                    std::size_t e = v;
                    while (e < line.size() && (is_word(line[e]) || line[e] == '.')) ++e;
                    return e;
                };
                std::size_t v = q;
                if (v < line.size() && line[v] == '<') {  // <Enum.VALUE: n>
                    std::size_t w = v + 1;
                    while (w < line.size() && is_word(line[w])) ++w;
                    if (w > v + 1 && w < line.size() && line[w] == '.') v = w + 1;
                }
                if (v < line.size() && line[v] == '\'') ++v;
                std::size_t e = value_at(v);
                if (e == v) continue;  // no value: this name does not match here
                if (!found.contains(std::string(name))) found[std::string(name)] = std::string(line.substr(v, e - v));
                matched_end = e;
                break;
            }
        }
        p = matched_end ? matched_end : p + 1;
    }
    return found;
}

// "POST /v1/completions HTTP/1.1" 200
int count_served(std::string_view line) {
    int n = 0;
    std::size_t p = 0;
    while ((p = line.find("\"POST /", p)) != std::string_view::npos) {
        std::size_t q = p + 7;
        std::size_t path_end = q;
        while (path_end < line.size() && !std::isspace(static_cast<unsigned char>(line[path_end]))) ++path_end;
        bool ok = path_end > q && line.compare(path_end, 6, " HTTP/") == 0;
        std::size_t e = path_end + 6;
        if (ok) {
            std::size_t v = e;
            while (v < line.size() && (std::isdigit(static_cast<unsigned char>(line[v])) || line[v] == '.')) ++v;
            ok = v > e && line.compare(v, 5, "\" 200") == 0 && (v + 5 >= line.size() || !is_word(line[v + 5]));
            e = v + 5;
        }
        if (ok) {
            ++n;
            p = e;
        } else {
            ++p;
        }
    }
    return n;
}

// "MaxUtilizationScheduler: request ID 72 -> pause"
int count_pauses(std::string_view line) {
    int n = 0;
    std::size_t p = 0;
    while ((p = line.find("request ID ", p)) != std::string_view::npos) {
        std::size_t q = p + 11, d = q;
        while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
        if (d > q && line.compare(d, 9, " -> pause") == 0 && (d + 9 >= line.size() || !is_word(line[d + 9]))) {
            ++n;
            p = d + 9;
        } else {
            ++p;
        }
    }
    return n;
}

}  // namespace inferlint::parse::detail
