// A whole recording, header and samples, as `series` and `report` read it.
#include "fuzz_common.hpp"
#include "inferlint/parse/series.hpp"

namespace inferlint::fuzz {

inline int one_series_file(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    expect_clean([&] {
        std::size_t n = 0;
        (void)scan_series_text(text, "fuzz.series.jsonl", [&](const SeriesSample&) { ++n; });
    });
    expect_clean([&] { (void)series_from_text(text, "fuzz.series.jsonl"); });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_series_file(data, size);
}
#endif
