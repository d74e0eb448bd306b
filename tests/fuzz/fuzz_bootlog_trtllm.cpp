// A boot log read as trtllm's (the engine named, as --engine trtllm does), and as
// whichever engine the text names.
#include "fuzz_bootlog.hpp"

namespace inferlint::fuzz {

inline int one_bootlog_trtllm(const std::uint8_t* data, std::size_t size) { return one_bootlog(trtllm(), data, size); }

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_bootlog_trtllm(data, size);
}
#endif
