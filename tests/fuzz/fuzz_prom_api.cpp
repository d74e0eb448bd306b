// An answer of Prometheus's HTTP API (/api/v1/query, /api/v1/query_range), as
// `snapshot --prometheus` reads it, and the exposition text made from its series.
#include "fuzz_common.hpp"
#include "inferlint/parse/prom_api.hpp"
#include "inferlint/parse/prom.hpp"

namespace inferlint::fuzz {

inline int one_prom_api(const std::uint8_t* data, std::size_t size) {
    expect_clean([&] {
        auto answer = parse::parse_prom_answer(bytes(data, size), "fuzz");
        const std::string text = parse::exposition_text(answer.series, {"job", "instance"});
        // What an accepted answer gave must read back as exposition text.
        prom::Metrics metrics;
        prom::ParseError error;
        if (!prom::parse(text, metrics, error)) __builtin_trap();
    });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_prom_api(data, size);
}
#endif
