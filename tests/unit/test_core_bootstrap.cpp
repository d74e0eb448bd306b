// The comparison's statistics on synthetic runs whose true difference is known: the 95%
// interval must cover it in 93-97% of 1,000 seeded trials, paired and unpaired.
#include "support.hpp"

#include "inferlint/core/bootstrap.hpp"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

using namespace inferlint::stats;

namespace {

struct Coverage {
    int covered = 0;
    int trials = 0;
    double share() const { return static_cast<double>(covered) / trials; }
};

// `n` runs an arm of a figure near 1000 with 3% run-to-run noise; B is 5% higher. Paired
// runs share a 5% drift (what an interleaved campaign's pair has in common), which the
// paired interval must cancel.
Coverage coverage_of(int n, Pairing pairing, IntervalKind kind, int trials = 1000) {
    constexpr double truth = 0.05;
    Rng data(20260927 + n * 10 + static_cast<int>(pairing));
    Coverage c;
    for (int t = 0; t < trials; ++t) {
        std::vector<double> a, b;
        for (int i = 0; i < n; ++i) {
            const double shared = pairing == Pairing::paired ? 0.05 * data.normal() : 0.0;
            a.push_back(1000.0 * (1.0 + shared + 0.03 * data.normal()));
            b.push_back(1000.0 * (1.0 + truth) * (1.0 + shared + 0.03 * data.normal()));
        }
        DiffOptions o{.pairing = pairing, .kind = kind, .seed = static_cast<std::uint64_t>(t) + 1, .resamples = 2000};
        Difference d = relative_difference(a, b, o);
        REQUIRE(d.interval);
        c.covered += d.interval->contains(truth);
        ++c.trials;
    }
    return c;
}

// The default interval at `n` runs an arm, paired and unpaired: 93-97% of 1,000 trials.
void check_coverage(std::initializer_list<int> runs) {
    for (int n : runs) {
        for (Pairing p : {Pairing::unpaired, Pairing::paired}) {
            Coverage c = coverage_of(n, p, IntervalKind::studentized);
            INFO(n << " runs an arm, " << (p == Pairing::paired ? "paired" : "unpaired") << ": " << c.covered << " of "
                   << c.trials);
            CHECK(c.share() >= 0.93);
            CHECK(c.share() <= 0.97);
        }
    }
}

}  // namespace

// The coverage simulations ([plain]) run the interval code a few hundred thousand times:
// the sanitized build runs the same code in the smaller cases below and leaves these to
// the plain build (tests/shard.sh), where they take seconds rather than a minute.
TEST_CASE("bootstrap: the 95% interval covers a known difference in 93-97% of 1,000 trials", "[bootstrap][plain]") {
    check_coverage({5, 8});
}

TEST_CASE("bootstrap: below 5 runs an arm, the delta method's t interval covers 93-97% too",
          "[bootstrap][plain]") {
    check_coverage({3, 4});
}

TEST_CASE("bootstrap: 3 simulated runs an arm, B four times as fast, two pairs near-equal: a gain is shown",
          "[bootstrap]") {
    // The campaign test's tpot_p50 (ms) of one CI run: the bootstrap-t gave [-75%, +57%]
    // ("no difference"), its ends thrown out by resamples of the two near-equal pairs.
    const std::vector<double> a{20.002537290194738, 20.000855276471246, 20.007607270585424};
    const std::vector<double> b{5.203580715683262, 4.999169211762766, 5.0013832313804105};
    Difference d = relative_difference(a, b, {.pairing = Pairing::paired});
    REQUIRE(d.interval);
    CHECK(*d.relative == Approx(-0.7466).margin(1e-4));
    CHECK(d.interval->hi < -0.70);
    CHECK(d.interval->lo > -0.80);
    CHECK(d.interval->contains(*d.relative));
}

TEST_CASE("bootstrap: Student's t quantiles", "[bootstrap]") {
    CHECK(student_t_quantile(0.975, 1) == Approx(12.7062).epsilon(1e-4));
    CHECK(student_t_quantile(0.975, 2) == Approx(4.302653).epsilon(1e-5));
    CHECK(student_t_quantile(0.975, 4) == Approx(2.776445).epsilon(1e-5));
    CHECK(student_t_quantile(0.975, 30) == Approx(2.042272).epsilon(1e-5));
    CHECK(student_t_quantile(0.95, 2.5) == Approx(2.558219).epsilon(1e-5));  // the density integrated numerically
}

TEST_CASE("bootstrap: the plain percentile interval covers too little at 5 runs an arm (why bootstrap-t)",
          "[bootstrap][plain]") {
    for (Pairing p : {Pairing::unpaired, Pairing::paired}) {
        Coverage c = coverage_of(5, p, IntervalKind::percentile);
        INFO((p == Pairing::paired ? "paired" : "unpaired") << ": " << c.covered << " of " << c.trials);
        CHECK(c.share() < 0.92);
    }
}

TEST_CASE("bootstrap: the same seed gives the same interval, another seed another", "[bootstrap]") {
    const std::vector<double> a{1000, 1010, 990, 1005, 995}, b{1040, 1060, 1030, 1055, 1045};
    Difference x = relative_difference(a, b, {.seed = 7}), y = relative_difference(a, b, {.seed = 7}),
               z = relative_difference(a, b, {.seed = 8});
    REQUIRE(x.interval);
    CHECK(x.interval->lo == y.interval->lo);
    CHECK(x.interval->hi == y.interval->hi);
    CHECK(x.interval->lo != z.interval->lo);
    CHECK(*x.relative == Approx(1046.0 / 1000.0 - 1.0));
    CHECK(x.interval->lo > 0.0);
    CHECK(x.interval->contains(*x.relative));
}

TEST_CASE("bootstrap: std::mt19937_64 and the index mapping give the same draws everywhere", "[bootstrap]") {
    Rng rng(1);
    // mt19937_64 seeded with 1: its first output is fixed by the standard library's
    // specification, so the indices derived from it are too.
    std::vector<std::uint64_t> got;
    for (int i = 0; i < 5; ++i) got.push_back(rng.below(10));
    std::mt19937_64 ref(1);
    std::vector<std::uint64_t> want;
    for (int i = 0; i < 5; ++i) want.push_back(ref() % 10);  // no draw is rejected for n = 10 this early
    CHECK(got == want);
    Rng one(3);
    for (int i = 0; i < 100; ++i) CHECK(one.below(1) == 0);
}

TEST_CASE("bootstrap: edge cases say why there is no interval, never a made-up one", "[bootstrap]") {
    SECTION("one run an arm: the difference, but no interval") {
        Difference d = relative_difference(std::vector<double>{100}, std::vector<double>{110}, {});
        REQUIRE(d.relative);
        CHECK(*d.relative == Approx(0.10));
        CHECK_FALSE(d.interval);
        CHECK(d.problem == "an interval needs at least 2 runs per arm");
    }
    SECTION("identical runs: an interval of width 0 at the difference") {
        for (IntervalKind k : {IntervalKind::studentized, IntervalKind::percentile}) {
            Difference d = relative_difference(std::vector<double>{200, 200, 200}, std::vector<double>{220, 220, 220},
                                               {.kind = k});
            REQUIRE(d.interval);
            CHECK(d.interval->lo == Approx(0.10));
            CHECK(d.interval->hi == Approx(0.10));
        }
        Difference same = relative_difference(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5, 5}, {});
        REQUIRE(same.interval);
        CHECK(same.interval->lo == 0.0);
        CHECK(same.interval->hi == 0.0);
    }
    SECTION("zeros: A's mean of 0 has no relative difference; zeros in B are a figure like any") {
        Difference d = relative_difference(std::vector<double>{0, 0, 0}, std::vector<double>{1, 2, 3}, {});
        CHECK_FALSE(d.relative);
        CHECK_FALSE(d.interval);
        CHECK(d.problem == "A's mean is 0, so there is no relative difference");
        Difference z = relative_difference(std::vector<double>{1, 2, 3}, std::vector<double>{0, 0, 0}, {});
        REQUIRE(z.interval);
        CHECK(*z.relative == -1.0);
        CHECK(z.interval->hi == Approx(-1.0));
        CHECK(z.interval->lo >= -1.0);  // a figure that cannot be negative falls by all of A at most
        // A with one zero among its runs: resamples of only that run are left out.
        Difference some = relative_difference(std::vector<double>{0, 10, 10}, std::vector<double>{10, 10, 10},
                                              {.kind = IntervalKind::percentile});
        REQUIRE(some.interval);
        CHECK(std::isfinite(some.interval->hi));
    }
    SECTION("a NaN figure: no difference at all") {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        Difference d = relative_difference(std::vector<double>{1, nan, 3}, std::vector<double>{1, 2, 3}, {});
        CHECK_FALSE(d.relative);
        CHECK(d.problem == "a figure is not a number");
    }
    SECTION("paired arms of different sizes") {
        Difference d =
            relative_difference(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2}, {.pairing = Pairing::paired});
        CHECK_FALSE(d.interval);
        CHECK(d.problem == "paired runs need as many runs in each arm");
    }
}

TEST_CASE("bootstrap: a lower-is-better figure's gain is its difference turned around", "[bootstrap]") {
    Difference d;
    d.relative = -0.10;
    d.interval = Interval{-0.15, -0.05};
    Difference g = as_gain(d, Better::lower);
    CHECK(*g.relative == 0.10);
    CHECK(g.interval->lo == 0.05);
    CHECK(g.interval->hi == 0.15);
    CHECK(as_gain(d, Better::higher).interval->lo == -0.15);
}
