// A load command's output (load.log): the untimed test requests T15 allows for.
#include "fuzz_common.hpp"
#include "inferlint/parse/loadlog.hpp"

namespace inferlint::fuzz {

inline int one_loadlog(const std::uint8_t* data, std::size_t size) {
    (void)untimed_requests(bytes(data, size));
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_loadlog(data, size);
}
#endif
