// A snapshot file (inferlint.snapshot/1 JSON, or bare Prometheus text), and what the
// loaders ask of it: its engine and its metrics.
#include "fuzz_common.hpp"
#include "inferlint/parse/metrics_pool.hpp"
#include "inferlint/parse/snapshot.hpp"

namespace inferlint::fuzz {

inline int one_snapshot(const std::uint8_t* data, std::size_t size) {
    const std::string text(bytes(data, size));
    expect_clean([&] {
        Snapshot s = snapshot_from_text(text, "fuzz.snapshot.json");
        (void)s.metrics().size();
        (void)snapshot_engine({&s});
        (void)parse::pool_from_metrics(s);  // the pool when no boot log is given
        (void)s.to_json().dump(1, ' ', false, Json::error_handler_t::replace);  // as save() writes it
    });
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_snapshot(data, size);
}
#endif
