// genai-perf's profile_export_genai_perf.json, through its reader and the dispatcher.
#include "fuzz_load.hpp"

namespace inferlint::fuzz {

inline int one_load_genai_perf(const std::uint8_t* data, std::size_t size) {
    one_load(data, size, loadread::is_genai_perf, loadread::read_genai_perf);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_load_genai_perf(data, size);
}
#endif
