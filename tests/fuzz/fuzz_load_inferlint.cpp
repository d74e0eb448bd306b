// inferlint.load/1, a home-made harness's result, through its reader and the dispatcher.
#include "fuzz_load.hpp"

namespace inferlint::fuzz {

inline int one_load_inferlint(const std::uint8_t* data, std::size_t size) {
    one_load(data, size, loadread::is_inferlint_load, loadread::read_inferlint_load);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_load_inferlint(data, size);
}
#endif
