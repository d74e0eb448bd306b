// A model's config.json -> what its quantization block says about the KV cache (T17):
// a checkpoint whose `quantization_config` carries an 8-bit `kv_cache_scheme` (or
// ModelOpt's `kv_cache_quant_algo`) makes vLLM store the KV cache in FP8 without any flag.
#pragma once

#include "inferlint/core/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace inferlint::parse {

struct ModelConfig {
    std::string path;  // the config.json read
    // Why nothing could be read from it ("not JSON (line 3)"); the rest is then empty.
    std::optional<std::string> problem;
    bool has_quantization = false;            // a `quantization_config` object is there
    std::optional<std::string> quant_method;  // "compressed-tensors", "modelopt", ...
    std::optional<Json> kv_cache_scheme;      // the block as written (or kv_cache_quant_algo's text)
    // The KV dtype the block asks for: "fp8" for 8-bit floats, "int8", "fp4", or nullopt
    // when there is no block (or it names none this parser knows).
    std::optional<std::string> kv_cache_dtype;

    // "compressed-tensors kv_cache_scheme {num_bits: 8, type: float} in PATH": the cause
    // of an FP8 cache, for a message; nullopt without a block.
    std::optional<std::string> kv_cause() const;
};

// The config.json text read from `path`. Never throws: text that is not a JSON object is
// a ModelConfig with `problem` set.
ModelConfig parse_model_config(std::string_view text, std::string path);

}  // namespace inferlint::parse
