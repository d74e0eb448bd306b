// What limited a run: up to three plain sentences drawn from its files (port of
// insights.py). The tripwires say whether a run's numbers hold; these say what decided
// them: could the KV cache hold the load at full length, did requests wait to start, and
// how many requests ran at once on average against how many the load kept open. Each is
// arithmetic on numbers the page already shows; a sentence whose numbers are missing is
// left out, never guessed.
#pragma once

#include "inferlint/report/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace inferlint::report {

enum class Tone { limit, ok };  // limit: this held the run back; ok: it did not

struct Insight {
    std::string key;  // "cache", "concurrency", "waiting", "pace"
    std::string title;
    std::string text;
    Tone tone = Tone::limit;
};

// Most decisive first, at most three; empty when the server restarted mid-run or the
// files say nothing.
std::vector<Insight> limits(const Report& report);

// Prompt plus output tokens per finished request: the server's count, else the client's.
std::optional<double> per_request_tokens(const Report& report);

// The KV cache against the load at full length.
struct CacheNeed {
    long long pool = 0;        // tokens the KV cache holds
    double per_request = 0.0;  // prompt plus output tokens per request
    double allocated = 0.0;    // the same, rounded up to whole blocks
    std::optional<long long> block;
    long long concurrency = 0;
    double total() const { return static_cast<double>(concurrency) * allocated; }
};

// nullopt when a number is missing, or for a hybrid model (attention plus Mamba), whose
// memory per request a token count does not describe.
std::optional<CacheNeed> cache_need(const Report& report);

// The recording's busy time (at least one request running), read between samples;
// nullopt for engines whose gauges lag.
struct Busy {
    double seconds = 0.0;
    double mean_running = 0.0;
    std::optional<double> tokens_per_s;
};
std::optional<Busy> busy(const Report& report);

}  // namespace inferlint::report
