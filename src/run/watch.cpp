#include "inferlint/run/watch.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

namespace inferlint::run {
namespace {

// Longest single sleep, so a stop request is seen within this time.
constexpr long long kSleepSliceNs = 50'000'000;
// Slow scrapes said one by one; the rest are summed up at the end.
constexpr long long kSlowNotes = 3;

// Says each distinct failure once, then how often it repeated, so a dead server at a
// 0.05 s interval does not print twenty lines a second.
class FailureNotes {
public:
    explicit FailureNotes(const NoteFn& note) : note_(note) {}
    void failed(const std::string& what) {
        if (what == last_) {
            ++repeats_;
            return;
        }
        flush();
        last_ = what;
        if (note_) note_("scrape failed: " + what);
    }
    void flush() {
        if (repeats_ > 0 && note_)
            note_(fmt::format("scrape failed {} more time{} the same way", repeats_, repeats_ == 1 ? "" : "s"));
        repeats_ = 0;
        last_.clear();
    }

private:
    const NoteFn& note_;
    std::string last_;
    long long repeats_ = 0;
};

}  // namespace

WatchClock system_watch_clock() {
    auto now = [] {
        return static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
    };
    return WatchClock{
        .mono_ns = now,
        .sleep_until =
            [now](long long until, const std::atomic<bool>& stop) {
                for (;;) {
                    if (stop.load()) return;
                    long long left = until - now();
                    if (left <= 0) return;
                    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(left, kSleepSliceNs)));
                }
            },
    };
}

WatchReport watch(const std::string& base_url, std::ostream& out, const WatchOptions& options,
                  const std::atomic<bool>& stop, const ScrapeFn& scrape, const NoteFn& note, const Engine* engine,
                  const WatchClock& clock) {
    WatchReport report;
    const double interval_s = options.interval_s > 0 ? options.interval_s : 0.5;
    const auto interval_ns = static_cast<long long>(std::llround(interval_s * 1e9));
    const std::string shown_url = util::normalise_base_url(base_url);
    bool wrote_header = false;
    auto write_header = [&] {
        out << python_json_line(series_header(engine, shown_url, interval_s)) << "\n";
        out.flush();
        wrote_header = true;
    };
    if (engine) write_header();

    FailureNotes failures(note);
    const long long t0 = clock.mono_ns();
    std::optional<long long> t_end;
    if (options.duration_s) t_end = t0 + static_cast<long long>(std::llround(*options.duration_s * 1e9));
    long long tick = 0;
    long long slow_scrapes = 0, quiet_skipped = 0;
    while (!stop.load() && (!t_end || clock.mono_ns() < *t_end)) {
        try {
            Snapshot snap = scrape(base_url);
            const prom::Metrics& m = snap.metrics();
            if (!engine) {  // one server: decided once
                const Engine* found = named_by(m.names());
                engine = found ? found : &vllm();
            }
            Json row = series_sample(m, *engine, snap.t_wall, snap.t_mono_ns);
            if (!wrote_header) write_header();
            out << python_json_line(row) << "\n";
            out.flush();
            if (!out) {  // a full disk: the lines written stay, and the recording ends here
                report.write_failed = true;
                break;
            }
            ++report.samples;
            failures.flush();
        } catch (const std::exception& e) {  // server gone, junk answer: a gap, never zeros
            ++report.gaps;
            failures.failed(e.what());
        }
        const long long now = clock.mono_ns();
        long long next = tick + 1;
        const long long due = (now - t0) / interval_ns + 1;  // the first tick still ahead
        if (due > next) {
            long long skipped = due - next;
            report.skipped_ticks += skipped;
            ++slow_scrapes;
            const double late_s = static_cast<double>(now - (t0 + tick * interval_ns)) / 1e9;
            if (slow_scrapes <= kSlowNotes && note)
                note(fmt::format("scrape finished {:.3f} s after it was due, longer than the {:g} s interval: "
                                 "skipped {} reading{}",
                                 late_s, interval_s, skipped, skipped == 1 ? "" : "s"));
            else
                quiet_skipped += skipped;
            next = due;
        }
        tick = next;
        long long wake = t0 + tick * interval_ns;
        if (t_end) wake = std::min(wake, *t_end);
        clock.sleep_until(wake, stop);
    }
    failures.flush();
    if (slow_scrapes > kSlowNotes && note)
        note(fmt::format("{} more slow scrapes skipped {} more readings", slow_scrapes - kSlowNotes, quiet_skipped));
    if (!wrote_header) write_header();  // no scrape succeeded: the file still says what it is
    return report;
}

}  // namespace inferlint::run
