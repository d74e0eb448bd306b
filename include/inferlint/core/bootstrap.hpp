// The difference of two sets of runs, with its uncertainty: the relative difference of
// the means of B against A, and a seeded bootstrap interval for it. Pure arithmetic: no
// clock, no file; the same numbers and seed give the same interval on every machine
// (std::mt19937_64's output is fixed by the standard, and the mapping to an index is ours,
// not std::uniform_int_distribution's, whose output each library defines its own way).
//
// The interval is the studentized bootstrap (bootstrap-t; Efron and Tibshirani, "An
// Introduction to the Bootstrap", 1993, chapter 12): each resample's difference from the
// sample's, over its own standard error (the ratio's, by the delta method), gives the
// quantiles the sample's standard error is multiplied by. The plain percentile interval
// is too narrow at the few runs a benchmark has: in 1,000 trials of 5 runs an arm with 3%
// noise it covered the truth in 89% (unpaired) and 84% (paired) of them; bootstrap-t in
// 95-96% and 94% (tests/unit/test_core_bootstrap.cpp measures both). Below 5 runs an arm
// no bootstrap is right (3 pairs have 10 distinct resamples, and the bootstrap-t covered
// about 80% paired, with ends thrown far out by near-equal runs): there the interval is the
// delta method's standard error times Student's t (paired n - 1 degrees of freedom,
// unpaired Welch's), whose coverage the same test measures at 3 and 4 runs.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>

namespace inferlint::stats {

// Which way a figure is better: throughput up, latency down.
enum class Better { higher, lower };

// Unpaired: any run of A against any run of B. Paired: run i of A against run i of B (an
// interleaved campaign's), resampled together, so what the pair shares cancels.
enum class Pairing { unpaired, paired };

// Studentized (the default; see above; below kFewRuns runs an arm, the delta method's t
// interval) or percentile (the textbook interval).
enum class IntervalKind { studentized, percentile };
inline constexpr std::size_t kFewRuns = 5;

// Student's t quantile: P(T <= t) = p (p > 0.5), `df` degrees of freedom (fractional allowed).
double student_t_quantile(double p, double df);

// A seeded source of indices, the same on every platform.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}
    // Uniform in [0, n), n > 0: rejection of the top partial range, so no index is favoured.
    std::uint64_t below(std::uint64_t n);
    // Uniform in [0, 1), from the top 53 bits.
    double unit();
    // Standard normal (Box-Muller, one of the pair), for synthetic data in tests.
    double normal();

private:
    std::mt19937_64 engine_;
};

struct Interval {
    double lo = 0.0;
    double hi = 0.0;
    bool contains(double x) const { return lo <= x && x <= hi; }
};

struct DiffOptions {
    Pairing pairing = Pairing::unpaired;
    IntervalKind kind = IntervalKind::studentized;
    std::uint64_t seed = 1;
    int resamples = 4000;
    double confidence = 0.95;
};

// mean(B) / mean(A) - 1, with its interval; `problem` says why either is absent.
struct Difference {
    std::optional<double> relative;
    std::optional<Interval> interval;
    std::string problem;  // empty when both are there
};

// Needs two runs or more per arm (the same number, paired), finite figures, and a mean of
// A that is not 0. Identical runs give an interval of width 0 at the difference. When no
// figure is negative, the interval's lower end is at least -1 (B cannot fall below 0).
Difference relative_difference(std::span<const double> a, std::span<const double> b, const DiffOptions& options);

// The difference turned so that positive is better: `relative` for a higher-is-better
// figure; its negative (and the interval's, swapped) for a lower-is-better one.
Difference as_gain(Difference d, Better better);

// The sample's mean and its standard deviation (n - 1); 0 for fewer than two values.
double mean_of(std::span<const double> v);
double sd_of(std::span<const double> v);

}  // namespace inferlint::stats
