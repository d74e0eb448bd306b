// A server URL as --url takes it.
#include "fuzz_common.hpp"
#include "inferlint/util/url.hpp"

namespace inferlint::fuzz {

inline int one_url(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    expect_clean([&] {
        auto u = util::parse_base_url(text);
        (void)u.at("/metrics");
        (void)u.str();
    });
    expect_clean([&] { (void)util::normalise_base_url(text); });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_url(data, size);
}
#endif
