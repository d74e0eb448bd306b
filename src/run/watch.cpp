#include "inferlint/run/watch.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <exception>
#include <mutex>
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

long long monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

WatchClock system_watch_clock() {
    return WatchClock{
        .mono_ns = monotonic_ns,
        .sleep_until =
            [](long long until, const std::atomic<bool>& stop) {
                // To the deadline itself, not for a span worked out before: a wake-up is
                // late only by what the kernel adds, not by this loop's own time.
                for (;;) {
                    if (stop.load()) return;
                    const long long now = monotonic_ns();
                    if (until <= now) return;
                    const long long slice_end = std::min(until, now + kSleepSliceNs);
                    const timespec at{.tv_sec = static_cast<time_t>(slice_end / 1'000'000'000),
                                      .tv_nsec = static_cast<long>(slice_end % 1'000'000'000)};
                    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);  // EINTR: look again
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
    const long long t0 = options.start_mono_ns.value_or(clock.mono_ns());
    std::optional<long long> t_end;
    if (options.duration_s) t_end = t0 + static_cast<long long>(std::llround(*options.duration_s * 1e9));
    long long tick = 0;
    long long slow_scrapes = 0, quiet_skipped = 0;
    prom::NameFilter read_names;  // what a row reads: the rest of each scrape is checked, not kept
    if (engine) read_names = series_sample_names(*engine);
    while (!stop.load() && (!t_end || clock.mono_ns() < *t_end)) {
        try {
            Snapshot snap = scrape(base_url);
            prom::Metrics read;
            const prom::Metrics* m = &read;
            if (!engine) {  // one server: decided once, from every name of its first answer
                m = &snap.metrics();
                const Engine* found = named_by(m->names());
                engine = found ? found : &vllm();
                read_names = series_sample_names(*engine);
            } else {
                read = snap.metrics_only(read_names);
            }
            Json row = series_sample(*m, *engine, snap.t_wall, snap.t_mono_ns);
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
                note(
                    fmt::format("scrape finished {:.3f} s after it was due, longer than the {:g} s interval: "
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

std::vector<WatchReport> watch_all(const std::vector<WatchTarget>& targets, const WatchOptions& options,
                                   const std::atomic<bool>& stop, const ScrapeFn& scrape, const NoteFn& note,
                                   const WatchClock& clock) {
    WatchOptions shared = options;
    shared.start_mono_ns = options.start_mono_ns.value_or(clock.mono_ns());
    std::mutex note_mu;
    std::vector<WatchReport> reports(targets.size());
    std::vector<std::exception_ptr> errors(targets.size());  // a bad address: thrown here, after the join
    std::vector<std::thread> threads;
    threads.reserve(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
        threads.emplace_back([&, i] {
            try {
                const WatchTarget& t = targets[i];
                const std::string shown = util::normalise_base_url(t.base_url);
                NoteFn noted;
                if (note)
                    noted = [&note, &note_mu, shown](const std::string& line) {
                        std::lock_guard lock(note_mu);
                        note(shown + ": " + line);
                    };
                reports[i] = watch(t.base_url, *t.out, shared, stop, scrape, noted, t.engine, clock);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    for (auto& th : threads) th.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    return reports;
}

std::string replica_series_name(const std::string& base_url) {
    const util::BaseUrl where = util::parse_base_url(base_url);
    std::string name = fmt::format("{}_{}{}", where.host, where.port, where.prefix);
    for (char& c : name) {
        const bool kept =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (!kept) c = '_';
    }
    return name + ".series.jsonl";
}

}  // namespace inferlint::run
