// AIPerf's profile_export_aiperf.json (records{} and flat layouts), through its reader and the dispatcher.
#include "fuzz_load.hpp"

namespace inferlint::fuzz {

inline int one_load_aiperf(const std::uint8_t* data, std::size_t size) {
    one_load(data, size, loadread::is_aiperf, loadread::read_aiperf);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_load_aiperf(data, size);
}
#endif
