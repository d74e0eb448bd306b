#include "inferlint/core/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace inferlint::stats {

std::uint64_t Rng::below(std::uint64_t n) {
    // The largest multiple of n that fits; draws at or above it are thrown back.
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    for (;;) {
        std::uint64_t x = engine_();
        if (x < limit) return x % n;
    }
}

double Rng::unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Rng::normal() {
    double u1 = 0.0;
    while (u1 == 0.0) u1 = unit();
    double u2 = unit();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double mean_of(std::span<const double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    double s = 0.0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}

double sd_of(std::span<const double> v) {
    if (v.size() < 2) return 0.0;
    double m = mean_of(v), ss = 0.0;
    for (double x : v) ss += (x - m) * (x - m);
    return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

namespace {

// Type 7 (linear between order statistics) quantile of a sorted sample.
double sorted_quantile(const std::vector<double>& sorted, double p) {
    const double h = p * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// The ratio's standard error by the delta method (paired: from the pairs' residuals).
double bootstrap_ratio_se(std::span<const double> a, std::span<const double> b, Pairing pairing) {
    const double ma = mean_of(a), mb = mean_of(b), r = mb / ma;
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    if (pairing == Pairing::paired) {
        std::vector<double> res(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) res[i] = b[i] - r * a[i];
        return sd_of(res) / (std::sqrt(na) * std::fabs(ma));
    }
    return std::fabs(r) * std::sqrt(std::pow(sd_of(a) / ma, 2) / na + std::pow(sd_of(b) / mb, 2) / nb);
}

// One resample of each arm into ra and rb (paired: the same run indices for both).
void bootstrap_resample(Rng& rng, std::span<const double> a, std::span<const double> b, Pairing pairing,
                        std::vector<double>& ra, std::vector<double>& rb) {
    ra.resize(a.size());
    rb.resize(b.size());
    if (pairing == Pairing::paired) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            const auto j = static_cast<std::size_t>(rng.below(a.size()));
            ra[i] = a[j];
            rb[i] = b[j];
        }
        return;
    }
    for (auto& x : ra) x = a[rng.below(a.size())];
    for (auto& x : rb) x = b[rng.below(b.size())];
}

// The percentile interval: the resampled differences' own quantiles.
Interval bootstrap_percentile(std::span<const double> a, std::span<const double> b, const DiffOptions& o) {
    Rng rng(o.seed);
    std::vector<double> diffs, ra, rb;
    diffs.reserve(static_cast<std::size_t>(o.resamples));
    for (int r = 0; r < o.resamples; ++r) {
        bootstrap_resample(rng, a, b, o.pairing, ra, rb);
        // A resample of A whose mean is 0 has no ratio; it is left out.
        if (const double ma = mean_of(ra); ma != 0.0) diffs.push_back(mean_of(rb) / ma - 1.0);
    }
    const double d = mean_of(b) / mean_of(a) - 1.0;
    if (diffs.empty()) return {d, d};
    std::sort(diffs.begin(), diffs.end());
    const double tail = (1.0 - o.confidence) / 2.0;
    return {sorted_quantile(diffs, tail), sorted_quantile(diffs, 1.0 - tail)};
}

// The studentized (bootstrap-t) interval: the difference less the resamples' quantiles of
// (difference* - difference) / se*, times the sample's se. Resamples whose se is 0 (every
// index the same) have no t and are left out.
Interval bootstrap_studentized(std::span<const double> a, std::span<const double> b, const DiffOptions& o) {
    const double d = mean_of(b) / mean_of(a) - 1.0, se = bootstrap_ratio_se(a, b, o.pairing);
    if (!(se > 0.0)) return {d, d};
    Rng rng(o.seed);
    std::vector<double> ts, ra, rb;
    ts.reserve(static_cast<std::size_t>(o.resamples));
    for (int r = 0; r < o.resamples; ++r) {
        bootstrap_resample(rng, a, b, o.pairing, ra, rb);
        const double ma = mean_of(ra);
        if (ma == 0.0) continue;
        const double s = bootstrap_ratio_se(ra, rb, o.pairing);
        if (s > 0.0) ts.push_back((mean_of(rb) / ma - 1.0 - d) / s);
    }
    if (ts.empty()) return {d, d};
    std::sort(ts.begin(), ts.end());
    const double tail = (1.0 - o.confidence) / 2.0;
    return {d - sorted_quantile(ts, 1.0 - tail) * se, d - sorted_quantile(ts, tail) * se};
}

// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's
// method; Press et al., "Numerical Recipes", 3rd ed., section 6.4).
double incomplete_beta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double front =
        std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
    if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta(b, a, 1.0 - x);
    constexpr double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 300; ++m) {
        for (int half = 0; half < 2; ++half) {
            const double num = half == 0 ? m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
                                         : -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
            d = 1.0 + num * d;
            if (std::fabs(d) < tiny) d = tiny;
            c = 1.0 + num / c;
            if (std::fabs(c) < tiny) c = tiny;
            d = 1.0 / d;
            f *= c * d;
        }
        if (std::fabs(c * d - 1.0) < 1e-14) break;
    }
    return front * f / a;
}

// Student's t quantile for probability p > 0.5 and `df` degrees of freedom (df may be
// fractional: Welch's), by bisection on the distribution function.
double t_quantile(double p, double df) {
    auto cdf = [df](double t) { return 1.0 - 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t)); };
    double lo = 0.0, hi = 1.0;
    while (cdf(hi) < p && hi < 1e6) hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2.0;
        (cdf(mid) < p ? lo : hi) = mid;
    }
    return (lo + hi) / 2.0;
}

// Below 5 runs an arm: the delta method's standard error with Student's t (paired: n - 1
// degrees of freedom; unpaired: Welch-Satterthwaite's). No bootstrap is right there: 3 pairs
// have 10 distinct resamples, and one made of two near-equal pairs has a standard error near
// 0, whose t is in the hundreds and throws the bootstrap-t's ends far out (a 4x faster arm,
// 3 simulated runs each, was shown as "no difference": [-57%, +75%]).
Interval delta_t(std::span<const double> a, std::span<const double> b, const DiffOptions& o) {
    const double d = mean_of(b) / mean_of(a) - 1.0, se = bootstrap_ratio_se(a, b, o.pairing);
    if (!(se > 0.0)) return {d, d};
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    double df = na - 1.0;
    if (o.pairing == Pairing::unpaired) {
        const double va = std::pow(sd_of(a) / mean_of(a), 2) / na, vb = std::pow(sd_of(b) / mean_of(b), 2) / nb;
        const double den = va * va / (na - 1.0) + vb * vb / (nb - 1.0);
        df = den > 0.0 ? (va + vb) * (va + vb) / den : std::min(na, nb) - 1.0;
    }
    const double t = t_quantile(1.0 - (1.0 - o.confidence) / 2.0, df);
    return {d - t * se, d + t * se};
}

}  // namespace

double student_t_quantile(double p, double df) { return t_quantile(p, df); }

Difference relative_difference(std::span<const double> a, std::span<const double> b, const DiffOptions& o) {
    Difference d;
    auto finite = [](std::span<const double> v) {
        return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
    };
    if (!finite(a) || !finite(b)) {
        d.problem = "a figure is not a number";
        return d;
    }
    if (a.empty() || b.empty()) {
        d.problem = "an arm has no runs with this figure";
        return d;
    }
    if (mean_of(a) == 0.0) {
        d.problem = "A's mean is 0, so there is no relative difference";
        return d;
    }
    d.relative = mean_of(b) / mean_of(a) - 1.0;
    if (o.pairing == Pairing::paired && a.size() != b.size()) {
        d.problem = "paired runs need as many runs in each arm";
    } else if (a.size() < 2 || b.size() < 2) {
        d.problem = "an interval needs at least 2 runs per arm";
    } else {
        const bool few = std::min(a.size(), b.size()) < kFewRuns;
        d.interval = o.kind == IntervalKind::percentile ? bootstrap_percentile(a, b, o)
                     : few                              ? delta_t(a, b, o)
                                                        : bootstrap_studentized(a, b, o);
        // Figures that cannot be negative (every one a run gives) cannot fall by more than
        // all of A; the studentized interval knows nothing of that bound.
        auto non_negative = [](std::span<const double> v) {
            return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0; });
        };
        if (non_negative(a) && non_negative(b)) d.interval->lo = std::max(d.interval->lo, -1.0);
    }
    return d;
}

Difference as_gain(Difference d, Better better) {
    if (better == Better::higher) return d;
    if (d.relative) d.relative = -*d.relative;
    if (d.interval) d.interval = Interval{-d.interval->hi, -d.interval->lo};
    return d;
}

}  // namespace inferlint::stats
