// Prometheus (or Thanos, Mimir, VictoriaMetrics: the same HTTP API) as a source of
// evidence: what it scraped from a replica, turned into the files the rest of inferlint
// reads. The first of them: a snapshot of one replica at a moment.
#pragma once

#include "inferlint/parse/prom_api.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/http.hpp"

#include <optional>
#include <string>

namespace inferlint::run {

struct PromSource {
    std::string url;        // the Prometheus server, "http://127.0.0.1:9090"
    std::string selector;   // label matchers, '{job="vllm",namespace="bench"}'; "" or "{}": all
    util::HttpLimits limits{.connect_s = 5.0, .read_s = 30.0};
};

// The label that names a replica: `pod` where the series carry it (Kubernetes), else
// `instance` (host:port, as Prometheus sets it for every target).
std::string replica_label(const parse::PromSeries& s);

// One instant query at `at` (seconds since the epoch). Throws InputError naming the URL
// when Prometheus cannot be reached, answers with an error, or answers something else.
parse::PromAnswer prom_instant(const PromSource& src, const std::string& query, double at);

// The snapshot of the one replica the selector matches (the one whose engine series,
// vllm:, sglang:, trtllm_, it matches), as Prometheus last scraped it at or before `at`:
// every series of that scrape but Prometheus's own (up, scrape_*), the scrape's own time (the
// target's `up` sample) and its duration (scrape_duration_seconds) as the reading's
// latency. InputError (one line) when no series match, when they come from more than one
// replica (the message lists them), or when the replica was down at its last scrape.
Snapshot prometheus_snapshot(const PromSource& src, double at);

}  // namespace inferlint::run
