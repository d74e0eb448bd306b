// Sampling a server's gauges during a run into an inferlint.series/1 file (port of
// series.watch), or several servers' (the replicas of a fleet) into one file each.
// Readings are taken on a fixed schedule: tick k is due at start + k * interval however
// long each scrape takes, so a slow scrape shifts nothing after it. A scrape that runs
// past the next tick skips the ticks it overran, and says so.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace inferlint::run {

struct WatchOptions {
    double interval_s = 0.5;
    std::optional<double> duration_s;  // nullopt: until stopped
    // Tick 0, on the watch clock; nullopt: when the watch starts. Watches given the same
    // start (and interval) share one schedule; the duration counts from it.
    std::optional<long long> start_mono_ns;
};

struct WatchReport {
    long long samples = 0;        // lines written
    long long gaps = 0;           // scrapes that failed (nothing written for them)
    long long skipped_ticks = 0;  // ticks missed because a scrape ran past them
    bool write_failed = false;    // a line could not be written (a full disk): the recording stopped there
};

// The monotonic clock and a sleep that returns early when `stop` is set, so tests can
// run the schedule on a fake clock. The system's: CLOCK_MONOTONIC (steady_clock's), and a
// sleep to the absolute deadline (clock_nanosleep TIMER_ABSTIME) in slices of 50 ms, so
// the time spent working out how long to sleep is not added to the wake-up. Callable from
// several threads at once.
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

// One server of several watched together, and where its recording goes.
struct WatchTarget {
    std::string base_url;
    std::ostream* out = nullptr;
    const Engine* engine = nullptr;  // as for watch()
};

// Watches every target on one schedule: tick k of each is due at the same moment. Each
// target is scraped by a thread of its own, so at each tick all are scraped at once, and
// one that is slow or does not answer misses its own ticks and no other's (its file has
// gaps; the others go on). Each report is its target's, in order. `scrape` is called from
// those threads at once; `note` one call at a time, each line prefixed with the target's
// address ("http://h:8000: scrape failed: ...").
std::vector<WatchReport> watch_all(const std::vector<WatchTarget>& targets, const WatchOptions& options,
                                   const std::atomic<bool>& stop, const ScrapeFn& scrape, const NoteFn& note,
                                   const WatchClock& clock = system_watch_clock());

// The file name of one replica's recording when several are watched into a folder:
// "<host>_<port>.series.jsonl", with the path prefix after the port when the address has
// one ("http://gw/replica-0" -> "gw_80_replica-0.series.jsonl"). Characters other than
// letters, digits, '.' and '-' become '_' ("http://[::1]:8000" -> "__1_8000.series.jsonl").
// Throws InputError for an address that cannot be read.
std::string replica_series_name(const std::string& base_url);

}  // namespace inferlint::run
