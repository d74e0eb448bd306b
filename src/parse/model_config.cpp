#include "inferlint/parse/model_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace inferlint::parse {

namespace {

std::string lower_text(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// compressed-tensors: {"num_bits": 8, "type": "float", ...}.
std::optional<std::string> scheme_dtype(const Json& scheme) {
    if (!scheme.is_object()) return std::nullopt;
    auto bits = scheme.find("num_bits");
    if (bits == scheme.end() || !bits->is_number_integer()) return std::nullopt;
    std::string type = "float";
    if (auto t = scheme.find("type"); t != scheme.end() && t->is_string()) type = lower_text(t->get<std::string>());
    int n = bits->get<int>();
    if (type == "float") return fmt::format("fp{}", n);
    if (type == "int") return fmt::format("int{}", n);
    return std::nullopt;
}

// ModelOpt: "kv_cache_quant_algo": "FP8" (or "NVFP4", "INT8").
std::optional<std::string> algo_dtype(const Json& algo) {
    if (!algo.is_string()) return std::nullopt;
    std::string a = lower_text(algo.get<std::string>());
    if (a.empty() || a == "none") return std::nullopt;
    if (a == "nvfp4") return std::string("fp4");
    return a;
}

}  // namespace

std::optional<std::string> ModelConfig::kv_cause() const {
    if (!kv_cache_scheme) return std::nullopt;
    std::string scheme = kv_cache_scheme->is_string() ? kv_cache_scheme->get<std::string>() : kv_cache_scheme->dump();
    return fmt::format("{}'s quantization_config ({}) has kv_cache_scheme {}", path,
                       quant_method.value_or("no quant_method"), scheme);
}

ModelConfig parse_model_config(std::string_view text, std::string path) {
    ModelConfig out;
    out.path = std::move(path);
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
        out.problem = fmt::format("not JSON (at byte {})", e.byte);
        return out;
    } catch (const Json::exception&) {  // a number out of double's range: 1e999
        out.problem = "not JSON that can be read (a number out of range)";
        return out;
    }
    if (!doc.is_object()) {
        out.problem = "not a JSON object";
        return out;
    }
    auto q = doc.find("quantization_config");
    if (q == doc.end() || !q->is_object()) return out;
    out.has_quantization = true;
    if (auto m = q->find("quant_method"); m != q->end() && m->is_string()) out.quant_method = m->get<std::string>();
    if (auto s = q->find("kv_cache_scheme"); s != q->end() && !s->is_null()) {
        out.kv_cache_scheme = *s;
        out.kv_cache_dtype = scheme_dtype(*s);
    } else if (auto a = q->find("kv_cache_quant_algo"); a != q->end() && algo_dtype(*a)) {
        out.kv_cache_scheme = *a;
        out.kv_cache_dtype = algo_dtype(*a);
    }
    return out;
}

}  // namespace inferlint::parse
