// T21: the client's streams contradict the server's running gauge. A server whose cache holds
// 24 requests, sent 32, may count all 32 as running (TensorRT-LLM counted requests admitted to
// the batch but waiting for KV memory); the client's per-request times show how many were
// receiving tokens at once, and the difference is requests that were waiting, not running.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/load_result.hpp"
#include "inferlint/parse/series.hpp"

#include <optional>
#include <string>
#include <vector>

namespace inferlint::checks {

// What the load tool's per-request times say about concurrency. A request's first token and
// end are its own times where the tool states them, else its start plus its TTFT or its
// end-to-end latency (AIPerf's records, vLLM's --save-detailed lists).
struct ClientStreams {
    long long timed = 0;                 // requests with a start and an end
    long long streamed = 0;              // of them, with a first token
    long long in_flight_peak = 0;        // the most requests sent and not yet answered, at once
    long long streaming_peak = 0;        // the most between their first token and their end, at once
    long long streaming_within = 0;      // the same, each counted from `widen_s` before its first token
    std::optional<std::string> problem;  // times out of order or not a clock's: nothing above holds
};

// Over the result's requests and its stages' (a sweep's stages ran one after another).
// `widen_s`: each stream counted from that long before its first token (streaming_within).
ClientStreams client_streams(const LoadResult& load, double widen_s = 0.0);

// One reading of the running gauge, on both the recording's clocks.
struct RunningReading {
    double t_wall = 0;
    std::optional<double> t_mono_s;  // the recorder's CLOCK_MONOTONIC, where it wrote one
    double running = 0;
};

// The least time either way of a reading in which a stream still explains it: a scrape and
// the client's receipt of a chunk are not the same moment, nor is a request's admission and
// its first token (the recording's interval when that is longer).
inline constexpr double kStreamsSlackS = 0.25;

// T21. With the gauge's readings on the client's clock (an epoch clock: the recording's
// t_wall; a monotonic one, as vllm bench serve's perf_counter: its t_mono_ns), each reading
// taken during the load is held against the streams within the slack of it: WARN naming the
// worst reading when one counts more running than that. When the clocks cannot be lined up
// (no reading falls within the load), the recording's peak against the client's streaming
// peak, each stream counted from one slack before its first token. PASS otherwise; unknown
// without per-request times, with times that are not usable (naming the request), or
// without a running gauge. `load`, `series` or `readings` may be null.
CheckResult check_streams_vs_running(const LoadResult* load, const SeriesSummary* series,
                                     const std::vector<RunningReading>* readings = nullptr);

// The client's streaming peak when per-request times give one (T8's second witness).
std::optional<long long> client_streaming_peak(const LoadResult* load);

}  // namespace inferlint::checks
