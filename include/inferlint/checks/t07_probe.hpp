// T7's verdict from what a probe of a live server saw (the requests themselves are sent
// by run/probe): a server that announced it was ready can still die on its first request
// or under a small concurrent burst.
#pragma once

#include "inferlint/core/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace inferlint::checks {

// One completion request as the probe saw it.
struct ProbeReply {
    bool ok = false;
    std::optional<int> status;  // nullopt: no HTTP answer at all
    double seconds = 0.0;
    long long tokens = 0;  // usage.completion_tokens
    std::string error;     // empty when ok

    Json to_json() const;  // {ok, status, seconds, tokens, error}
};

struct ProbeRecord {
    std::string model;       // empty when the models could not be listed
    std::string list_error;  // why listing the models failed
    std::optional<ProbeReply> first;
    int concurrency = 0;
    std::vector<ProbeReply> burst;    // empty when the first request failed
    std::optional<bool> alive_after;  // /health answered 200 after the requests
};

// PASS only when the first request and every burst request got a non-empty completion
// and the server still answered /health; FAIL names what failed.
CheckResult probe_verdict(const ProbeRecord& record);

}  // namespace inferlint::checks
