// Where a watch reading's timing error comes from: runs run::watch on the server at URL as
// `inferlint watch` does (the same schedule, clock, scraper and kept connection), and times
// each scrape from outside: how late it started after its tick (watch's own schedule: the
// sleep and the wake-up), and how long the server took to answer. A reading's time is the
// midpoint of its request, so what the answer time varies by moves it by half that, which
// no schedule takes back. bench/watch.sh runs it beside `inferlint watch`. Prints figures;
// never fails on them (timing is no test).
//
// usage: watch_timing URL [INTERVAL_S] [DURATION_S]
#include "inferlint/core/engines.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using namespace inferlint;

namespace {

double pct(std::vector<double> xs, double p) {
    std::sort(xs.begin(), xs.end());
    return xs[std::min(xs.size() - 1, static_cast<std::size_t>(p / 100 * static_cast<double>(xs.size())))];
}

std::string spread(const std::vector<double>& ms) {
    return fmt::format("median {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms", pct(ms, 50), pct(ms, 99), pct(ms, 100));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        fmt::print(stderr, "usage: watch_timing URL [INTERVAL_S] [DURATION_S]\n");
        return 2;
    }
    const std::string url = argv[1];
    const double interval_s = argc > 2 ? std::atof(argv[2]) : 0.05;
    const double duration_s = argc > 3 ? std::atof(argv[3]) : 5.0;
    const auto interval_ns = static_cast<long long>(std::llround(interval_s * 1e9));

    run::Scraper scraper(run::kept_alive_getter());
    const run::WatchClock clock = run::system_watch_clock();
    std::vector<long long> starts, ends;
    auto scrape = [&](const std::string& u) {
        starts.push_back(clock.mono_ns());
        Snapshot s = scraper.scrape(u);
        ends.push_back(clock.mono_ns());
        return s;
    };
    std::ostringstream out;
    std::atomic<bool> stop{false};
    const long long t0 = clock.mono_ns();
    run::watch(url, out, {.interval_s = interval_s, .duration_s = duration_s, .start_mono_ns = t0}, stop, scrape,
               nullptr, &vllm(), clock);
    if (starts.empty()) {
        fmt::print("watch_timing: no scrape of {} answered\n", url);
        return 1;
    }
    std::vector<double> late_ms, answer_ms;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const long long tick = (starts[i] - t0) / interval_ns;  // a scrape starts at or after its tick
        late_ms.push_back(static_cast<double>(starts[i] - (t0 + tick * interval_ns)) / 1e6);
        answer_ms.push_back(static_cast<double>(ends[i] - starts[i]) / 1e6);
    }
    fmt::print("  watch_timing, {} scrapes: start after its tick {}\n", starts.size(), spread(late_ms));
    fmt::print("  the server's answer time: {}\n", spread(answer_ms));
    return 0;
}
