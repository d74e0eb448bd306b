// LLMPerf's *_summary.json, through its reader and the dispatcher.
#include "fuzz_load.hpp"

namespace inferlint::fuzz {

inline int one_load_llmperf(const std::uint8_t* data, std::size_t size) {
    one_load(data, size, loadread::is_llmperf_summary, loadread::read_llmperf_summary);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_load_llmperf(data, size);
}
#endif
