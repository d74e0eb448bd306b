// nvidia-smi's CSV answers: the card list and the per-card memory used.
#include "fuzz_common.hpp"
#include "inferlint/parse/nvidia_smi.hpp"

namespace inferlint::fuzz {

inline int one_nvidia_smi(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    expect_clean([&] {
        for (const auto& g : nvidia_smi::parse_gpus(text)) (void)nvidia_smi::family(g.compute_cap);
    });
    expect_clean([&] { (void)nvidia_smi::parse_gpus(text, nvidia_smi::WithCap::no); });
    expect_clean([&] { (void)nvidia_smi::parse_used_mib(text); });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_nvidia_smi(data, size);
}
#endif
