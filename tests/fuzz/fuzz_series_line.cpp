// One line of a recording (inferlint.series/1). A line of the wrong shape is rejected
// with std::invalid_argument, which the file reader turns into its one-line error. The
// line read from a document stream over a block (what the file reader does) must read as
// it does alone: a difference is a crash.
#include "fuzz_common.hpp"
#include "inferlint/parse/series.hpp"
#include "parse/series_line.hpp"
#include "util/text.hpp"

#include <bit>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace inferlint::fuzz {

inline std::string line_reading(const series_line::LineRead& r) {
    std::string out = std::to_string(static_cast<int>(r.kind)) + " " + r.error;
    if (r.kind != series_line::LineKind::sample) return out;
    const SeriesSample& s = r.sample;
    for (const auto* v :
         {&s.running, &s.waiting, &s.kv_usage, &s.preemptions, &s.generation_tokens, &s.prompt_tokens, &s.paused})
        out += " " + (*v ? std::to_string(std::bit_cast<std::uint64_t>(**v)) : std::string("-"));
    out += " " + std::to_string(std::bit_cast<std::uint64_t>(s.t_wall));
    out += " " + (s.t_mono_ns ? std::to_string(*s.t_mono_ns) : std::string("-"));
    return out;
}

inline int one_series_line(const std::uint8_t* data, std::size_t size) {
    try {
        (void)parse_sample_line(bytes(data, size));
    } catch (const std::invalid_argument&) {}
    // The line twice in a block (the stream leaves a block's last line to be read alone).
    std::string_view line = bytes(data, size);
    line = line.substr(0, line.find('\n'));
    std::string_view text = util::text::trim(line);
    if (text.empty()) return 0;
    std::string block = std::string(line) + "\n" + std::string(line) + "\n";
    const std::size_t lines = block.size();
    block.append(series_line::kPadding, '\0');
    series_line::LineReader streamed;
    streamed.begin_block(std::string_view(block.data(), lines));
    const char* first = block.data() + (text.data() - line.data());
    const series_line::LineRead& got = streamed.read_in_place({first, text.size()}, block.data() + line.size());
    series_line::LineReader alone;
    if (line_reading(got) != line_reading(alone.read(text))) std::abort();
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_series_line(data, size);
}
#endif
