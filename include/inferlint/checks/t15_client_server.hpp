// T15: did the server do the work the load tool says it sent, and no other work?
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/snapshot.hpp"

namespace inferlint::checks {

// Compares the load tool's completed requests and output tokens with the increase of the
// server's finished-request and generated-token counters between the snapshots (the
// engine told from the snapshots' metric names, vLLM if they name none).
// `expected_extra_requests` are requests the client sent but left out of its result (a
// test request, warm-ups: see untimed_requests). More finished requests than that means
// other traffic shared the server (fail); fewer, that the client counted work the server
// did not do (fail); requests that agree with tokens that do not is a warning. A restart
// between the snapshots, a missing counter or a result without the counts is unknown.
// `chunks` is T18's verdict on the same evidence: when it failed, the warning names
// chunk counting as the cause of the tokens' difference (evidence "cause": "T18").
CheckResult check_client_server_agree(const BenchResult& bench, const Snapshot& before, const Snapshot& after,
                                      long long expected_extra_requests = 0, const CheckResult* chunks = nullptr);

}  // namespace inferlint::checks
