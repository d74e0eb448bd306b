// T7 against a live server (port of probe.py): the model from /v1/models unless given,
// one completion, then a concurrent burst, then /health. A smoke test, not a benchmark.
#pragma once

#include "inferlint/checks/t07_probe.hpp"
#include "inferlint/core/result.hpp"

#include <functional>
#include <optional>
#include <string>

namespace inferlint::run {

struct ProbeOptions {
    std::optional<std::string> model;  // default: the first model /v1/models lists
    int concurrency = 8;
    int max_tokens = 16;
    double timeout_s = 300.0;      // per completion request
    double list_timeout_s = 30.0;  // /v1/models
    double health_timeout_s = 10.0;
};

// The HTTP the probe needs, behind functions so tests can stand in for a server.
struct ProbeHttp {
    // GET url -> (status, body); throws InputError when there is no HTTP answer.
    std::function<std::pair<int, std::string>(const std::string& url, double timeout_s)> get;
    // POST JSON -> (status, body); throws InputError when there is no HTTP answer.
    std::function<std::pair<int, std::string>(const std::string& url, const std::string& body, double timeout_s)> post;
};
ProbeHttp real_probe_http();

// The prompt every probe request sends.
inline constexpr const char* kProbePrompt = "Write one sentence about the weather.";

// What the probe saw (for tests and evidence), and T7's verdict on it. A server that
// answers 401 (started with --api-key) throws InputError: "the server wants an API key",
// or "refused the API key given".
checks::ProbeRecord probe_record(const std::string& base_url, const ProbeOptions& options,
                                 const ProbeHttp& http = real_probe_http());
CheckResult probe(const std::string& base_url, const ProbeOptions& options = {},
                  const ProbeHttp& http = real_probe_http());

}  // namespace inferlint::run
