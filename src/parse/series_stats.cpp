// One pass over a recording, keeping what the checks read. Gauges take few distinct
// values (usage moves in whole blocks, running in whole requests), so readings are
// stored once per distinct value, and a million samples fit in kilobytes.
#include "inferlint/parse/series.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

namespace inferlint {

namespace {

constexpr std::size_t kFirstSlots = 64;

bool usable(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0.0; }

void raise_max(std::optional<double>& peak, double v) {
    if (!std::isnan(v) && (!peak || v > *peak)) peak = v;
}

std::size_t slot_of(std::uint64_t kv_bits, std::uint64_t running_bits, std::size_t mask) {
    std::uint64_t h = kv_bits * 0x9E3779B97F4A7C15ULL ^ (running_bits + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return static_cast<std::size_t>(h ^ (h >> 29) ^ (h >> 47)) & mask;
}

}  // namespace

bool SeriesStats::Table::bump(std::uint64_t kv_bits, std::uint64_t running_bits) {
    if (slots.empty()) slots.resize(kFirstSlots);
    std::size_t mask = slots.size() - 1;
    for (std::size_t i = slot_of(kv_bits, running_bits, mask);; i = (i + 1) & mask) {
        Slot& slot = slots[i];
        if (slot.count == 0) break;
        if (slot.kv_bits == kv_bits && slot.running_bits == running_bits) {
            ++slot.count;
            return false;
        }
    }
    // A new reading; the table stays at most half full.
    if (2 * (used + 1) > slots.size()) {
        std::vector<Slot> old(2 * slots.size());
        old.swap(slots);
        mask = slots.size() - 1;
        for (const Slot& s : old) {
            if (s.count == 0) continue;
            std::size_t j = slot_of(s.kv_bits, s.running_bits, mask);
            while (slots[j].count != 0) j = (j + 1) & mask;
            slots[j] = s;
        }
    }
    std::size_t i = slot_of(kv_bits, running_bits, mask);
    while (slots[i].count != 0) i = (i + 1) & mask;
    slots[i] = Slot{kv_bits, running_bits, 1};
    ++used;
    return true;
}

void SeriesStats::add(const SeriesSample& s) {
    ++samples;
    if (s.running) {
        any_running = true;
        raise_max(peak_running, *s.running);
        if (s.waiting) raise_max(peak_in_flight, *s.running + *s.waiting);
    }
    if (s.kv_usage && *s.kv_usage > 0.0 && *s.kv_usage <= 1.0) {
        if (kv_table_.bump(std::bit_cast<std::uint64_t>(*s.kv_usage), 0)) kv_levels_stale_ = true;
    }
    // Busy: requests running and KV in use. The Python tool takes any non-zero pair;
    // a negative or non-finite reading cannot give a ceiling, so it is left out here.
    if (usable(s.running) && usable(s.kv_usage)) {
        ++busy_samples;
        busy_table_.bump(std::bit_cast<std::uint64_t>(*s.kv_usage), std::bit_cast<std::uint64_t>(*s.running));
        busy_stale_ = true;
        if (!fullest || *s.kv_usage > fullest->kv_usage) fullest = BusyReading{*s.kv_usage, *s.running, 1};
    }
    if (s.paused) {
        ++paused_readings;
        if (*s.paused > 0.0) ++paused_nonzero;
        raise_max(paused_max, *s.paused);
    }
}

const std::vector<double>& SeriesStats::kv_levels() const {
    if (kv_levels_stale_) {
        kv_levels_.clear();
        for (const Slot& s : kv_table_.slots)
            if (s.count != 0) kv_levels_.push_back(std::bit_cast<double>(s.kv_bits));
        std::sort(kv_levels_.begin(), kv_levels_.end());
        kv_levels_stale_ = false;
    }
    return kv_levels_;
}

const std::vector<BusyReading>& SeriesStats::busy() const {
    if (busy_stale_) {
        busy_.clear();
        for (const Slot& s : busy_table_.slots)
            if (s.count != 0)
                busy_.push_back({std::bit_cast<double>(s.kv_bits), std::bit_cast<double>(s.running_bits), s.count});
        auto key = [](const BusyReading& r) { return std::tie(r.kv_usage, r.running); };
        std::sort(busy_.begin(), busy_.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
        busy_stale_ = false;
    }
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

void SeriesSummary::take(SeriesScan&& scan, std::string from) {
    header = std::move(scan.header);
    engine_key = std::move(scan.engine_key);
    skipped_lines = scan.skipped_lines;
    first_skipped_lineno = scan.first_skipped_lineno;
    source = std::move(from);
}

SeriesSummary summarize_series_file(const std::filesystem::path& path) {
    SeriesSummary out;
    out.take(scan_series(path, [&](const SeriesSample& s) { out.stats.add(s); }), path.string());
    return out;
}

}  // namespace inferlint
