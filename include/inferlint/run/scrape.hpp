// One reading of a server's Prometheus metrics, with the time it was taken (port of
// telemetry.scrape). Both clocks are read on either side of the request and the midpoint
// is kept; the request's latency is recorded as the reading's timing uncertainty.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace inferlint::run {

// GET a full URL and return its body; throws InputError (naming the URL) on failure.
using Getter = std::function<std::string(const std::string& url, double timeout_s)>;

struct Clocks {
    std::function<double()> wall;        // seconds since the epoch
    std::function<long long()> mono_ns;  // a monotonic clock, nanoseconds
};

Clocks system_clocks();
// Plain HTTP with a connect limit of 5 s and the given read limit.
Getter http_getter();
// The same over one connection kept open between requests (util::HttpSession), for a
// scraper that reads one server again and again (watch). Copies share the connection:
// for one thread at a time.
Getter kept_alive_getter();

// Reads metrics from servers. TensorRT-LLM answers /metrics with JSON and serves Prometheus
// text at /prometheus/metrics; the path that worked is remembered per server, and forgotten
// when it stops working (another server may answer there now).
class Scraper {
public:
    explicit Scraper(Getter get = http_getter(), Clocks clocks = system_clocks());

    // base_url: what the user typed ("127.0.0.1:8000", "http://h:8000/metrics").
    // path: read exactly this path instead of finding one.
    Snapshot scrape(const std::string& base_url, const std::optional<std::string>& path = std::nullopt,
                    double timeout_s = 10.0);

private:
    Snapshot read(const std::string& base, const std::string& path, double timeout_s, bool find);
    Getter get_;
    Clocks clocks_;
    std::mutex mu_;
    std::map<std::string, std::string> found_path_;
};

// The process-wide scraper over HTTP.
Scraper& default_scraper();

// A snapshot of a serving engine, or why there is none.
struct ServedSnapshot {
    std::optional<Snapshot> snapshot;
    const Engine* found = nullptr;  // the engine its metric names belong to
    std::string error;              // set when snapshot is empty: one line, for stderr
};

// One scrape of the server at url, and which engine's metrics it serves. No snapshot (and
// `error` says what to change) when the server cannot be read, answers something that is
// not Prometheus text, or serves no engine's metrics. `named`: the engine the user named,
// whose hint the message gives (nullptr: every engine's).
ServedSnapshot served_snapshot(const std::string& url, const Engine* named, Scraper& scraper = default_scraper());

// "start SGLang with --enable-metrics" for the named engine; every engine's hint otherwise.
std::string metrics_hint(const Engine* named);

}  // namespace inferlint::run
