// A boot log read as sglang's (the engine named, as --engine sglang does), and as
// whichever engine the text names.
#include "fuzz_bootlog.hpp"

namespace inferlint::fuzz {

inline int one_bootlog_sglang(const std::uint8_t* data, std::size_t size) { return one_bootlog(sglang(), data, size); }

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_bootlog_sglang(data, size);
}
#endif
