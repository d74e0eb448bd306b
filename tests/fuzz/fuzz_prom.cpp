// Prometheus exposition text, as /metrics answers and snapshot files hold it.
#include "fuzz_common.hpp"
#include "inferlint/parse/prom.hpp"

namespace inferlint::fuzz {

inline int one_prom(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    prom::Metrics m;
    prom::ParseError err;
    if (prom::parse(text, m, err)) {
        for (const auto& name : m.names()) {
            (void)m.total(name);
            (void)m.info(name);
            for (const prom::Sample* s : m.select(name)) (void)s->label("le");
        }
    }
    expect_clean([&] { (void)prom::parse_or_throw(text, "fuzz.prom"); });
    (void)prom::parse_value(text);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_prom(data, size);
}
#endif
