// A model's config.json, as T17 reads it for the cause of an FP8 cache.
#include "fuzz_common.hpp"
#include "inferlint/parse/model_config.hpp"

namespace inferlint::fuzz {

inline int one_model_config(const std::uint8_t* data, std::size_t size) {
    auto c = parse::parse_model_config(bytes(data, size), "config.json");
    (void)c.kv_cause();
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_model_config(data, size);
}
#endif
