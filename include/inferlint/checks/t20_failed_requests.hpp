// T20: failed requests left out of the figures. Load tools compute latency and throughput
// over the requests that succeeded; a run where some failed, were cancelled or never
// finished reports the survivors' figures as the run's (InferenceX #357, guidellm #444), and
// `vllm bench serve` can exit 0 with every request failed (pytorch PR #172616).
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <optional>

namespace inferlint::checks {

// What the load tool's result says of the requests that did not complete; nullopt fields:
// the file does not say.
struct ClientFailures {
    std::optional<long long> completed;
    std::optional<long long> lost;  // failed, errored, cancelled or never finished
    std::string basis;              // how `lost` was read, for the message
    std::string problem;            // non-empty: the counts cannot be trusted (negative, do not add up)
};
ClientFailures client_failures(const BenchResult& bench);

// What the server's own counters say between the snapshots: the requests it finished as
// aborted or errored, over all it finished. nullopt fields: the engine exports no such
// counter, or a snapshot lacks it (never read as 0).
struct ServerFailures {
    std::optional<double> failed;
    std::optional<double> finished;  // every request the server finished, failed ones included
    // Of `failed`, those the engine's finished-request counter (engine metrics'
    // request_success, which T15 reads) also counts: vLLM's finished_reason abort/error; 0
    // where the failures have a counter of their own (SGLang, TensorRT-LLM).
    std::optional<double> in_finished_counter;
    std::string counters;  // the series read, for the message
    std::string problem;   // non-empty: a restart or a counter that is not a count
    // The HTTP server's own count of its answers (http_errors): nullopt where it exports none.
    std::optional<double> http_errors;   // 4xx and 5xx answers on the generation handlers
    std::optional<double> http_answers;  // every answer on them
    std::string http_counter;            // the series read
    Json http_by_answer;                 // {"/v1/completions 5xx": 2}, the errors by handler and status
    double http_other_errors = 0;        // 4xx/5xx on other handlers (/tokenize ...), set aside
};
ServerFailures server_failures(const Snapshot& before, const Snapshot& after);

// The HTTP error answers the server gave on its generation handlers between the snapshots,
// from the HTTP layer's counter where the engine exports one (vLLM: http_requests_total
// {handler,method,status="4xx"}; SGLang with --enable-metrics: sglang:http_responses_total
// {endpoint,method,status_code="500"}; TensorRT-LLM: none). Fills the http_* fields of `out`;
// leaves them nullopt when the counter is missing from either snapshot (never read as 0),
// and sets `out.problem` when it went down between them.
void add_http_errors(const Snapshot& before, const Snapshot& after, ServerFailures& out);

// FAIL when either side says requests failed during the measured window, with the count,
// the share and which figures cover only the survivors; WARN instead when the share is at
// or under `accepted_share` (a fraction, 0..1: --max-failed-share); PASS when every side
// present says none failed; unknown without either side, or with counts that contradict
// themselves (negative, more failed than sent, nothing completed and nothing failed).
CheckResult check_failed_requests(const BenchResult* bench, const Snapshot* before, const Snapshot* after,
                                  double accepted_share = 0.0);

// The failed share a result file states (lost / (completed + lost)); nullopt when it does
// not say, or its counts cannot be trusted. For compare's C8.
std::optional<double> failed_share(const BenchResult& bench);

}  // namespace inferlint::checks
