// Block-level arithmetic on the KV usage gauge (port of blocks.py).
//
// vLLM sizes its pool in tokens, allocates it in blocks, and exports usage as
// used_blocks / usable_blocks. Every reading is therefore a whole multiple of
// 1/usable_blocks, so the least common denominator of the readings recovers the block
// count from the gauge alone. Against the server's own figure it shows that the
// denominator is num_gpu_blocks - 1: one block is reserved as the null block.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace inferlint {

// Fewer distinct non-zero readings than this and a divisor of the true count can fit by
// luck (readings that are all even multiples of 1/52 also fit 1/26).
inline constexpr long long kMinDistinctReadings = 5;
inline constexpr long long kMaxBlocks = 1LL << 16;

struct BlockInference {
    std::optional<long long> blocks;  // usable blocks (the gauge's denominator), or unknown
    long long distinct = 0;           // distinct readings in (0, 1]
    double max_residual = 0.0;        // worst |usage * blocks - round(usage * blocks)|
    bool trusted = false;

    // Why the count is or is not usable ("ok" when it is).
    std::string reason() const;
};

// The least N such that every reading in (0, 1] is k/N for a whole k. Readings outside
// (0, 1] are ignored; duplicates count once. A reading that is no clean fraction (an
// average over engines, say) leaves a residual over tol and the count is unknown,
// never rounded to a guess.
BlockInference infer_blocks(std::span<const double> usages, long long max_blocks = kMaxBlocks, double tol = 1e-6);

// The denominator of the fraction closest to v (0 < v) with a denominator of at most
// max_denominator (at most 2^20), as Python's Fraction(v).limit_denominator computes it.
long long limit_denominator(double v, long long max_denominator);

// How many requests like the running ones fit: floor(1 / share), share = usage / running
// read from one sample. With the block count known the arithmetic is in whole blocks, so
// a reading of exactly 1/8 cannot floor to 7 through float error. Throws
// std::invalid_argument for a sample without running requests or usage.
long long predict_concurrency(double usage, double running, std::optional<long long> usable_blocks = std::nullopt);

}  // namespace inferlint
