// A boot log read as vllm's (the engine named, as --engine vllm does), and as
// whichever engine the text names.
#include "fuzz_bootlog.hpp"

namespace inferlint::fuzz {

inline int one_bootlog_vllm(const std::uint8_t* data, std::size_t size) { return one_bootlog(vllm(), data, size); }

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_bootlog_vllm(data, size);
}
#endif
