#include "support.hpp"

#include "inferlint/parse/prom.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name, const std::string& text) {
    static const fs::path dir = testsupport::scratch_dir("series-test");
    auto p = dir / name;
    util::write_file(p, text);
    return p;
}

const char* kSeriesHeader = R"({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000", "interval_s": 0.25})";

std::string input_error(const fs::path& p) {
    try {
        read_series(p);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("reads the vLLM 0.28 live recording", "[series][parse][shared]") {
    REQUIRE_REFERENCE(root);
    Series s = read_series(root / "vllm-0.28" / "live" / "run.series.jsonl");
    CHECK(s.samples.size() == 365);
    CHECK(s.skipped_lines == 0);
    CHECK(s.header["url"] == "http://127.0.0.1:8000");
    CHECK(s.header["interval_s"] == 0.25);
    CHECK_FALSE(s.engine_key);
    CHECK(s.named_engine() == nullptr);
    CHECK(s.engine().key == "vllm");
    const auto& second = s.samples.at(1);
    CHECK(second.t_wall == 1790470252.496347);
    CHECK(second.t_mono_ns == 208909370229LL);
    CHECK(second.running == 10.0);
    CHECK(second.waiting == 22.0);
    CHECK(second.kv_usage == 0.9523809523809523);
    CHECK_FALSE(second.paused);
    REQUIRE(s.peak_running());
    CHECK(*s.peak_running() == 10.0);
}

TEST_CASE("a header names the engine; gauges it lacks are absent, not 0", "[series][parse][shared]") {
    REQUIRE_REFERENCE(root);
    Series s = read_series(root / "trtllm-1.3" / "pauses" / "run.series.jsonl");
    REQUIRE(s.engine_key);
    CHECK(*s.engine_key == "trtllm");
    CHECK(s.engine().key == "trtllm");
    CHECK(s.samples.front().paused == 0.0);
    CHECK_FALSE(s.samples.front().preemptions);
    Series old = read_series(root / "vllm-0.28" / "series" / "blocks.series.jsonl");
    CHECK_FALSE(old.samples.front().t_mono_ns);  // written as null by an earlier recorder
}

TEST_CASE("streaming summary and in-memory summary agree", "[series][parse][shared]") {
    REQUIRE_REFERENCE(root);
    auto path = root / "vllm-0.28" / "live" / "run.series.jsonl";
    SeriesSummary a = summarize_series_file(path);
    SeriesSummary b = summarize(read_series(path));
    CHECK(a.stats.samples == 365);
    CHECK(a.stats.samples == b.stats.samples);
    CHECK(a.stats.peak_running == 10.0);
    CHECK(a.stats.peak_in_flight == 32.0);
    CHECK(a.stats.kv_levels().size() == 17);
    CHECK(a.stats.kv_levels() == b.stats.kv_levels());
    CHECK(a.stats.busy_samples == b.stats.busy_samples);
    CHECK(a.stats.busy().size() == b.stats.busy().size());
    REQUIRE(a.stats.fullest);
    CHECK(a.stats.fullest->kv_usage <= 1.0);
}

TEST_CASE("a run killed mid-write keeps what it recorded", "[series][parse]") {
    std::string text = std::string(kSeriesHeader) + "\n" +
                       R"({"t_wall": 1.5, "t_mono_ns": 10, "running": 2.0, "waiting": 0.0, "kv_usage": 0.5})" + "\n" +
                       R"({"t_wall": 2.0, "t_mono_ns": 20, "running": 3.0, "waiting": null, "kv_usage": 0.75})" + "\n" +
                       R"({"t_wall": 2.5, "t_mono_ns": 30, "runn)";
    auto p = temp_file("killed.series.jsonl", text);
    Series s = read_series(p);
    CHECK(s.samples.size() == 2);
    CHECK(s.skipped_lines == 1);
    CHECK_FALSE(s.samples[1].waiting);
    SeriesSummary sum = summarize_series_file(p);
    CHECK(sum.skipped_lines == 1);
    CHECK(sum.first_skipped_lineno == 4);
    CHECK(sum.stats.peak_in_flight == 2.0);  // the sample without waiting is not in flight
}

TEST_CASE("bad input is one error naming the file", "[series][parse]") {
    auto dir = temp_file("dummy", "x").parent_path();
    CHECK_THAT(input_error(dir / "missing.jsonl"), Catch::Contains("missing.jsonl: no such file"));
    CHECK_THAT(input_error(temp_file("empty.jsonl", "")), Catch::Contains("empty.jsonl: empty file"));
    CHECK_THAT(input_error(temp_file("blank.jsonl", "\n  \n")), Catch::Contains("blank.jsonl: empty file"));
    CHECK_THAT(input_error(dir), Catch::Contains("is a folder"));
    CHECK_THAT(input_error(temp_file("junk.bin", std::string("\x7f"
                                                             "ELF\0\0\x01\x02",
                                                             8))),
               Catch::Contains("junk.bin: binary data"));
    // a snapshot is JSON too, but not a recording
    CHECK_THAT(input_error(temp_file("snap.json", R"({"schema": "inferlint.snapshot/1", "url": "u"})")),
               Catch::Contains("snap.json: line 1: schema \"inferlint.snapshot/1\""));
    CHECK_THAT(input_error(temp_file("indented.json", "{\n \"schema\": \"inferlint.snapshot/1\"\n}\n")),
               Catch::Contains("indented.json: not a series recording"));
    CHECK_THAT(input_error(temp_file("prom.txt", "# HELP x\nx 1\n")), Catch::Contains("not a series recording"));
    CHECK_THAT(input_error(temp_file("types.jsonl",
                                     std::string(kSeriesHeader) + "\n{\"t_wall\": 1.0, \"running\": \"ten\"}\n")),
               Catch::Contains("types.jsonl: line 2: \"running\" is not a number"));
    CHECK_THAT(input_error(temp_file("nowall.jsonl", std::string(kSeriesHeader) + "\n{\"running\": 1.0}\n")),
               Catch::Contains("nowall.jsonl: line 2:"));
    CHECK_THAT(
        input_error(temp_file("list.jsonl", std::string(kSeriesHeader) + "\n{\"t_wall\": [1], \"running\": 1}\n")),
        Catch::Contains("line 2: \"t_wall\" is not a number"));
}

TEST_CASE("a 50 MB single line is refused without reading it whole", "[series][parse]") {
    std::string big(50u << 20, 'a');
    auto p = temp_file("big.jsonl", std::string(kSeriesHeader) + "\n{\"t_wall\": 1, \"x\": \"" + big + "\"}\n");
    CHECK_THAT(input_error(p), Catch::Contains("big.jsonl: line 2 is over"));
    auto q = temp_file("bignl.jsonl", big);
    CHECK_THAT(input_error(q), Catch::Contains("bignl.jsonl: line 1 is over"));
    std::string text = std::string(kSeriesHeader) + "\n" + big;
    CHECK_THROWS_AS(series_from_text(text, "mem"), InputError);
    fs::remove(p);
    fs::remove(q);
}

TEST_CASE("the fast path and nlohmann read a line the same", "[series][parse]") {
    auto fast =
        parse_sample_line(R"({"t_wall": 12.5, "t_mono_ns": 7, "running": 3.0, "kv_usage": 1e-3, "waiting": null})");
    // An extra string field sends the line through nlohmann; the values must not change.
    auto slow = parse_sample_line(
        R"({"t_wall": 12.5, "t_mono_ns": 7, "running": 3.0, "kv_usage": 1e-3, "waiting": null, "note": "x\"y"})");
    REQUIRE(fast);
    REQUIRE(slow);
    CHECK(fast->t_wall == slow->t_wall);
    CHECK(fast->t_mono_ns == slow->t_mono_ns);
    CHECK(fast->running == slow->running);
    CHECK(fast->kv_usage == 0.001);
    CHECK(slow->kv_usage == 0.001);
    CHECK_FALSE(fast->waiting);
    CHECK_FALSE(slow->waiting);
    // Python writes NaN for a NaN gauge; it reads back as NaN, not as a skipped line
    auto nan = parse_sample_line(R"({"t_wall": 1.0, "kv_usage": NaN, "running": Infinity})");
    REQUIRE(nan);
    CHECK(std::isnan(*nan->kv_usage));
    CHECK(std::isinf(*nan->running));
    CHECK_FALSE(parse_sample_line("[1, 2]"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1.0, "running": )"));
    // a float t_mono_ns is truncated as Python's int() does
    CHECK(parse_sample_line(R"({"t_wall": 1.0, "t_mono_ns": 12.9})")->t_mono_ns == 12);
}

TEST_CASE("python_json_line writes what json.dumps writes", "[series][write]") {
    CHECK(python_json_line(series_header(vllm(), "http://127.0.0.1:8000", 0.25)) ==
          R"({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000", "interval_s": 0.25, "engine": "vllm"})");
    CHECK(python_json_line(series_header(nullptr, "http://h:1", 1.0)) ==
          R"({"schema": "inferlint.series/1", "url": "http://h:1", "interval_s": 1.0})");
    Json floats = Json::array({0.0, -0.0, 1.0, 10.0, 0.1, 1e-05, 0.0001, 1e16, 1e15, 123456789012345680.0, 1.5e-300,
                               0.9523809523809523, 1790470252.238873});
    CHECK(python_json_line(floats) ==
          "[0.0, -0.0, 1.0, 10.0, 0.1, 1e-05, 0.0001, 1e+16, 1000000000000000.0, 1.2345678901234568e+17, "
          "1.5e-300, 0.9523809523809523, 1790470252.238873]");
    Json odd = {{"n", nullptr},       {"b", true},          {"i", -3}, {"s", "a\"\\\n\t\x01é😀"}, {"nan", std::nan("")},
                {"e", Json::array()}, {"o", Json::object()}};
    CHECK(python_json_line(odd) ==
          R"({"n": null, "b": true, "i": -3, "s": "a\"\\\n\t\u0001\u00e9\ud83d\ude00", "nan": NaN, "e": [], "o": {}})");
}

TEST_CASE("every line of the recorded fixtures re-serialises byte for byte", "[series][write][shared]") {
    REQUIRE_REFERENCE(root);
    int lines = 0;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (entry.path().filename() != "run.series.jsonl") continue;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            Json doc = Json::parse(line);
            INFO(entry.path().string());
            REQUIRE(python_json_line(doc) == line);
            ++lines;
        }
    }
    CHECK(lines > 5000);
}

TEST_CASE("a scrape becomes a sample row, absent series as null", "[series][write]") {
    auto m = prom::parse_or_throw(
        "vllm:num_requests_running{engine=\"0\"} 3\n"
        "vllm:num_requests_running{engine=\"1\"} 2\n"
        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n"
        "vllm:num_preemptions_total{engine=\"0\"} 0\n",
        "test");
    Json row = series_sample(m, vllm(), 1790470252.2388734, 208651898175LL);
    CHECK(python_json_line(row) ==
          R"({"t_wall": 1790470252.238873, "t_mono_ns": 208651898175, "running": 5.0, "waiting": null, )"
          R"("kv_usage": 0.5, "preemptions": 0.0, "generation_tokens": null, "prompt_tokens": null})");
    // written, then read back: the same sample
    auto back = parse_sample_line(python_json_line(row));
    REQUIRE(back);
    CHECK(back->running == 5.0);
    CHECK_FALSE(back->waiting);
    CHECK(back->t_mono_ns == 208651898175LL);
    // SGLang exports its retraction counter only after the first one; its witness says 0
    auto sg = prom::parse_or_throw("sglang:num_running_reqs 1\nsglang:num_retracted_reqs 0\n", "test");
    Json srow = series_sample(sg, sglang(), 1.0, std::nullopt);
    CHECK(srow["preemptions"] == 0.0);
    CHECK(srow["t_mono_ns"].is_null());
    auto bare = prom::parse_or_throw("sglang:num_running_reqs 1\n", "test");
    CHECK(series_sample(bare, sglang(), 1.0, 5)["preemptions"].is_null());
    // TensorRT-LLM counts no preemptions: the field is not written at all
    CHECK_FALSE(series_sample(bare, trtllm(), 1.0, 5).contains("preemptions"));
    CHECK(series_sample(bare, trtllm(), 1.0, 5).contains("paused"));
}
