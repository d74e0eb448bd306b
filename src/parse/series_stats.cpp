// One pass over a recording, keeping what the checks read. Gauges take few distinct
// values (usage moves in whole blocks, running in whole requests), so readings are
// stored once per distinct value, and a million samples fit in kilobytes.
#include "inferlint/parse/series.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace inferlint {

namespace {

// Sort and merge once the unmerged tail is as long as the merged part (amortised
// O(log n) per reading, memory at most twice the distinct values plus a margin).
constexpr std::size_t kCompactMargin = 4096;

bool usable(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0.0; }

void raise_max(std::optional<double>& peak, double v) {
    if (!std::isnan(v) && (!peak || v > *peak)) peak = v;
}

}  // namespace

void SeriesStats::add(const SeriesSample& s) {
    ++samples;
    if (s.running) {
        any_running = true;
        raise_max(peak_running, *s.running);
        if (s.waiting) raise_max(peak_in_flight, *s.running + *s.waiting);
    }
    if (s.kv_usage && *s.kv_usage > 0.0 && *s.kv_usage <= 1.0) kv_levels_.push_back(*s.kv_usage);
    // Busy: requests running and KV in use. The Python tool takes any non-zero pair;
    // a negative or non-finite reading cannot give a ceiling, so it is left out here.
    if (usable(s.running) && usable(s.kv_usage)) {
        ++busy_samples;
        busy_.push_back({*s.kv_usage, *s.running, 1});
        if (!fullest || *s.kv_usage > fullest->kv_usage) fullest = BusyReading{*s.kv_usage, *s.running, 1};
    }
    if (s.paused) {
        ++paused_readings;
        if (*s.paused > 0.0) ++paused_nonzero;
        raise_max(paused_max, *s.paused);
    }
    if (kv_levels_.size() >= 2 * kv_levels_sorted_ + kCompactMargin ||
        busy_.size() >= 2 * busy_sorted_ + kCompactMargin)
        compact();
}

void SeriesStats::compact() const {
    if (kv_levels_.size() != kv_levels_sorted_) {
        std::sort(kv_levels_.begin(), kv_levels_.end());
        kv_levels_.erase(std::unique(kv_levels_.begin(), kv_levels_.end()), kv_levels_.end());
        kv_levels_sorted_ = kv_levels_.size();
    }
    if (busy_.size() != busy_sorted_) {
        auto key = [](const BusyReading& r) { return std::tie(r.kv_usage, r.running); };
        std::sort(busy_.begin(), busy_.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
        std::vector<BusyReading> merged;
        merged.reserve(busy_.size());
        for (const auto& r : busy_) {
            if (!merged.empty() && key(merged.back()) == key(r)) merged.back().count += r.count;
            else merged.push_back(r);
        }
        busy_ = std::move(merged);
        busy_sorted_ = busy_.size();
    }
}

const std::vector<double>& SeriesStats::kv_levels() const {
    compact();
    return kv_levels_;
}

const std::vector<BusyReading>& SeriesStats::busy() const {
    compact();
    return busy_;
}

const Engine* SeriesSummary::named_engine() const { return engine_key ? &by_key(*engine_key) : nullptr; }
const Engine& SeriesSummary::engine() const { return engine_key ? by_key(*engine_key) : vllm(); }

SeriesSummary summarize(const Series& series) {
    SeriesSummary out;
    out.header = series.header;
    out.engine_key = series.engine_key;
    out.skipped_lines = series.skipped_lines;
    out.source = series.source;
    for (const auto& s : series.samples) out.stats.add(s);
    return out;
}

SeriesSummary summarize_series_file(const std::filesystem::path& path) {
    SeriesSummary out;
    auto scan = scan_series(path, [&](const SeriesSample& s) { out.stats.add(s); });
    out.header = std::move(scan.header);
    out.engine_key = std::move(scan.engine_key);
    out.skipped_lines = scan.skipped_lines;
    out.first_skipped_lineno = scan.first_skipped_lineno;
    out.source = path.string();
    return out;
}

}  // namespace inferlint
