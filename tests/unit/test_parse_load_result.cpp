// The load-result readers on the project's own small files (tests/fixtures/loadtools) and
// on bad input: each bad text is one line naming the file, never a result of zeros.
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/load_result.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

fs::path lr_fixture(const char* name) { return testsupport::own_fixtures() / "loadtools" / name; }

std::string lr_error_of(const std::string& text, const std::string& source = "result.json") {
    try {
        parse_load_result(text, source);
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.starts_with(source + ": "));
        CHECK(what.find('\n') == std::string::npos);
        CHECK(what.size() < 400);
        return what;
    }
    FAIL("no InputError for " << text.substr(0, 80));
    return "";
}

}  // namespace

TEST_CASE("load result: inferlint.load/1 from a home-made harness that counted chunks", "[loadresult]") {
    LoadResult r = load_load_result(lr_fixture("harness-chunks.load.json"));
    CHECK(r.tool == "my-harness");
    CHECK(r.completed == 4);
    CHECK(r.failed == 0);
    CHECK(r.output_tokens == 40);
    CHECK(r.output_counting == TokenCounting::stream_chunks);
    CHECK(r.prompts == PromptSharing::unique);
    CHECK(r.ttft_ms.p99 == 31.5);
    CHECK_FALSE(r.tpot_ms.mean.has_value());  // not stated: nullopt, never 0
    CHECK_FALSE(r.cancelled.has_value());
    REQUIRE(r.requests.size() == 4);
    CHECK(r.requests[3].first_token_s == 0.33);
    // Through BenchResult, as T15 and T18 read it.
    BenchResult b = load_bench_result(lr_fixture("harness-chunks.load.json"));
    CHECK(b.client == "my-harness");
    CHECK(b.completed == 4);
    CHECK(b.output_tokens == 40);
    REQUIRE(b.load.has_value());
    CHECK(b.load->output_counting == TokenCounting::stream_chunks);
}

TEST_CASE("load result: vllm bench serve with spec_decode_* and --save-detailed lists", "[loadresult]") {
    BenchResult b = load_bench_result(lr_fixture("vllm-detailed-spec.json"));
    CHECK(b.client == "vllm bench serve");
    CHECK(b.completed == 3);
    REQUIRE(b.load.has_value());
    const LoadResult& r = *b.load;
    CHECK(r.spec_accept_length == 2.5);
    CHECK(std::isinf(r.request_rate.value_or(0)));
    CHECK(r.concurrency == 3.0);
    REQUIRE(r.requests.size() == 3);
    CHECK(r.requests[0].stream_chunks == 4);  // three gaps, four chunks
    CHECK(r.stream_chunks == 12);             // for 24 output tokens: two per chunk
    CHECK(r.requests[1].ttft_ms == Approx(9.0));
    CHECK(r.itl_ms.mean == 12.5);
    CHECK(r.e2e_ms.p99 == 60.0);
}

TEST_CASE("load result: GuideLLM v2 told by content, whatever the file is called", "[loadresult]") {
    const std::string text = util::read_file(lr_fixture("guidellm-v2-small.json"));
    LoadResult r = parse_load_result(text, "bench.json");
    CHECK(r.tool == "guidellm");
    CHECK(r.completed == 8);
    CHECK(r.failed == 1);
    CHECK(r.output_tokens == 800);
    CHECK(r.stream_chunks == 320);
    CHECK(r.concurrency == 4.0);
    CHECK(r.output_counting == TokenCounting::server_usage);
    CHECK(r.tpot_ms.mean == 8.0);       // GuideLLM's inter_token_latency_ms
    CHECK(r.norm_tpot_ms.mean == 8.3);  // GuideLLM's time_per_output_token_ms (TTFT included)
    CHECK(r.e2e_ms.mean == Approx(830.0));
    BenchResult b = bench_from_load(r);
    CHECK(b.mean_tpot_ms == 8.0);
    CHECK(b.max_concurrency == 4);
    CHECK(b.request_throughput == Approx(0.8));
}

TEST_CASE("load result: bad input is one line naming the file", "[loadresult][badinput]") {
    const std::string harness = util::read_file(lr_fixture("harness-chunks.load.json"));
    CHECK_THAT(lr_error_of(harness.substr(0, harness.size() / 2)), Catch::Contains("JSON cut short"));
    CHECK_THAT(lr_error_of(std::string("\x7f"
                                       "ELF\x02\x01\x01\0\0\0",
                                       10)),
               Catch::Contains("binary"));
    CHECK_THAT(lr_error_of("Metric,Value\nRequest Count,64\n"), Catch::Contains("CSV"));
    CHECK_THAT(lr_error_of("model: m\nport: 8000\n"), Catch::Contains("YAML"));
    CHECK_THAT(lr_error_of("benchmarks:\n- type_: generative_benchmark\n"), Catch::Contains("without metrics"));
    CHECK_THAT(lr_error_of(R"({"hello": 1, "world": 2})"), Catch::Contains("hello, world"));
    CHECK_THAT(lr_error_of(""), Catch::Contains("empty"));
    // Per-request lists of different lengths.
    CHECK_THAT(lr_error_of(R"({"completed": 2, "total_output_tokens": 4, "endpoint_type": "openai",
                            "output_lens": [2, 2], "ttfts": [0.1]})"),
               Catch::Contains("different lengths"));
    // Negative latencies, in a summary and in a record.
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.load/1", "completed": 1, "output_tokens": 1,
                            "output_tokens_counted_by": "server_usage", "latency_ms": {"ttft": {"p99": -3}}})"),
               Catch::Contains("not a latency"));
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.load/1", "completed": 1, "output_tokens": 1,
                            "output_tokens_counted_by": "server_usage",
                            "requests": [{"start_s": 5, "end_s": 2}]})"),
               Catch::Contains("ends before it starts"));
    // A unit no reader knows.
    CHECK_THAT(lr_error_of(R"({"aiperf_version": "0.8.0", "request_count": {"unit": "requests", "avg": 4},
                            "ttft": {"unit": "fortnights", "avg": 2}})"),
               Catch::Contains("fortnights"));
    // A counting method, a schema version, a count that are not ones.
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.load/1", "completed": 1, "output_tokens": 1,
                            "output_tokens_counted_by": "vibes"})"),
               Catch::Contains("vibes"));
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.load/2", "completed": 1})"), Catch::Contains("inferlint.load/2"));
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.load/1", "completed": -1, "output_tokens": 1,
                            "output_tokens_counted_by": "unknown"})"),
               Catch::Contains("not a count"));
    CHECK_THAT(lr_error_of(R"({"schema": "inferlint.snapshot/1"})"), Catch::Contains("inferlint.snapshot/1"));
    CHECK_THAT(lr_error_of(R"({"load_summary": {}, "successes": {"count": 3, "rate": 1.0}, "failures": {}})"),
               Catch::Contains("prometheus"));
}

TEST_CASE("load result: NaN is absent (Can't tell), zero completed stays zero", "[loadresult][badinput]") {
    LoadResult r = parse_load_result(R"({"schema": "inferlint.load/1", "completed": 0, "output_tokens": 0,
        "output_tokens_counted_by": "unknown", "latency_ms": {"ttft": {"mean": NaN, "p99": NaN}}})",
                                     "zero.json");
    CHECK(r.completed == 0);
    CHECK_FALSE(r.ttft_ms.mean.has_value());
    CHECK_FALSE(r.ttft_ms.p99.has_value());
}

TEST_CASE("load result: a folder with nothing a tool wrote is refused by name", "[loadresult][badinput]") {
    testsupport::TempDir dir("loadresult");
    CHECK_THROWS_WITH(load_load_result(dir.path), Catch::Contains(dir.path.string()) && Catch::Contains("folder"));
    CHECK_THROWS_AS(load_bench_result(dir.path), InputError);
}

TEST_CASE("load result: through the CLI, any tool's file is read and a bad one exits 2", "[loadresult][cli]") {
    testsupport::TempDir dir("loadresult-cli");
    auto write = [&](const char* name, const std::string& text) {
        std::ofstream(dir.path / name, std::ios::binary) << text;
        return (dir.path / name).string();
    };
    const std::string before = write("before.prom", "vllm:request_success_total 0\nvllm:generation_tokens_total 0\n");
    const std::string after = write("after.prom", "vllm:request_success_total 8\nvllm:generation_tokens_total 800\n");
    const std::string good = lr_fixture("guidellm-v2-small.json").string();
    auto ok = testsupport::run_cli({"client-counts", before, after, "--bench-result", good, "--json"});
    INFO(ok.out << ok.err);
    CHECK(ok.rc == 1);  // T20: the fixture states one errored request besides the 8 completed
    CHECK_THAT(ok.out, Catch::Contains("client and server agree: 8 requests, 800 output tokens"));
    CHECK_THAT(ok.out, Catch::Contains("1 of 9 requests did not complete (11.1%; guidellm says 1 failed)"));
    const std::string text = util::read_file(good);
    const std::string cut = write("benchmarks.json", text.substr(0, text.size() / 3));
    auto bad = testsupport::run_cli({"client-counts", before, after, "--bench-result", cut});
    CHECK(bad.rc == 2);
    CHECK_THAT(bad.err, Catch::Contains(cut));
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE("load result: inference-perf's per-request file, both layouts of info", "[loadresult]") {
    LoadResult old = parse_load_result(R"([{"start_time": 1.0, "end_time": 2.0, "request": "", "response": "",
        "info": {"input_tokens": 10, "output_tokens": 4, "output_token_times": [1.1, 1.5, 1.9]}, "error": null}])",
                                       "per_request_lifecycle_metrics.json");
    CHECK(old.tool == "inference-perf");
    CHECK(old.completed == 1);
    CHECK(old.output_tokens == 4);
    CHECK(old.stream_chunks == 3);
    CHECK(old.requests[0].first_token_s == 1.1);
    LoadResult now = parse_load_result(R"([{"start_time": 1.0, "end_time": 2.0, "info": {"input_tokens": 10,
        "response_metrics": {"output_tokens": 9, "server_usage": {"completion_tokens": 12},
        "chunk_times": [1.1, 1.5, 1.9, 1.95], "output_token_times": [1.1, 1.5]}}, "error": null},
        {"start_time": 1.0, "end_time": 1.2, "info": {"input_tokens": 10}, "error": {"error_type": "HTTP Error 500"}}])",
                                       "per_request_lifecycle_metrics.json");
    CHECK(now.completed == 1);
    CHECK(now.failed == 1);
    CHECK(now.output_tokens == 9);
    CHECK(now.server_output_tokens == 12);
    CHECK(now.stream_chunks == 4);
    CHECK(now.output_counting == TokenCounting::client_tokenizer);
    CHECK(now.requests[1].error == "HTTP Error 500");
    CHECK_THAT(lr_error_of(R"([{"start_time": 1, "end_time": 2, "info": 5}])"), Catch::Contains("no info"));
}

TEST_CASE("load result: GuideLLM's YAML form, and YAML that is not a result", "[loadresult]") {
    const std::string yaml = util::read_file(testsupport::source_dir() / "tests/fuzz/seeds/load_guidellm/small.yaml");
    LoadResult r = parse_load_result(yaml, "benchmarks.yaml");
    CHECK(r.tool == "guidellm");
    CHECK(r.completed == 2);
    CHECK(r.output_tokens == 16);
    CHECK(r.concurrency == 2.0);
    CHECK(r.ttft_ms.p99 == 11.7);
    // Nested past any report's depth: refused in one line, not a deep recursion.
    std::string deep;
    for (int i = 0; i < 400; ++i) deep += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    CHECK_THAT(lr_error_of(deep, "deep.yaml"), Catch::Contains("not a result of any load tool"));
    CHECK_THAT(lr_error_of("a:\n\tb: 1\n", "tab.yaml"), Catch::Contains("not a result of any load tool"));
}

TEST_CASE("load result: genai-perf's summary and perf_analyzer's requests", "[loadresult]") {
    LoadResult pa = load_load_result(lr_fixture("genai-perf-profile_export.json"));
    CHECK(pa.tool == "genai-perf");
    CHECK(pa.concurrency == 2.0);
    REQUIRE(pa.requests.size() == 2);
    CHECK(pa.requests[0].stream_chunks == 3);
    CHECK(pa.requests[0].first_token_s == Approx(1.02));
    CHECK(pa.requests[1].end_s == Approx(1.14));
    CHECK(pa.completed == 2);                   // counted from the records, and said so
    CHECK_FALSE(pa.output_tokens.has_value());  // it states no tokens: never 0
    CHECK(pa.stream_chunks == 5);
    LoadResult g =
        parse_load_result(util::read_file(testsupport::source_dir() / "tests/fuzz/seeds/load_genai_perf/summary.json"),
                          "profile_export_genai_perf.json");
    CHECK(g.tool == "genai-perf");
    CHECK(g.completed == 4);
    CHECK(g.ttft_ms.p99 == 3.0);
    CHECK(g.tpot_ms.mean == 1.0);  // genai-perf's inter_token_latency
    CHECK(g.concurrency == 2.0);
}
