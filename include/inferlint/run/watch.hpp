// Sampling a server's gauges during a run into an inferlint.series/1 file (port of
// series.watch). Readings are taken on a fixed schedule: tick k is due at start + k *
// interval however long each scrape takes, so a slow scrape shifts nothing after it. A
// scrape that runs past the next tick skips the ticks it overran, and says so.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace inferlint::run {

struct WatchOptions {
    double interval_s = 0.5;
    std::optional<double> duration_s;  // nullopt: until stopped
};

struct WatchReport {
    long long samples = 0;        // lines written
    long long gaps = 0;           // scrapes that failed (nothing written for them)
    long long skipped_ticks = 0;  // ticks missed because a scrape ran past them
    bool write_failed = false;    // a line could not be written (a full disk): the recording stopped there
};

// The monotonic clock and a sleep that returns early when `stop` is set, so tests can
// run the schedule on a fake clock.
struct WatchClock {
    std::function<long long()> mono_ns;
    std::function<void(long long until_mono_ns, const std::atomic<bool>& stop)> sleep_until;
};
WatchClock system_watch_clock();

using ScrapeFn = std::function<Snapshot(const std::string& base_url)>;
// Notes for the user (stderr): failed scrapes, skipped ticks.
using NoteFn = std::function<void(const std::string& line)>;

// Samples until `stop` is set or the duration has passed, writing the header and one line
// per successful scrape to `out`, flushed after each. A failed scrape is a gap (a note,
// never a row of zeros). `engine`: the engine serving at base_url; nullptr to take it from
// the first scrape that succeeds. The header is written even when no scrape succeeds. A
// line that cannot be written ends the recording (write_failed).
WatchReport watch(const std::string& base_url, std::ostream& out, const WatchOptions& options,
                  const std::atomic<bool>& stop, const ScrapeFn& scrape, const NoteFn& note,
                  const Engine* engine = nullptr, const WatchClock& clock = system_watch_clock());

}  // namespace inferlint::run
