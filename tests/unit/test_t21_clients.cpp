// T21 on SGLang's bench_serving and TensorRT-LLM's benchmark_serving results: neither client
// writes when each request started, not even with its detail flag, so T21 is Can't tell and
// says which flag does not help and what does. The real files in ../shared ([shared]) and a
// made-up --output-details line (the lists SGLang writes, no start times).
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/t21_streams_vs_running.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <cstdlib>

using namespace inferlint;
using namespace inferlint::checks;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

// A recording with the running gauge at 4, so only the client's side is missing.
std::string t21c_series() {
    std::string text = R"({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000", "interval_s": 0.25})"
                       "\n";
    for (int i = 0; i < 8; ++i)
        text += fmt::format(R"({{"t_wall": {}, "t_mono_ns": {}, "running": 4.0, "waiting": 0.0}})"
                            "\n",
                            1790000000.0 + 0.25 * i, 1000000000LL + 250000000LL * i);
    return text;
}

CheckResult t21c_check(const BenchResult& b, const std::string& series_text) {
    REQUIRE(b.load);
    const SeriesSummary s = summarize(series_from_text(series_text, "series.jsonl"));
    return check_streams_vs_running(&*b.load, &s, nullptr);
}

}  // namespace

TEST_CASE("T21: SGLang's bench_serving --output-details has per-request ttfts but no start times: Can't tell",
          "[T21]") {
    // The lists python/sglang/bench_serving.py writes with --output-details, for two requests.
    const std::string line =
        R"({"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 2,)"
        R"( "sharegpt_output_len": null, "duration": 2.0, "completed": 2, "total_input_tokens": 20,)"
        R"( "total_output_tokens": 8, "mean_ttft_ms": 50.0, "input_lens": [10, 10], "output_lens": [4, 4],)"
        R"( "ttfts": [0.05, 0.05], "itls": [[0.01, 0.01, 0.01], [0.01, 0.01, 0.01]],)"
        R"( "generated_texts": ["a b c d", "a b c d"], "errors": ["", ""]})";
    const BenchResult b = parse_bench_result(line, "sglang.jsonl");
    REQUIRE(b.load);
    CHECK(b.load->tool == "sglang bench_serving");
    CHECK(b.load->requests.size() == 2);  // read, but not placed in time
    CHECK(client_streams(*b.load).timed == 0);
    const CheckResult r = t21c_check(b, t21c_series());
    INFO(r.message);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("not even with --output-details"));
    CHECK_THAT(r.message, Contains("--save-detailed"));
    CHECK(r.evidence["tool_records_start_times"] == false);
    // One change: the start times vllm bench serve --save-detailed writes, and T21 judges.
    std::string timed = line;
    timed.insert(timed.size() - 1, R"(, "start_times": [100.0, 100.5])");
    const CheckResult p = t21c_check(parse_bench_result(timed, "vllm.jsonl"), t21c_series());
    INFO(p.message);
    CHECK(p.status != Status::unknown);
}

TEST_CASE("T21: TensorRT-LLM's benchmark_serving --save-detailed has no start times either", "[T21]") {
    const std::string doc =
        R"({"backend": "openai", "completed": 2, "total_input_tokens": 20, "total_output_tokens": 8,)"
        R"( "user_throughput": 10.0, "duration": 2.0, "num_prompts": 2, "mean_ttft_ms": 50.0,)"
        R"( "input_lens": [10, 10], "output_lens": [4, 4], "ttfts": [0.05, 0.05],)"
        R"( "itls": [[0.01, 0.01, 0.01], [0.01, 0.01, 0.01]], "e2els": [0.08, 0.08], "errors": ["", ""]})";
    const BenchResult b = parse_bench_result(doc, "trtllm.json");
    REQUIRE(b.load);
    CHECK(b.load->tool == "tensorrt_llm benchmark_serving");
    const CheckResult r = t21c_check(b, t21c_series());
    INFO(r.message);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("not even with --save-detailed"));
}

TEST_CASE("T21 on the real SGLang and TensorRT-LLM client results: Can't tell, naming why", "[T21][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* run :
         {"sglang-0.5/qwen3-8b-own-client/bench.jsonl", "trtllm-1.3/qwen3-8b-own-client/bench.json"}) {
        INFO(run);
        const fs::path p = root / run;
        const BenchResult b = load_bench_result(p);
        const std::string series = util::read_file(p.parent_path() / "run.series.jsonl");
        const CheckResult r = t21c_check(b, series);
        INFO(r.message);
        CHECK(r.status == Status::unknown);
        CHECK_THAT(r.message, Contains("not even with"));
    }
    const fs::path dir = testsupport::loadtools_dir() / "sglang-bench-serving";
    if (!fs::is_directory(dir)) FAIL("needs " << dir.string());
    int seen = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.path().extension() != ".jsonl") continue;
        const BenchResult b = load_bench_result(e.path());
        const CheckResult r = t21c_check(b, t21c_series());
        INFO(e.path().string() << ": " << r.message);
        CHECK(r.status == Status::unknown);
        CHECK_THAT(r.message, Contains("SGLang's bench_serving writes no request's start time"));
        ++seen;
    }
    CHECK(seen == 4);
}
