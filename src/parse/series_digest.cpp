// One pass over a long recording, keeping a fixed number of stretches of readings (see
// series_digest.hpp). Stretches start one reading wide; when there are twice as many as
// the charts' columns, neighbours merge and each covers twice as many readings.
#include "inferlint/parse/series_digest.hpp"

#include "json_walk.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace inferlint {

namespace {

constexpr std::size_t kDigestLines = 4;                         // running, waiting, kv_usage, throughput
constexpr std::size_t kDigestWindowCap = std::size_t{1} << 16;  // readings in 1 s, at most

}  // namespace

// Named, not anonymous: a member of SeriesDigest::Stretch holds one.
namespace series_digest_detail {

struct DigestExtreme {
    double v = 0;
    DigestPoint p;
};

void digest_keep(std::optional<DigestExtreme>& e, double v, const DigestPoint& p, bool lowest) {
    if (!e || (lowest ? v < e->v : v > e->v)) e = DigestExtreme{v, p};
}

}  // namespace series_digest_detail

using series_digest_detail::digest_keep;
using series_digest_detail::DigestExtreme;

namespace {

std::optional<double> digest_rate(std::deque<std::pair<double, std::optional<double>>>& w, double x,
                                  std::optional<double> g) {
    w.emplace_back(x, g);
    while (w.size() > 1 && (x - w.front().first > 1.0 || w.size() > kDigestWindowCap)) w.pop_front();
    if (w.size() == 1) return std::nullopt;
    const auto& [xj, gj] = w.front();
    if (!g || !gj || x == xj || *g < *gj) return std::nullopt;
    return (*g - *gj) / (x - xj);
}

}  // namespace

struct SeriesDigest::Stretch {
    long long count = 0;
    DigestPoint first, last;
    std::array<std::optional<DigestExtreme>, kDigestLines> lo, hi;
    DigestPreemptions pre;

    void merge(const Stretch& b) {
        count += b.count;
        last = b.last;
        for (std::size_t l = 0; l < kDigestLines; ++l) {
            if (b.lo[l]) digest_keep(lo[l], b.lo[l]->v, b.lo[l]->p, true);
            if (b.hi[l]) digest_keep(hi[l], b.hi[l]->v, b.hi[l]->p, false);
        }
        if (b.pre.rises > 0) {
            if (pre.rises == 0) pre.first = b.pre.first;
            pre.last = b.pre.last;
            pre.total += b.pre.total;
            pre.rises += b.pre.rises;
        }
    }
};

SeriesDigest::SeriesDigest(std::size_t columns, std::size_t raw_events)
    : columns_(std::max<std::size_t>(columns, 1)), raw_limit_(raw_events) {}

void SeriesDigest::merge_pairs() {
    std::vector<Stretch> merged;
    merged.reserve(stretches_.size() / 2 + 1);
    for (std::size_t i = 0; i < stretches_.size(); i += 2) {
        merged.push_back(stretches_[i]);
        if (i + 1 < stretches_.size()) merged.back().merge(stretches_[i + 1]);
    }
    stretches_ = std::move(merged);
    width_ *= 2;
}

// Tokens per second over the last second, as the chart of a whole recording computes it.
void SeriesDigest::rate(const SeriesSample& s, DigestPoint& p) {
    if (all_mono_) p.tput_mono = digest_rate(window_mono_, p.x.mono, s.generation_tokens);
    p.tput_wall = digest_rate(window_wall_, p.x.wall, s.generation_tokens);
}

// What a reading and the one before it add to the level times and the busy sums.
void SeriesDigest::pairs(const SeriesSample& a, const DigestTimes& ax, const SeriesSample& b, const DigestTimes& bx) {
    if (a.running && *a.running != 0 && std::isfinite(*a.running)) {
        auto& at = level_s_[static_cast<long long>(*a.running)];
        at.mono += bx.mono - ax.mono;
        at.wall += bx.wall - ax.wall;
    }
    if (!a.running || !(*a.running > 0)) return;
    auto add = [&](DigestBusy& busy, double dt, double& tokens, bool& counted) {
        if (!(dt > 0)) return;
        busy.span_s += dt;
        busy.weighted += *a.running * dt;
        if (a.generation_tokens && b.generation_tokens) {
            tokens += std::max(*b.generation_tokens - *a.generation_tokens, 0.0);
            counted = true;
        }
    };
    if (all_mono_) add(busy_mono, double(*b.t_mono_ns - *a.t_mono_ns) / 1e9, busy_tokens_mono, busy_counted_mono);
    add(busy_wall, b.t_wall - a.t_wall, busy_tokens_wall, busy_counted_wall);
}

void SeriesDigest::add(const SeriesSample& s) {
    if (samples_ == 0) {
        all_mono_ = s.t_mono_ns.has_value();
        mono0_ = s.t_mono_ns.value_or(0);
        wall0_ = s.t_wall;
    } else if (!s.t_mono_ns) {
        all_mono_ = false;
    }
    DigestPoint p;
    p.index = samples_++;
    p.sample = s;
    if (all_mono_) p.x.mono = static_cast<double>(*s.t_mono_ns - mono0_) / 1e9;
    p.x.wall = s.t_wall - wall0_;
    rate(s, p);
    if (prev_) pairs(*prev_, prev_x_, s, p.x);
    prev_ = s;
    prev_x_ = p.x;

    if (stretches_.empty() || stretches_.back().count >= width_) {
        stretches_.emplace_back();
        if (stretches_.size() > 2 * columns_) merge_pairs();
    }
    Stretch& st = stretches_.back();
    if (st.count++ == 0) st.first = p;
    st.last = p;
    std::optional<double> tput = all_mono_ ? p.tput_mono : p.tput_wall;
    const std::array<std::optional<double>, kDigestLines> ys{s.running, s.waiting, s.kv_usage, tput};
    for (std::size_t l = 0; l < kDigestLines; ++l) {
        if (!ys[l] || std::isnan(*ys[l])) continue;
        digest_keep(st.lo[l], *ys[l], p, true);
        digest_keep(st.hi[l], *ys[l], p, false);
    }
    if (s.preemptions && prev_preemptions_ && *s.preemptions > *prev_preemptions_) {
        auto n = static_cast<long long>(*s.preemptions - *prev_preemptions_);
        if (st.pre.rises++ == 0) st.pre.first = p.x;
        st.pre.last = p.x;
        st.pre.total += n;
        if (raw_events_) {
            raw_events_->emplace_back(p.x, n);
            if (raw_events_->size() > raw_limit_) raw_events_.reset();
        }
    }
    if (s.preemptions) prev_preemptions_ = s.preemptions;
}

std::vector<DigestPoint> SeriesDigest::points() const {
    SeriesDigest copy = *this;
    while (copy.stretches_.size() > columns_) copy.merge_pairs();
    std::vector<DigestPoint> out;
    out.reserve(copy.stretches_.size() * (2 + 2 * kDigestLines));
    for (const auto& st : copy.stretches_) {
        out.push_back(st.first);
        out.push_back(st.last);
        for (std::size_t l = 0; l < kDigestLines; ++l) {
            if (st.lo[l]) out.push_back(st.lo[l]->p);
            if (st.hi[l]) out.push_back(st.hi[l]->p);
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    out.erase(std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index == b.index; }),
              out.end());
    return out;
}

std::vector<DigestPreemptions> SeriesDigest::preemptions_per_stretch() const {
    SeriesDigest copy = *this;
    while (copy.stretches_.size() > columns_) copy.merge_pairs();
    std::vector<DigestPreemptions> out;
    for (const auto& st : copy.stretches_)
        if (st.pre.rises > 0) out.push_back(st.pre);
    return out;
}

ChartSeries read_series_for_charts(const std::filesystem::path& path, std::size_t exact_limit, std::size_t columns) {
    ChartSeries out;
    std::vector<SeriesSample> exact;
    std::shared_ptr<SeriesDigest> digest;
    auto scan = scan_series(path, [&](const SeriesSample& s) {
        out.summary.stats.add(s);
        if (digest) return digest->add(s);
        exact.push_back(s);
        if (exact.size() <= exact_limit) return;
        digest = std::make_shared<SeriesDigest>(columns, 2 * columns);
        for (const auto& e : exact) digest->add(e);
        exact = {};
    });
    Series& series = out.series;
    series.header = json_walk::copy(scan.header);  // as deep as a line may nest
    series.engine_key = scan.engine_key;
    series.skipped_lines = scan.skipped_lines;
    series.source = path.string();
    if (digest) {
        for (auto& p : digest->points()) series.samples.push_back(p.sample);
        series.digest = std::move(digest);
    } else {
        series.samples = std::move(exact);
    }
    out.summary.take(std::move(scan), path.string());
    return out;
}

}  // namespace inferlint
