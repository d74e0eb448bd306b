// A long recording reduced, in one pass, to what its charts draw: a fixed number of
// stretches of consecutive readings, each keeping its first, last, lowest and highest
// readings of every charted line, and the sums that need every reading (time at each
// running level, preemption counts, busy time). Memory stays the same whatever the length.
#pragma once

#include "inferlint/parse/series.hpp"

#include <cstddef>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace inferlint {

// Seconds from the first reading on both clocks: the monotonic one is used when every
// reading has it (as the charts of a whole recording do), else the wall clock.
struct DigestTimes {
    double mono = 0;
    double wall = 0;
};

struct DigestPoint {
    long long index = 0;
    SeriesSample sample;
    DigestTimes x;
    // Output tokens per second over the 1 s before this reading, on each clock.
    std::optional<double> tput_mono, tput_wall;
};

// Rises of the preemptions counter.
struct DigestPreemptions {
    long long total = 0;  // preempted requests
    long long rises = 0;  // readings where the counter rose
    DigestTimes first, last;
};

// What the busy stretches add up to (readings with requests running), on each clock.
struct DigestBusy {
    double span_s = 0, weighted = 0;
};

class SeriesDigest {
public:
    // columns: the stretches kept at the end (the charts' pixel columns); raw_events: how
    // many preemption rises are kept one by one before they are counted per stretch.
    explicit SeriesDigest(std::size_t columns, std::size_t raw_events);
    void add(const SeriesSample& s);

    long long samples() const { return samples_; }
    bool all_mono() const { return all_mono_; }
    // The kept readings in file order (each once).
    std::vector<DigestPoint> points() const;
    // Preemption rises one by one (x, count) while few; nullopt when there were more than
    // raw_events, and then per stretch.
    const std::optional<std::vector<std::pair<DigestTimes, long long>>>& preemptions() const { return raw_events_; }
    std::vector<DigestPreemptions> preemptions_per_stretch() const;
    // Seconds spent at each running level (a reading to the next), on each clock.
    const std::map<long long, DigestTimes>& level_s() const { return level_s_; }
    // Busy time (dt > 0 only) and generated tokens over it, on each clock.
    DigestBusy busy_mono, busy_wall;
    double busy_tokens_mono = 0, busy_tokens_wall = 0;
    bool busy_counted_mono = false, busy_counted_wall = false;

private:
    struct Stretch;
    void merge_pairs();
    void rate(const SeriesSample& s, DigestPoint& p);
    void pairs(const SeriesSample& prev, const DigestTimes& prev_x, const SeriesSample& cur, const DigestTimes& x);

    std::size_t columns_, raw_limit_;
    long long width_ = 1;  // readings per stretch
    std::vector<Stretch> stretches_;
    long long samples_ = 0;
    bool all_mono_ = true;
    long long mono0_ = 0;
    double wall0_ = 0;
    std::optional<SeriesSample> prev_;
    DigestTimes prev_x_;
    std::optional<double> prev_preemptions_;
    std::deque<std::pair<double, std::optional<double>>> window_mono_, window_wall_;
    std::optional<std::vector<std::pair<DigestTimes, long long>>> raw_events_{std::in_place};
    std::map<long long, DigestTimes> level_s_;
};

// The report's charts: pixel columns, and the longest recording drawn reading by reading
// (its page as always; a longer one is read into a digest).
inline constexpr std::size_t kChartDigestColumns = 290;
inline constexpr std::size_t kChartExactLimit = 10000;

// What the report reads from a recording, in one pass: the checks' summary, and for the
// charts the whole recording when it has at most exact_limit readings (drawn as always),
// else its digest (Series::digest set; samples then hold the kept readings only).
struct ChartSeries {
    Series series;
    SeriesSummary summary;
};
ChartSeries read_series_for_charts(const std::filesystem::path& path, std::size_t exact_limit, std::size_t columns);

}  // namespace inferlint
