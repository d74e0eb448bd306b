// A whole recording, header and samples, as `series` and `report` read it. It must read
// the same in blocks of any size, with or without the document stream over a block, and
// read in one pass or by position on two threads (parse/series_read.hpp): a difference is
// a crash.
#include "fuzz_common.hpp"
#include "inferlint/parse/series.hpp"
#include "parse/json_walk.hpp"
#include "parse/series_read.hpp"

#include <bit>
#include <cstdlib>
#include <string>

namespace inferlint::fuzz {

// Every sample's fields as bits, then the counts, or the error.
inline std::string series_reading(std::string_view text, const series_read::Blocks& blocks) {
    std::string out;
    auto put = [&out](const std::optional<double>& v) {
        out += v ? std::to_string(std::bit_cast<std::uint64_t>(*v)) : "-";
        out += ' ';
    };
    try {
        SeriesScan scan = series_read::scan_text(
            text, "fuzz.series.jsonl",
            [&](const SeriesSample& s) {
                for (const auto* v : {&s.running, &s.waiting, &s.kv_usage, &s.preemptions, &s.generation_tokens,
                                      &s.prompt_tokens, &s.paused})
                    put(*v);
                put(s.t_wall);
                out += s.t_mono_ns ? std::to_string(*s.t_mono_ns) : "-";
                out += '\n';
            },
            blocks);
        out += std::to_string(scan.samples) + " " + std::to_string(scan.skipped_lines) + " " +
               std::to_string(scan.first_skipped_lineno) + " " + json_walk::text(scan.header) + " " +
               scan.engine_key.value_or("-");
    } catch (const InputError& e) {
        out += e.what();
    }
    return out;
}

inline int one_series_file(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    expect_clean([&] {
        std::size_t n = 0;
        (void)scan_series_text(text, "fuzz.series.jsonl", [&](const SeriesSample&) { ++n; });
    });
    expect_clean([&] { (void)series_from_text(text, "fuzz.series.jsonl"); });
    // Inputs are mostly under the 64 KiB probe, read whole by the first read: a small probe
    // as well (the same for all four, since it decides what is binary) lets small blocks
    // cut their lines.
    const std::size_t small = 8 + (size > 0 ? data[size - 1] : 0) % 248;
    const std::size_t probe = size > 1 && data[size - 2] % 2 == 0 ? 512 : series_read::kProbeBytes;
    using series_read::Lines;
    const std::string whole = series_reading(text, {.probe_bytes = probe});
    if (series_reading(text, {.block_bytes = small, .probe_bytes = probe}) != whole ||
        series_reading(text, {.block_bytes = small, .probe_bytes = probe, .lines = Lines::alone}) != whole ||
        series_reading(text, {.probe_bytes = probe, .lines = Lines::alone}) != whole ||
        series_reading(text, {.block_bytes = small, .probe_bytes = probe, .threads = 2}) != whole)
        std::abort();
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_series_file(data, size);
}
#endif
