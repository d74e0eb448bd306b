// The time stamps of the engines' log lines.
#include "fuzz_common.hpp"
#include "inferlint/parse/log_stamps.hpp"

namespace inferlint::fuzz {

inline int one_log_stamps(const std::uint8_t* data, std::size_t size) {
    (void)parse::stamp_seconds(bytes(data, size));
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_log_stamps(data, size);
}
#endif
