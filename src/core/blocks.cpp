#include "inferlint/core/blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace inferlint {

namespace {

using U128 = unsigned __int128;

// The exact fraction of a double is mantissa / 2^shift. The arithmetic below stays within
// 128 bits for shift <= 105 and denominators up to 2^20; a smaller value (under 2^-52)
// is nearer 0/1 than any fraction with such a denominator.
constexpr int kMaxExactShift = 105;
constexpr long long kMaxDenominator = 1LL << 20;

}  // namespace

std::string BlockInference::reason() const {
    if (!blocks) return fmt::format("the readings are not whole multiples of 1/N for any N up to {}", kMaxBlocks);
    if (!trusted)
        return fmt::format("only {} distinct readings; a divisor of the true count could fit by chance", distinct);
    return "ok";
}

long long limit_denominator(double v, long long max_denominator) {
    if (!(v > 0.0) || !std::isfinite(v)) throw std::invalid_argument("limit_denominator needs a positive finite value");
    if (max_denominator < 1 || max_denominator > kMaxDenominator)
        throw std::invalid_argument("limit_denominator: max_denominator out of range");
    // v = mantissa * 2^-shift exactly, with the fraction reduced.
    int exp2 = 0;
    double frac = std::frexp(v, &exp2);  // v = frac * 2^exp2, frac in [0.5, 1)
    auto mantissa = static_cast<unsigned long long>(std::ldexp(frac, 53));
    int shift = 53 - exp2;
    while (shift > 0 && (mantissa & 1ULL) == 0) {
        mantissa >>= 1;
        --shift;
    }
    if (shift <= 0) return 1;  // a whole number
    if (shift > kMaxExactShift) return 1;
    const U128 num0 = mantissa;
    const U128 den0 = U128{1} << shift;
    const U128 max_d = static_cast<U128>(max_denominator);
    if (den0 <= max_d) return static_cast<long long>(den0);

    // Continued-fraction convergents until the next denominator would pass the limit.
    // Only the denominators are needed; the numerators follow the same recurrence.
    U128 q0 = 1, q1 = 0;
    U128 n = num0, d = den0;
    while (d != 0) {
        U128 a = n / d;
        if (q1 != 0 && a > (max_d - q0) / q1) break;
        U128 q2 = q0 + a * q1;
        if (q2 > max_d) break;
        q0 = q1;
        q1 = q2;
        U128 r = n - a * d;
        n = d;
        d = r;
    }
    // Between the last convergent p1/q1 and the best semiconvergent, the closer wins;
    // a tie goes to the convergent. 2*d*(q0+k*q1) <= den0 says p1/q1 is at least as close.
    U128 k = (max_d - q0) / q1;
    U128 q_semi = q0 + k * q1;
    if (2 * d * q_semi <= den0) return static_cast<long long>(q1);
    return static_cast<long long>(q_semi);
}

BlockInference infer_blocks(std::span<const double> usages, long long max_blocks, double tol) {
    std::vector<double> vals;
    vals.reserve(usages.size());
    for (double v : usages)
        if (v > 0.0 && v <= 1.0) vals.push_back(v);
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    BlockInference out;
    out.distinct = static_cast<long long>(vals.size());
    if (vals.empty()) return out;
    long long n = 1;
    for (double v : vals) {
        n = std::lcm(n, limit_denominator(v, max_blocks));
        if (n > max_blocks) {
            out.max_residual = std::numeric_limits<double>::infinity();
            return out;
        }
    }
    double worst = 0.0;
    const double nd = static_cast<double>(n);
    for (double v : vals) worst = std::max(worst, std::abs(v * nd - std::nearbyint(v * nd)));
    out.max_residual = worst;
    if (worst > tol * nd) return out;
    out.blocks = n;
    out.trusted = out.distinct >= kMinDistinctReadings;
    return out;
}

long long predict_concurrency(double usage, double running, std::optional<long long> usable_blocks) {
    if (!(running > 0.0) || !(usage > 0.0) || !std::isfinite(running) || !std::isfinite(usage))
        throw std::invalid_argument("need a sample with requests running and non-zero usage");
    constexpr double kMaxWhole = 9.0e15;  // beyond this a double holds no exact whole number
    if (usable_blocks && *usable_blocks > 0 && running < kMaxWhole / static_cast<double>(*usable_blocks)) {
        // Round half to even, as Python's round() does.
        double used = std::nearbyint(usage * static_cast<double>(*usable_blocks));
        if (used < 1.0) throw std::invalid_argument("usage rounds to zero blocks");
        auto whole_running = static_cast<long long>(std::trunc(running));
        return (*usable_blocks * whole_running) / static_cast<long long>(used);
    }
    double fit = std::floor(running / usage + 1e-9);
    if (!(fit < kMaxWhole)) return static_cast<long long>(kMaxWhole);
    return static_cast<long long>(fit);
}

}  // namespace inferlint
