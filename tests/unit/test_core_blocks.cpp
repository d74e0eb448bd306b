#include "support.hpp"

#include "inferlint/core/blocks.hpp"
#include "inferlint/parse/series.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

using namespace inferlint;

TEST_CASE("infer_blocks recovers the denominator from k/N readings", "[series][blocks]") {
    for (long long n : {7LL, 44LL, 52LL, 53LL, 97LL, 400LL, 1021LL}) {
        // A deterministic spread of numerators; only asserted when they share no factor
        // with n (else a divisor of n is the right answer).
        std::vector<long long> ks;
        unsigned long long x = static_cast<unsigned long long>(n) * 2654435761ULL;
        while (ks.size() < static_cast<std::size_t>(std::min<long long>(n - 1, 12))) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            long long k = 1 + static_cast<long long>((x >> 33) % static_cast<unsigned long long>(n));
            if (std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
        }
        long long g = n;
        for (long long k : ks) g = std::gcd(g, k);
        if (g != 1) continue;
        std::vector<double> usages;
        for (long long k : ks) usages.push_back(static_cast<double>(k) / static_cast<double>(n));
        auto inf = infer_blocks(usages);
        INFO("n = " << n);
        REQUIRE(inf.blocks);
        CHECK(*inf.blocks == n);
        CHECK(inf.trusted);
        CHECK(inf.reason() == "ok");
    }
}

TEST_CASE("a divisor can fit by luck, so few readings are not trusted", "[series][blocks]") {
    std::vector<double> even = {2.0 / 52, 4.0 / 52, 8.0 / 52};
    auto inf = infer_blocks(even);
    REQUIRE(inf.blocks);
    CHECK(*inf.blocks == 26);
    CHECK_FALSE(inf.trusted);
    CHECK(inf.distinct == 3);
    CHECK_THAT(inf.reason(), Catch::Contains("only 3 distinct"));
}

TEST_CASE("readings that are no clean fraction leave the count unknown", "[series][blocks]") {
    std::vector<double> noisy = {0.1234567, 0.2345678, 0.3456789, 0.456789, 0.56789};
    auto inf = infer_blocks(noisy);
    CHECK_FALSE(inf.blocks);
    CHECK(inf.distinct == 5);
    CHECK_FALSE(inf.trusted);
}

TEST_CASE("no readings, or only zeros, give no count", "[series][blocks]") {
    CHECK_FALSE(infer_blocks(std::vector<double>{}).blocks);
    auto zeros = infer_blocks(std::vector<double>{0.0, 0.0});
    CHECK_FALSE(zeros.blocks);
    CHECK(zeros.distinct == 0);
    // out-of-range readings are ignored, duplicates counted once
    auto inf = infer_blocks(std::vector<double>{1.5, -0.25, 0.5, 0.5, 0.25});
    CHECK(inf.distinct == 2);
    REQUIRE(inf.blocks);
    CHECK(*inf.blocks == 4);
}

TEST_CASE("limit_denominator matches Python's Fraction.limit_denominator", "[series][blocks]") {
    CHECK(limit_denominator(0.1, 65536) == 10);
    CHECK(limit_denominator(1.0 / 3.0, 65536) == 3);
    CHECK(limit_denominator(0.9523809523809523, 65536) == 21);  // 40/42
    CHECK(limit_denominator(M_PI, 1000) == 113);                // 355/113
    CHECK(limit_denominator(M_PI, 100) == 99);                  // 311/99 beats 22/7
    CHECK(limit_denominator(0.5, 65536) == 2);
    CHECK(limit_denominator(1.0, 65536) == 1);
    CHECK(limit_denominator(1e-30, 65536) == 1);  // nearer 0/1 than 1/65536
    CHECK(limit_denominator(1.0 / 65536 * 0.75, 65536) == 65536);
    CHECK_THROWS_AS(limit_denominator(0.0, 10), std::invalid_argument);
}

TEST_CASE("the concurrency ceiling is floor(1 / share)", "[series][blocks]") {
    struct Case {
        double usage, running;
        long long expected;
    };
    for (auto c : {Case{0.125, 1, 8}, Case{0.308, 1, 3}, Case{0.423, 1, 2}, Case{0.538, 1, 1}, Case{0.25, 2, 8},
                   Case{0.164, 1, 6}}) {
        INFO(c.usage << " / " << c.running);
        CHECK(predict_concurrency(c.usage, c.running) == c.expected);
    }
}

TEST_CASE("whole-block arithmetic is immune to float error", "[series][blocks]") {
    // 1/8 of 48 blocks, read back a hair high: the float floor says 7, the blocks say 8.
    double noisy = 6.0 / 48 + 1e-12;
    CHECK(static_cast<int>(1 / noisy) == 7);
    CHECK(predict_concurrency(noisy, 1, 48) == 8);
}

TEST_CASE("an idle sample has no ceiling", "[series][blocks]") {
    CHECK_THROWS_AS(predict_concurrency(0.0, 0), std::invalid_argument);
    CHECK_THROWS_AS(predict_concurrency(0.5, 0), std::invalid_argument);
    CHECK_THROWS_AS(predict_concurrency(std::nan(""), 1), std::invalid_argument);
    CHECK_THROWS_AS(predict_concurrency(0.001, 1, 42), std::invalid_argument);  // under half a block
}

TEST_CASE("the blocks fixture's readings are multiples of 1/44", "[series][blocks][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summarize_series_file(root / "vllm-0.28" / "series" / "blocks.series.jsonl");
    auto inf = infer_blocks(s.stats.kv_levels());
    REQUIRE(inf.blocks);
    CHECK(*inf.blocks == 44);
    CHECK(inf.trusted);
}
