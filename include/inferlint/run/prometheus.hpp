// Prometheus (or Thanos, Mimir, VictoriaMetrics: the same HTTP API) as a source of
// evidence: what it scraped from the replicas, turned into the snapshots and recordings
// the rest of inferlint reads. A snapshot of one replica at a moment (`snapshot
// --prometheus`), and a run window over every replica a selector names (`--prometheus` on
// report, series, preemption, rate, prefix-cache and client-counts).
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/parse/prom_api.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/http.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inferlint::run {

struct PromSource {
    std::string url;       // the Prometheus server, "http://127.0.0.1:9090"
    std::string selector;  // label matchers, '{job="vllm",namespace="bench"}'; "" or "{}": all
    util::HttpLimits limits{.connect_s = 5.0, .read_s = 30.0};
};

// The label that names a replica: `pod` where the series carry it (Kubernetes), else
// `instance` (host:port, as Prometheus sets it for every target).
std::string replica_label(const parse::PromSeries& s);

// One instant query at `at` (seconds since the epoch). Throws InputError naming the URL
// when Prometheus cannot be reached, answers with an error, or answers something else.
// An answer with warnings (a partial answer: Thanos or Mimir missing a store) is refused
// the same way: a verdict read from part of the data could pass what failed.
parse::PromAnswer prom_instant(const PromSource& src, const std::string& query, double at);

// One range query (`query_range`) from `start` to `end` every `step` seconds. A window of
// more points than Prometheus answers at once (11,000 per series) is asked in pieces,
// and each piece is kept under a few MB; the pieces' series are joined. Errors as
// prom_instant's, and InputError when the window holds over a million steps.
parse::PromAnswer prom_range(const PromSource& src, const std::string& query, double start, double end, double step,
                             std::size_t series_hint = 1);

// The snapshot of the one replica the selector matches (the one whose engine series,
// vllm:, sglang:, trtllm_, it matches), as Prometheus last scraped it at or before `at`:
// every series of that scrape but Prometheus's own (up, scrape_*), the scrape's own time (the
// target's `up` sample) and its duration (scrape_duration_seconds) as the reading's
// latency. InputError (one line) when no series match, when they come from more than one
// replica (the message lists them), or when the replica was down at its last scrape.
Snapshot prometheus_snapshot(const PromSource& src, double at);

// A run's window, in seconds since the epoch.
struct PromWindow {
    double start = 0;
    double end = 0;
};

// One replica's share of a window.
struct ReplicaWindow {
    std::string label;  // "instance" or "pod"
    std::string name;   // its value: "10.0.0.5:8000", "vllm-0"
    // Its scrapes at the window's ends; nullopt with the reason when there is none (down,
    // not yet up, gone).
    std::optional<Snapshot> before, after;
    std::string before_missing, after_missing;
    // Its gauges at every step where Prometheus has them (a recording as `watch` writes
    // one, its header's interval the step). A step without a sample is left out: a gap,
    // never a zero.
    Series series;
    // Stretches of the window with no sample (from, to), longer than 1.5 steps.
    std::vector<std::pair<double, double>> gaps;
    // Counter resets Prometheus saw in the window (resets()): the replica restarted.
    long long resets = 0;
    std::string reset_example;  // a counter that reset
};

struct FleetWindow {
    std::string url;       // Prometheus, as normalised
    std::string selector;  // as given ("{}" when none)
    PromWindow window;
    double step_s = 0;
    std::string step_from;                // "--step", "the targets' scrape interval", "the samples' spacing"
    const Engine* engine = nullptr;       // what the series' names tell
    std::string replica_key;              // "instance" or "pod"
    std::vector<ReplicaWindow> replicas;  // by name
    bool refused = false;                 // `accept` refused the engine: nothing more was read
};

// Every replica the selector matches with engine series in the window: its snapshots at
// the window's ends, its gauges every `step` (default: the targets' scrape interval from
// /api/v1/targets, else the spacing of the replicas' `up` samples), its gaps and resets.
// InputError (one line, naming Prometheus) when Prometheus is down, slow, refuses a query
// or answers in part, when no engine series match in the window, or when they come from
// more than one engine. `accept` is asked once the series' names tell the engine; false
// stops there (`refused`).
FleetWindow read_fleet_window(const PromSource& src, const PromWindow& window, std::optional<double> step,
                              const std::function<bool(const Engine*)>& accept = {});

// The stretches of the window longer than 1.5 steps without a sample in `series`, the
// window's ends included (from, to).
std::vector<std::pair<double, double>> series_gaps(const Series& series, const PromWindow& window, double step_s);

// The fleet's summed gauges at each step of the window (running and waiting summed over
// the replicas with a sample in that step, the first of a replica's there; kv_usage, a
// per-replica fraction, left out), for T8 held against the sum. Step k is [start + k *
// step, start + (k + 1) * step).
Series fleet_sum(const FleetWindow& fleet);

// The union of the replicas' snapshots at one end of the window (each series keeping its
// replica's label, so counters sum over the fleet); nullopt, with the replica that lacks
// one in `missing`, when any replica has none there.
std::optional<Snapshot> fleet_snapshot(const FleetWindow& fleet, bool at_end, std::string& missing);

}  // namespace inferlint::run
