// T21 on the real load-tool files in ../shared/loadtools (their per-request times, where they
// have them), on made-up files (tests/fixtures/t21) and one-change mutations of them, on bad
// per-request times; T8's second witness on an engine whose gauge lags.
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t21_streams_vs_running.hpp"
#include "inferlint/parse/load_result.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

using namespace inferlint;
using namespace inferlint::checks;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

#define REQUIRE_T21_LOADTOOLS(var)                                                                   \
    const fs::path var = testsupport::loadtools_dir();                                               \
    if (!fs::is_directory(var))                                                                      \
    FAIL("needs " << var.string()                                                                    \
                  << ", which is absent: ctest skips the [shared] test cases there; by hand, leave " \
                     "them out with ~[shared]")

fs::path t21_fixture(const char* name) { return testsupport::own_fixtures() / "t21" / name; }

std::string t21_text(const char* name) { return util::read_file(t21_fixture(name)); }

std::string t21_replace(std::string text, const std::string& from, const std::string& to, int times = 1) {
    for (int i = 0; i < times; ++i) {
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    return text;
}

SeriesSummary t21_series(const std::string& text) { return summarize(series_from_text(text, "series.jsonl")); }

LoadResult t21_load(const std::string& text) { return parse_load_result(text, "load.json"); }

std::vector<RunningReading> t21_readings(const std::string& text) {
    std::vector<RunningReading> out;
    scan_series_text(text, "series.jsonl", [&](const SeriesSample& s) {
        if (s.running)
            out.push_back({s.t_wall, s.t_mono_ns ? std::optional(*s.t_mono_ns / 1e9) : std::nullopt, *s.running});
    });
    return out;
}

// T21 as the suite gives it: the summary and each reading.
CheckResult t21_check(const LoadResult& load, const std::string& series_text) {
    const SeriesSummary s = t21_series(series_text);
    const std::vector<RunningReading> readings = t21_readings(series_text);
    return check_streams_vs_running(&load, &s, &readings);
}

}  // namespace

TEST_CASE("T21: 32 running by the gauge, at most 24 streaming by the client, is a warning", "[T21]") {
    const LoadResult load = t21_load(t21_text("waiting-for-memory.load.json"));
    const ClientStreams c = client_streams(load);
    CHECK(c.timed == 32);
    CHECK(c.streamed == 32);
    CHECK(c.in_flight_peak == 32);
    CHECK(c.streaming_peak == 24);
    const CheckResult r = t21_check(load, t21_text("running-32.series.jsonl"));
    INFO(r.message);
    CHECK(r.status == Status::warn);
    CHECK_THAT(r.message, Contains("the server reported 32 running, but at most 24 received tokens at once (24 "
                                   "within 1 s of that reading; 32 in flight at most, over 32 timed requests)"));
    CHECK(r.evidence["client_streaming_peak"] == 24);
    CHECK(r.evidence["client_in_flight_peak"] == 32);
    CHECK(r.evidence["slack_s"] == 1.0);
    CHECK(r.evidence["lined_up"] == true);
    CHECK(r.evidence["readings_during_load"] == 21);
    CHECK(r.evidence["streams_near_it"] == 24);
}

TEST_CASE("T21: one change flips the verdict", "[T21]") {
    const std::string load_text = t21_text("waiting-for-memory.load.json");
    const std::string series_text = t21_text("running-32.series.jsonl");
    const LoadResult load = t21_load(load_text);

    SECTION("a gauge that says 24 passes") {
        const CheckResult r = t21_check(load, t21_replace(series_text, "\"running\": 32", "\"running\": 24", 11));
        CHECK(r.status == Status::pass);
        CHECK_THAT(r.message, Contains("the server's running gauge (peak 24) is no more than the client's streams "
                                       "explain (at most 24 received tokens at once; every reading during the load "
                                       "within 1 s, over 32 timed requests)"));
    }
    SECTION("one reading of 25 among 24s warns") {
        std::string t = t21_replace(series_text, "\"running\": 32", "\"running\": 24", 11);
        CHECK(t21_check(load, t21_replace(t, "\"running\": 24", "\"running\": 25")).status == Status::warn);
    }
    SECTION("the waiting 8 getting their first token with the others passes") {
        const LoadResult all =
            t21_load(t21_replace(load_text, "\"first_token_s\": 110.5", "\"first_token_s\": 100.5", 8));
        CHECK(client_streams(all).streaming_peak == 32);
        CHECK(t21_check(all, series_text).status == Status::pass);
    }
    SECTION("a gauge sampled every 60 s cannot place its readings: the streams near each explain them") {
        const CheckResult r = t21_check(load, t21_replace(series_text, "\"interval_s\": 1.0", "\"interval_s\": 60.0"));
        CHECK(r.status == Status::pass);
        CHECK(r.evidence["slack_s"] == 60.0);
    }
    SECTION("clocks that cannot be lined up: the peaks, each stream counted from the slack before it") {
        // The recording's monotonic clock another machine's: no reading falls within the load.
        std::string t = series_text;
        for (int k = 0; k <= 20; ++k)
            t = t21_replace(t, fmt::format("\"t_mono_ns\": {}", (100 + k) * 1000000000LL),
                            fmt::format("\"t_mono_ns\": {}", (900 + k) * 1000000000LL));
        const CheckResult r = t21_check(load, t);
        CHECK(r.evidence["lined_up"] == false);
        // The 8 waiting began 0.5 s after the 24 ended: within the slack of 1 s, so no warning.
        CHECK(r.status == Status::pass);
        CHECK_THAT(r.message, Contains("the recording's clock could not be lined up with the client's"));
        // Two seconds apart, they can no longer be the same 32.
        const LoadResult later =
            t21_load(t21_replace(load_text, "\"first_token_s\": 110.5", "\"first_token_s\": 112.0", 8));
        CHECK(t21_check(later, t).status == Status::warn);
    }
}

TEST_CASE("T21: Can't tell without per-request times or without the recording, saying how to get them", "[T21]") {
    const LoadResult load = t21_load(t21_text("waiting-for-memory.load.json"));
    const std::string series_text = t21_text("running-32.series.jsonl");
    const SeriesSummary series = t21_series(series_text);

    const CheckResult no_series = check_streams_vs_running(&load, nullptr);
    CHECK(no_series.status == Status::unknown);
    CHECK_THAT(no_series.message, Contains("at most 24 requests received tokens at once, but there is no recording"));
    CHECK_THAT(no_series.message, Contains("xray records one"));

    LoadResult untimed = load;
    for (auto& q : untimed.requests) q.start_s.reset(), q.first_token_s.reset(), q.end_s.reset();
    const CheckResult no_times = check_streams_vs_running(&untimed, &series);
    CHECK(no_times.status == Status::unknown);
    CHECK_THAT(no_times.message, Contains("no per-request start, first-token and end times"));
    CHECK_THAT(no_times.message, Contains("--save-detailed"));

    const CheckResult no_load = check_streams_vs_running(nullptr, &series);
    CHECK(no_load.status == Status::unknown);
    CHECK_THAT(no_load.message, Contains("--save-detailed"));

    // A recording without the running gauge.
    const SeriesSummary no_gauge = t21_series(
        "{\"schema\": \"inferlint.series/1\", \"url\": \"u\", \"interval_s\": 1.0}\n{\"t_wall\": 1.0, \"waiting\": "
        "3}\n");
    const CheckResult r = check_streams_vs_running(&load, &no_gauge);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("no recording of the server's running gauge"));
}

TEST_CASE("T21: bad per-request times are Can't tell naming the request, or the reader's one-line error", "[T21]") {
    const std::string text = t21_text("waiting-for-memory.load.json");
    // The reader refuses what no clock gives and ends before starts: InputError, exit 2.
    CHECK_THROWS_AS(t21_load(t21_replace(text, "\"end_s\": 110.0", "\"end_s\": 99.0")), InputError);
    CHECK_THROWS_WITH(t21_load(t21_replace(text, "\"end_s\": 110.0", "\"end_s\": 99.0")),
                      Contains("request 0: ends before it starts"));
    CHECK_THROWS_WITH(t21_load(t21_replace(text, "\"start_s\": 100.0", "\"start_s\": -5.0")),
                      Contains("not one a clock gives"));
    // NaN reads as absent (load_json's accept_nonfinite): the check names the request.
    const CheckResult nan = t21_check(t21_load(t21_replace(text, "\"start_s\": 100.0", "\"start_s\": NaN")),
                                      t21_text("running-32.series.jsonl"));
    CHECK(nan.status == Status::unknown);
    CHECK_THAT(nan.message, Contains("request 0 has a first token or an end but no start (null or NaN)"));
    const CheckResult nan_end = t21_check(t21_load(t21_replace(text, "\"end_s\": 120.0", "\"end_s\": NaN")),
                                          t21_text("running-32.series.jsonl"));
    CHECK(nan_end.status == Status::unknown);
    CHECK_THAT(nan_end.message, Contains("request 24 has a first token but no end (null or NaN)"));
    // What the readers let through (a first token after the end) is the check's to name.
    const LoadResult late = t21_load(t21_replace(text, "\"first_token_s\": 100.5", "\"first_token_s\": 115.0"));
    const CheckResult r = t21_check(late, t21_text("running-32.series.jsonl"));
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("request 0 has its first token after its end"));
    // Times built by the check (start + TTFT, start + latency) are held to the same.
    LoadResult built = t21_load(text);
    for (auto& q : built.requests) q.first_token_s.reset(), q.end_s.reset(), q.ttft_ms = 500.0, q.e2e_ms = 10000.0;
    CHECK(client_streams(built).streaming_peak == 32);
    built.requests[3].ttft_ms = 20000.0;
    const CheckResult b = t21_check(built, t21_text("running-32.series.jsonl"));
    CHECK(b.status == Status::unknown);
    CHECK_THAT(b.message, Contains("request 3 has its first token after its end"));
    CHECK(client_streaming_peak(&built) == std::nullopt);
}

TEST_CASE("T21: vllm bench serve --save-detailed's start_times give each request's span", "[T21][loadtools]") {
    const std::string doc = R"({"completed": 2, "failed": 1, "total_input_tokens": 20, "total_output_tokens": 8,
        "duration": 3.0, "max_concurrency": 3, "num_prompts": 3,
        "input_lens": [10, 10, 10], "output_lens": [4, 4, 0],
        "ttfts": [0.5, 1.5, 0.0], "itls": [[0.1, 0.1, 0.1], [0.2, 0.2, 0.2], []],
        "start_times": [1000.0, 1000.2, 1000.1], "errors": ["", "", "boom"]})";
    const LoadResult r = t21_load(doc);
    REQUIRE(r.requests.size() == 3);
    CHECK(r.requests[0].start_s == 1000.0);
    REQUIRE(r.requests[0].e2e_ms);
    REQUIRE(r.requests[1].e2e_ms);
    CHECK(std::fabs(*r.requests[0].e2e_ms - 800.0) < 1e-6);
    CHECK(std::fabs(*r.requests[1].e2e_ms - 2100.0) < 1e-6);
    CHECK_FALSE(r.requests[2].e2e_ms);  // failed: no stream
    const ClientStreams c = client_streams(r);
    CHECK(c.timed == 2);
    CHECK(c.in_flight_peak == 2);
    CHECK(c.streaming_peak == 1);  // 1000.5-1000.8 and 1001.7-1002.3 never overlap
    // A list of another length is the reader's one-line error.
    const std::string shorter = t21_replace(doc, "[1000.0, 1000.2, 1000.1]", "[1000.0, 1000.2]");
    CHECK_THROWS_WITH(t21_load(shorter), Contains("per-request lists of different lengths"));
    CHECK_THROWS_WITH(t21_load(t21_replace(doc, "1000.2,", "-3.0,")), Contains("not one a clock gives"));
}

TEST_CASE("T21 on the real load-tool files: who has per-request times", "[T21][shared]") {
    REQUIRE_T21_LOADTOOLS(dir);
    const SeriesSummary series = t21_series(t21_text("running-32.series.jsonl"));

    // AIPerf's records of a real gpt-oss-20b run at concurrency 100: 11 cancelled before
    // they were sent, 89 with a start, a TTFT and a latency, all streaming at once.
    const LoadResult aiperf = load_load_result(dir / "aiperf" / "examples-artifacts-run1" / "profile_export.jsonl");
    ClientStreams a = client_streams(aiperf);
    CHECK(a.timed == 89);
    CHECK(a.in_flight_peak == 89);
    CHECK(a.streaming_peak == 89);
    const CheckResult ar = check_streams_vs_running(&aiperf, nullptr);
    CHECK(ar.status == Status::unknown);
    CHECK_THAT(ar.message, Contains("at most 89 requests received tokens at once, but there is no recording"));
    CHECK(check_streams_vs_running(&aiperf, &series).status == Status::pass);  // 32 running: no more than 89

    // GuideLLM v0.3's stripped file keeps one successful request with its three times.
    const LoadResult guide =
        load_load_result(dir / "guidellm" / "guidellm-unit-assets-benchmarks-stripped" / "benchmarks_stripped.json");
    ClientStreams g = client_streams(guide);
    CHECK(g.timed == 1);
    CHECK(g.streaming_peak == 1);
    CHECK(check_streams_vs_running(&guide, &series).status == Status::warn);  // 32 running, 1 stream

    // LLMPerf's individual responses have TTFT and latency but no start: Can't tell.
    const LoadResult llmperf =
        load_load_result(dir / "llmperf" / "ray-llmperf-leaderboard_individual" / "anyscale_7b.json");
    CHECK(client_streams(llmperf).timed == 0);
    const CheckResult lr = check_streams_vs_running(&llmperf, &series);
    CHECK(lr.status == Status::unknown);
    CHECK_THAT(lr.message, Contains("no per-request start, first-token and end times"));

    // vllm bench serve --save-result without --save-detailed: no per-request lists at all.
    for (const auto& e : fs::recursive_directory_iterator(dir / "vllm-bench-serve")) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || !name.starts_with("benchmark_")) continue;
        const LoadResult v = load_load_result(e.path());
        INFO(e.path());
        CHECK(v.requests.empty());
        CHECK(check_streams_vs_running(&v, &series).status == Status::unknown);
    }
}

TEST_CASE("T8: the client's streams are the second witness where the engine's gauge lags", "[T21][T8]") {
    SeriesStats stats;
    for (double running : {4.0, 20.0, 12.0}) stats.add(SeriesSample{.running = running});
    const Engine& trt = by_key("trtllm");
    const CheckResult gauge_only = check_concurrency_reached(stats, trt, 32);
    CHECK(gauge_only.status == Status::unknown);
    CHECK_FALSE(gauge_only.evidence.contains("witness"));

    const CheckResult reached = check_concurrency_reached(stats, trt, 32, nullptr, 32);
    CHECK(reached.status == Status::pass);
    CHECK(reached.evidence["witness"] == "client streams");
    CHECK_THAT(reached.message, Contains("reached 32 receiving tokens at once by the load tool's per-request times"));
    CHECK_THAT(reached.message, Contains("TensorRT-LLM's running gauge, which moves only when a request completes"));

    const CheckResult short_of = check_concurrency_reached(stats, trt, 32, nullptr, 24);
    CHECK(short_of.status == Status::unknown);
    CHECK(short_of.evidence["witness"] == "server gauge");
    CHECK_THAT(short_of.message, Contains("; the load tool's per-request times show at most 24 receiving tokens"));
    CHECK(short_of.message.starts_with(gauge_only.message));

    // The suite gives the witness only where the gauge lags: vLLM's T8 is the gauge's alone.
    RunEvidence ev;
    ev.series = t21_series(t21_text("running-32.series.jsonl"));
    ev.running = t21_readings(t21_text("running-32.series.jsonl"));
    ev.requested = Requested::of(40);
    ev.bench = BenchResult{};
    ev.bench->load = t21_load(t21_text("waiting-for-memory.load.json"));
    const RunVerdicts v = check_run(ev);
    REQUIRE(v.result(TripwireId::T8));
    CHECK(v.result(TripwireId::T8)->status == Status::fail);
    CHECK_FALSE(v.result(TripwireId::T8)->evidence.contains("witness"));
    REQUIRE(v.result(TripwireId::T21));
    CHECK(v.result(TripwireId::T21)->status == Status::warn);
}
