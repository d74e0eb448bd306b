// A long recording read for the report in one pass: the digest keeps a fixed number of
// readings, and the sums it keeps over every reading equal those of the whole recording.
#include "report_inputs.hpp"
#include "support.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/parse/series_digest.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace inferlint;

namespace {

// A run on 52 blocks, waves of requests, a preemption every 97 readings; every 5000th
// reading a spike of 40 running that thinning must keep.
fs::path digest_recording(const std::string& name, long long samples) {
    static const fs::path dir = testsupport::scratch_dir("digest-test");
    std::string text = python_json_line(series_header(vllm(), "http://127.0.0.1:8000", 0.25)) + "\n";
    double generated = 0, preempted = 0;
    for (long long i = 0; i < samples; ++i) {
        long long phase = i % 400;
        double running = phase < 20 ? 0.0 : static_cast<double>(std::min<long long>(10, 4 + phase / 60));
        if (i % 5000 == 4999) running = 40;
        if (phase % 97 == 0) preempted += 1;
        generated += running;
        text += fmt::format(R"({{"t_wall": {}, "t_mono_ns": {}, "running": {}, "waiting": {}, "kv_usage": {}, )"
                            R"("preemptions": {}, "generation_tokens": {}}})",
                            1790470252.25 + 0.25 * double(i), 1000 + i * 250000000LL, running, 32 - running,
                            double(std::min<long long>(52, phase / 8)) / 52.0, preempted, generated);
        text += "\n";
    }
    auto p = dir / name;
    util::write_file(p, text);
    return p;
}

}  // namespace

TEST_CASE("series digest: a short recording is read whole, as read_series reads it", "[series][digest]") {
    auto p = digest_recording("short.series.jsonl", 500);
    ChartSeries got = read_series_for_charts(p, kChartExactLimit, kChartDigestColumns);
    CHECK_FALSE(got.series.digest);
    CHECK(got.series.samples.size() == 500);
    CHECK(got.summary.stats.samples == 500);
    CHECK(got.series.samples[42].running == read_series(p).samples[42].running);
    fs::remove(p);
}

TEST_CASE("series digest: a long recording keeps few readings and every sum", "[series][digest]") {
    const long long n = 60000;  // 750 preemption rises: more than the 580 kept one by one
    auto p = digest_recording("long.series.jsonl", n);
    ChartSeries got = read_series_for_charts(p, 10000, kChartDigestColumns);
    REQUIRE(got.series.digest);
    const SeriesDigest& d = *got.series.digest;
    Series whole = read_series(p);
    REQUIRE(whole.samples.size() == std::size_t(n));
    CHECK(d.samples() == n);
    CHECK(d.all_mono());
    // a fixed size: the first, last, lowest and highest of four lines per column at most
    CHECK(got.series.samples.size() <= kChartDigestColumns * 10);
    CHECK(got.series.samples.size() > kChartDigestColumns);
    // every spike to 40 running survives, and the checks' summary is the streaming one's
    CHECK(got.series.peak_running() == 40.0);
    auto spikes = std::count_if(got.series.samples.begin(), got.series.samples.end(),
                                [](const auto& s) { return s.running == 40.0; });
    CHECK(spikes == n / 5000);
    CHECK(got.summary.stats.samples == n);
    CHECK(got.summary.stats.peak_running == summarize_series_file(p).stats.peak_running);
    CHECK(got.summary.stats.kv_levels() == summarize(whole).stats.kv_levels());
    // time at each running level, over every pair of readings
    std::map<long long, double> spent;
    for (std::size_t i = 0; i + 1 < whole.samples.size(); ++i)
        if (*whole.samples[i].running != 0)
            spent[static_cast<long long>(*whole.samples[i].running)] +=
                double(*whole.samples[i + 1].t_mono_ns - *whole.samples[i].t_mono_ns) / 1e9;
    REQUIRE(d.level_s().size() == spent.size());
    for (const auto& [level, s] : spent) CHECK(d.level_s().at(level).mono == Approx(s).epsilon(1e-9));
    // preemptions: more rises than markers, so counted per column; none lost
    CHECK_FALSE(d.preemptions());
    long long total = 0;
    for (const auto& st : d.preemptions_per_stretch()) total += st.total;
    CHECK(total == static_cast<long long>(*whole.samples.back().preemptions - *whole.samples.front().preemptions));
    fs::remove(p);
}

TEST_CASE("series digest: the report draws a long recording from it", "[series][digest][report]") {
    auto p = digest_recording("page.series.jsonl", 30000);
    run::RunFileSet files;
    files.series = p;
    auto loaded = run::load_run(files, nullptr);
    REQUIRE(loaded);
    REQUIRE(loaded->series->digest);
    checks::RunEvidence ev = loaded->evidence;
    checks::RunVerdicts verdicts = checks::check_run(ev);
    report::PageInfo page{std::string("digest"), "2026-01-01 00:00 UTC", {}};
    auto rep = report::build_report(std::move(ev), std::move(verdicts), std::move(loaded->series), std::nullopt,
                                    std::move(page));
    std::string html = report::render_report_html(rep);
    CHECK(html.find("of the 30,000 readings") != std::string::npos);
    CHECK(html.find("id=\"fig-levels\"") != std::string::npos);
    CHECK(html.find("id=\"fig-tput\"") != std::string::npos);
    CHECK(html.size() < 3'000'000);
    fs::remove(p);
}
