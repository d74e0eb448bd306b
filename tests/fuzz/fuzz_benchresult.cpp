// A load tool's result file: vLLM's `bench serve` JSON, SGLang's bench_serving JSONL
// and the other clients the parser knows, told apart by their content.
#include "fuzz_common.hpp"
#include "inferlint/parse/benchresult.hpp"

namespace inferlint::fuzz {

inline int one_benchresult(const std::uint8_t* data, std::size_t size) {
    expect_clean([&] {
        auto r = parse_bench_result(bytes(data, size), "fuzz-result.json");
        (void)r.has_counts();
    });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_benchresult(data, size);
}
#endif
