#include "sim_traps.hpp"
#include "support.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/error.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <future>
#include <thread>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

const char* kMetrics =
    "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n"
    "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 1.0\n"
    "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"
    "vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} 2.0\n"
    "vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} 100.0\n"
    "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 50.0\n";

// A clock that moves only when told: scrapes advance it by their cost, sleeps jump it.
struct WatchClock {
    long long now = 0;
    std::vector<long long> scrape_starts;
    run::WatchClock clock() {
        return run::WatchClock{
            .mono_ns = [this] { return now; },
            .sleep_until = [this](long long until, const std::atomic<bool>&) { now = std::max(now, until); }};
    }
};

Snapshot snap_of(const std::string& text, long long mono) {
    Snapshot s;
    s.url = "http://h:8000/metrics";
    s.text = text;
    s.t_wall = 1000.0 + static_cast<double>(mono) / 1e9;
    s.t_mono_ns = mono;
    s.latency_s = 0.001;
    return s;
}

std::vector<std::string> watch_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

constexpr long long ms = 1'000'000;

}  // namespace

TEST_CASE("watch keeps a fixed schedule and skips the ticks a slow scrape overran", "[watch]") {
    WatchClock fc;
    int call = 0;
    auto scrape = [&](const std::string&) {
        fc.scrape_starts.push_back(fc.now);
        long long cost = ++call == 3 ? 250 * ms : 10 * ms;  // the third scrape takes 2.5 intervals
        fc.now += cost;
        return snap_of(kMetrics, fc.now);
    };
    std::vector<std::string> notes;
    std::ostringstream out;
    std::atomic<bool> stop{false};
    auto rep = run::watch(
        "h:8000", out, {.interval_s = 0.1, .duration_s = 1.0}, stop, scrape,
        [&](const std::string& l) { notes.push_back(l); }, &vllm(), fc.clock());
    std::vector<long long> expected = {0, 100 * ms, 200 * ms, 500 * ms, 600 * ms, 700 * ms, 800 * ms, 900 * ms};
    CHECK(fc.scrape_starts == expected);
    CHECK(rep.samples == 8);
    CHECK(rep.skipped_ticks == 2);
    CHECK(rep.gaps == 0);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "scrape finished 0.250 s after it was due, longer than the 0.1 s interval: skipped 2 readings");
    auto lines = watch_lines(out.str());
    REQUIRE(lines.size() == 9);
    CHECK(lines[0] ==
          R"({"schema": "inferlint.series/1", "url": "http://h:8000", "interval_s": 0.1, "engine": "vllm"})");
    auto row = Json::parse(lines[1]);
    CHECK(row["running"] == 3.0);
    CHECK(row["waiting"] == 1.0);
    CHECK(row["kv_usage"] == 0.25);
    CHECK(row["preemptions"] == 2.0);
    CHECK(row["t_mono_ns"] == 10 * ms);
}

TEST_CASE("a failed scrape is a gap with a note, never a row of zeros", "[watch]") {
    WatchClock fc;
    int call = 0;
    auto scrape = [&](const std::string&) -> Snapshot {
        fc.now += ms;
        ++call;
        if (call == 2 || call == 3) throw InputError("cannot connect to http://h:8000/metrics: nothing answers there");
        if (call == 4) return snap_of("<html>oops</html>", fc.now);  // junk: a gap too
        return snap_of(kMetrics, fc.now);
    };
    std::vector<std::string> notes;
    std::ostringstream out;
    std::atomic<bool> stop{false};
    auto rep = run::watch(
        "h:8000", out, {.interval_s = 0.1, .duration_s = 0.55}, stop, scrape,
        [&](const std::string& l) { notes.push_back(l); }, nullptr, fc.clock());
    CHECK(call == 6);
    CHECK(rep.samples == 3);
    CHECK(rep.gaps == 3);
    REQUIRE(notes.size() == 3);
    CHECK(notes[0] == "scrape failed: cannot connect to http://h:8000/metrics: nothing answers there");
    CHECK(notes[1] == "scrape failed 1 more time the same way");
    CHECK(notes[2].starts_with("scrape failed: "));
    auto lines = watch_lines(out.str());
    REQUIRE(lines.size() == 4);                        // header + 3 samples
    CHECK(Json::parse(lines[0])["engine"] == "vllm");  // told from the first good scrape
    for (std::size_t i = 1; i < lines.size(); ++i) CHECK(Json::parse(lines[i])["running"] == 3.0);
    // The file reads back as a series.
    auto series = series_from_text(out.str(), "mem");
    CHECK(series.samples.size() == 3);
}

TEST_CASE("a server that never answered still leaves a header saying what the file is", "[watch]") {
    WatchClock fc;
    auto scrape = [&](const std::string&) -> Snapshot {
        fc.now += ms;
        throw InputError("down");
    };
    std::ostringstream out;
    std::atomic<bool> stop{false};
    auto rep =
        run::watch("h:8000", out, {.interval_s = 0.5, .duration_s = 1.0}, stop, scrape, nullptr, nullptr, fc.clock());
    CHECK(rep.samples == 0);
    CHECK(rep.gaps == 2);
    auto lines = watch_lines(out.str());
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == R"({"schema": "inferlint.series/1", "url": "http://h:8000", "interval_s": 0.5})");
}

// The real clock's schedule (a 0.05 s interval kept however long the scrape) is measured
// by bench/watch_timing, not asserted here: a loaded machine is not a failure of watch.

TEST_CASE("a stop that comes while watch sleeps ends the recording there", "[watch]") {
    std::atomic<bool> stop{false};
    long long now = 0;
    int sleeps = 0;
    run::WatchClock clock{.mono_ns = [&] { return now; },
                          .sleep_until =
                              [&](long long, const std::atomic<bool>&) {
                                  ++sleeps;
                                  stop = true;  // the stop arrives during the first sleep, long before its deadline
                              }};
    std::ostringstream out;
    auto rep = run::watch(
        "h:8000", out, {.interval_s = 5.0}, stop, [](const std::string&) { return snap_of(kMetrics, 0); }, nullptr,
        &vllm(), clock);
    CHECK(rep.samples == 1);
    CHECK(sleeps == 1);
}

TEST_CASE("the real clock's sleep ends when stop is set, not at its deadline", "[watch]") {
    std::atomic<bool> stop{false};
    const run::WatchClock clock = run::system_watch_clock();
    const long long deadline = clock.mono_ns() + 120'000'000'000LL;  // two minutes: the test's ceiling
    auto slept = std::async(std::launch::async, [&] { clock.sleep_until(deadline, stop); });
    stop = true;
    REQUIRE(slept.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    CHECK(clock.mono_ns() < deadline);
}

namespace {

// A fake clock of one's own for each thread (watch_all scrapes each target on a thread of
// its own): every timeline starts at 0, scrapes advance it by their cost, sleeps jump it.
thread_local long long watch_thread_now = 0;

run::WatchClock thread_clock() {
    return run::WatchClock{
        .mono_ns = [] { return watch_thread_now; },
        .sleep_until = [](long long until,
                          const std::atomic<bool>&) { watch_thread_now = std::max(watch_thread_now, until); }};
}

}  // namespace

TEST_CASE("several replicas share one schedule; one that fails has gaps and the others go on", "[watch]") {
    const std::vector<std::string> urls = {"http://a:8000", "http://b:8000"};
    std::map<std::string, std::vector<long long>> starts = {{urls[0], {}}, {urls[1], {}}};  // each thread its own
    std::map<std::string, int> calls = {{urls[0], 0}, {urls[1], 0}};
    auto scrape = [&](const std::string& url) -> Snapshot {
        starts.at(url).push_back(watch_thread_now);
        watch_thread_now += 10 * ms;
        const int call = ++calls.at(url);
        if (url == urls[1] && (call == 3 || call == 4)) throw InputError("cannot connect to " + url + "/metrics");
        long long cost = url == urls[0] && call == 6 ? 240 * ms : 0;  // a's sixth scrape overruns two ticks
        watch_thread_now += cost;
        return snap_of(kMetrics, watch_thread_now);
    };
    std::ostringstream out_a, out_b;
    std::vector<std::string> notes;
    std::atomic<bool> stop{false};
    auto reports = run::watch_all(
        {{.base_url = urls[0], .out = &out_a, .engine = &vllm()},
         {.base_url = urls[1], .out = &out_b, .engine = nullptr}},
        {.interval_s = 0.1, .duration_s = 1.0}, stop, scrape, [&](const std::string& l) { notes.push_back(l); },
        thread_clock());
    REQUIRE(reports.size() == 2);
    // Both on the ticks of one start: b on every one, a on all but the two it overran.
    std::vector<long long> every;
    for (long long k = 0; k < 10; ++k) every.push_back(k * 100 * ms);
    CHECK(starts[urls[1]] == every);
    std::vector<long long> a_ticks = {0, 100 * ms, 200 * ms, 300 * ms, 400 * ms, 500 * ms, 800 * ms, 900 * ms};
    CHECK(starts[urls[0]] == a_ticks);
    CHECK(reports[0].samples == 8);
    CHECK(reports[0].skipped_ticks == 2);
    CHECK(reports[0].gaps == 0);
    CHECK(reports[1].samples == 8);
    CHECK(reports[1].gaps == 2);
    CHECK(reports[1].skipped_ticks == 0);
    // Each note names its replica.
    std::sort(notes.begin(), notes.end());
    REQUIRE(notes.size() == 3);
    CHECK(notes[0] ==
          "http://a:8000: scrape finished 0.250 s after it was due, longer than the 0.1 s interval: "
          "skipped 2 readings");
    CHECK(notes[1] == "http://b:8000: scrape failed 1 more time the same way");
    CHECK(notes[2] == "http://b:8000: scrape failed: cannot connect to http://b:8000/metrics");
    // Each file is its replica's series; b's misses two readings (never zeros) at the ticks it failed.
    auto a = series_from_text(out_a.str(), "a");
    auto b = series_from_text(out_b.str(), "b");
    CHECK(a.header["url"] == "http://a:8000");
    CHECK(b.header["url"] == "http://b:8000");
    CHECK(b.engine_key == "vllm");
    REQUIRE(b.samples.size() == 8);
    std::vector<long long> b_times;
    for (const auto& s : b.samples) {
        CHECK(s.running == 3.0);
        b_times.push_back(s.t_mono_ns.value_or(-1));
    }
    CHECK(b_times ==
          std::vector<long long>{10 * ms, 110 * ms, 410 * ms, 510 * ms, 610 * ms, 710 * ms, 810 * ms, 910 * ms});
}

TEST_CASE("a replica's file is named by its host and port, and the path after them", "[watch]") {
    CHECK(run::replica_series_name("http://127.0.0.1:8000") == "127.0.0.1_8000.series.jsonl");
    CHECK(run::replica_series_name("10.0.0.5:8001/metrics") == "10.0.0.5_8001.series.jsonl");
    CHECK(run::replica_series_name("http://gw/replica-0") == "gw_80_replica-0.series.jsonl");
    CHECK(run::replica_series_name("https://vllm-0.bench.svc") == "vllm-0.bench.svc_443.series.jsonl");
    CHECK(run::replica_series_name("http://[::1]:8000") == "__1_8000.series.jsonl");
    CHECK_THROWS_AS(run::replica_series_name("ftp://h:1"), InputError);
}

TEST_CASE("watch on two simulator replicas: a file each, and one that dies leaves the other recording",
          "[sim][cli][watch]") {
    simtraps::TrapSim a("sim/Qwen3-8B", {});
    simtraps::TrapSim b("sim/Qwen3-8B", {"--sim-die-after-scrapes", "4"});  // watch's first look, then 3 readings
    testsupport::TempDir tmp("watch-fleet");
    const fs::path dir = tmp.path / "fleet";
    auto r = testsupport::run_cli(
        {"watch", a.url(), "--url", b.url(), "-o", dir.string(), "--interval", "0.05", "--duration", "1.0"});
    CHECK(r.rc == 0);
    const fs::path file_a = dir / ("127.0.0.1_" + std::to_string(a.port) + ".series.jsonl");
    const fs::path file_b = dir / ("127.0.0.1_" + std::to_string(b.port) + ".series.jsonl");
    Series sa = read_series(file_a);
    Series sb = read_series(file_b);
    CHECK(sa.header["url"] == a.url());
    CHECK(sb.header["url"] == b.url());
    CHECK(sa.engine_key == "vllm");
    CHECK(sb.engine_key == "vllm");
    // What a loaded machine cannot change: b answered at least 3 readings and then died (its
    // failed scrapes said), and a was read after b's last reading, so b's death did not end
    // a's recording. How many readings fit in the second is the machine's, not watch's.
    REQUIRE(sb.samples.size() >= 3);
    REQUIRE_FALSE(sa.samples.empty());
    CHECK(sa.samples.back().t_mono_ns.value_or(0) > sb.samples.back().t_mono_ns.value_or(0));
    CHECK(r.err.find(b.url() + ": scrape failed: ") != std::string::npos);
    CHECK(r.out == fmt::format("{} samples -> {}\n{} samples -> {}\n", sa.samples.size(), file_a.string(),
                               sb.samples.size(), file_b.string()));
    CHECK(simtraps::trap_wait_exit(b.pid, 30) == 128 + SIGKILL);
    b.pid = -1;
}
