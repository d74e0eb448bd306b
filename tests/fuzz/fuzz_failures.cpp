// The failure classifier over a log's text (T12), and where a shutdown begins.
#include "fuzz_common.hpp"
#include "inferlint/parse/failures.hpp"

namespace inferlint::fuzz {

inline int one_failures(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    (void)parse::classify_failure(text);
    (void)parse::shutdown_lineno(text);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_failures(data, size);
}
#endif
