// vLLM's result fields with --save-detailed's per-request lists and spec_decode_*, through
// the dispatcher (the vLLM family's reader runs inside parse_bench_result).
#include "fuzz_load.hpp"

namespace inferlint::fuzz {

inline int one_load_vllm(const std::uint8_t* data, std::size_t size) {
    one_load(data, size, loadread::is_vllm_family,
             [](const Json& doc, const loadjson::Fields& f) { return loadread::read_vllm(doc, f, BenchResult{}); });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_load_vllm(data, size);
}
#endif
