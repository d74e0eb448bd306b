// Reading inferlint.series/1 recordings: the scan itself (blocks, threads, lines) is
// series_scan.cpp; this is what is made of it (a whole recording, a single sample line).
#include "inferlint/parse/series.hpp"

#include "series_line.hpp"
#include "series_read.hpp"

#include "util/text.hpp"

#include <cmath>
#include <stdexcept>

namespace inferlint {

namespace fs = std::filesystem;
using util::text::trim;

const Engine* Series::named_engine() const { return engine_key ? &by_key(*engine_key) : nullptr; }
const Engine& Series::engine() const { return engine_key ? by_key(*engine_key) : vllm(); }

std::optional<double> Series::peak_running() const {
    std::optional<double> peak;
    for (const auto& s : samples)
        if (s.running && !std::isnan(*s.running) && (!peak || *s.running > *peak)) peak = s.running;
    return peak;
}

std::optional<SeriesSample> parse_sample_line(std::string_view line) {
    std::string_view text = trim(line);
    if (text.empty()) return std::nullopt;
    static thread_local series_line::LineReader reader;
    series_line::LineRead got = reader.read(text);
    switch (got.kind) {
        case series_line::LineKind::skip:
            return std::nullopt;
        case series_line::LineKind::sample:
            return got.sample;
        case series_line::LineKind::bad:
            throw std::invalid_argument(got.error);
        case series_line::LineKind::header:
            break;
    }
    // A header read as a sample (as before: its t_wall, if it has one, and its gauges).
    got = reader.read(text, series_line::SchemaKey::ignored);
    if (got.kind == series_line::LineKind::bad) throw std::invalid_argument(got.error);
    return got.sample;
}

SeriesScan scan_series_text(std::string_view text, const std::string& source,
                            const std::function<void(const SeriesSample&)>& on_sample) {
    return series_read::scan_text(text, source, on_sample);
}

SeriesScan scan_series(const fs::path& path, const std::function<void(const SeriesSample&)>& on_sample) {
    return series_read::scan_file(path, on_sample);
}

namespace {

Series series_of(SeriesScan&& scan, std::vector<SeriesSample>&& samples, const std::string& source) {
    Series out;
    out.header = std::move(scan.header);
    out.engine_key = std::move(scan.engine_key);
    out.samples = std::move(samples);
    out.skipped_lines = scan.skipped_lines;
    out.source = source;
    return out;
}

}  // namespace

Series read_series(const fs::path& path) {
    std::vector<SeriesSample> samples;
    auto scan = scan_series(path, [&](const SeriesSample& s) { samples.push_back(s); });
    return series_of(std::move(scan), std::move(samples), path.string());
}

Series series_from_text(std::string_view text, const std::string& source) {
    std::vector<SeriesSample> samples;
    auto scan = scan_series_text(text, source, [&](const SeriesSample& s) { samples.push_back(s); });
    return series_of(std::move(scan), std::move(samples), source);
}

}  // namespace inferlint
