// MODEL as a local folder: its config.json, read as vLLM (through transformers) reads it.
// What the simulator takes from it: the architecture, the quantization method, and
// whether its quantization_config asks for an 8-bit KV cache (compressed-tensors'
// kv_cache_scheme {"num_bits": 8, "type": "float"}, or ModelOpt's kv_cache_quant_algo
// "FP8"), which vLLM honours without any flag.
#include "serve.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sim {
namespace {

bool scheme_is_fp8(const nlohmann::json& q) {
    if (auto s = q.find("kv_cache_scheme"); s != q.end() && s->is_object()) {
        auto bits = s->find("num_bits");
        std::string type = s->value("type", std::string("float"));
        return bits != s->end() && bits->is_number_integer() && bits->get<int>() == 8 && type == "float";
    }
    if (auto algo = q.find("kv_cache_quant_algo"); algo != q.end() && algo->is_string())
        return algo->get<std::string>() == "FP8" || algo->get<std::string>() == "fp8";
    return false;
}

}  // namespace

void read_model_folder(ServeConfig& cfg) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(cfg.model, ec)) return;
    cfg.model_is_folder = true;
    const fs::path file = fs::path(cfg.model) / "config.json";
    std::ifstream in(file);
    if (!in) {
        cfg.model_error = fmt::format(
            "OSError: {} does not appear to have a file named config.json. Checkout "
            "'https://huggingface.co/{}/tree/None' for available files.",
            cfg.model, cfg.model);
        return;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (!doc.is_object()) {
        cfg.model_error =
            fmt::format("OSError: It looks like the config file at '{}' is not a valid JSON file.", file.string());
        return;
    }
    if (auto arch = doc.find("architectures");
        arch != doc.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string())
        cfg.architecture = (*arch)[0].get<std::string>();
    auto q = doc.find("quantization_config");
    if (q == doc.end() || !q->is_object()) return;
    cfg.quantization = q->value("quant_method", std::string("None"));
    cfg.checkpoint_kv_fp8 = scheme_is_fp8(*q);
}

}  // namespace sim
