// One line of a recording (inferlint.series/1). A line of the wrong shape is rejected
// with std::invalid_argument, which the file reader turns into its one-line error.
#include "fuzz_common.hpp"
#include "inferlint/parse/series.hpp"

#include <stdexcept>

namespace inferlint::fuzz {

inline int one_series_line(const std::uint8_t* data, std::size_t size) {
    try {
        (void)parse_sample_line(bytes(data, size));
    } catch (const std::invalid_argument&) {
    }
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_series_line(data, size);
}
#endif
