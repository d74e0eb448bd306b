#include "inferlint/parse/benchresult.hpp"

#include "inferlint/util/error.hpp"

#include "support.hpp"

#include <cmath>
#include <fstream>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

struct TempFile {
    fs::path path;
    explicit TempFile(const std::string& name, const std::string& content) {
        static const fs::path dir = testsupport::scratch_dir("bench");
        path = dir / name;
        std::ofstream(path, std::ios::binary) << content;
    }
    ~TempFile() { fs::remove(path); }
};

// The one-line error a bad file gives, naming it.
std::string error_of(const fs::path& path) {
    try {
        load_bench_result(path);
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.find(path.string()) != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
        CHECK(what.size() < 400);
        return what;
    }
    FAIL("no InputError for " << path);
    return "";
}

std::string error_of_text(const std::string& name, const std::string& content) {
    TempFile f(name, content);
    return error_of(f.path);
}

}  // namespace

TEST_CASE("bench result: vllm bench serve --save-result, with failed requests", "[benchresult][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_bench_result(root / "vllm-0.30/capped/bench.json");
    CHECK(b.path == (root / "vllm-0.30/capped/bench.json").string());
    CHECK(b.completed == 16);
    CHECK(b.failed == 16);
    CHECK(b.input_tokens == 1408);
    CHECK(b.output_tokens == 16000);
    CHECK(b.duration_s.value() == Approx(51.64919937499997));
    CHECK(b.output_throughput.value() == Approx(309.7821494546644));
    CHECK(b.max_concurrency == 32);
    CHECK(b.num_prompts == 32);
    CHECK(b.backend == "openai");
    CHECK(b.median_ttft_ms.value() == Approx(672.5065130000303));
    CHECK(b.p99_ttft_ms.value() == Approx(28231.439191800007));
    CHECK(b.mean_tpot_ms.value() == Approx(27.43352005755756));
    CHECK(b.has_counts());
}

TEST_CASE("bench result: every recorded result file reads, 32 requests of 1,000 tokens", "[benchresult][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* f :
         {"vllm-0.28/xray/bench.json", "vllm-0.29/live/bench.json", "vllm-0.30/live/bench.json",
          "vllm-0.30/qwen3-8b-start1/bench.json", "vllm-0.30/qwen3-8b-start2/bench.json",
          "sglang-0.5/capped/bench.json", "sglang-0.5/live/bench.json", "sglang-0.5/qwen3-8b/bench.json",
          "sglang-0.5/retraction/bench.json", "sglang-0.5/qwen3-8b-own-client/bench.jsonl",
          "trtllm-1.3/no-iter-stats/bench.json", "trtllm-1.3/pauses/bench.json", "trtllm-1.3/qwen3-8b/bench.json",
          "trtllm-1.3/qwen3-8b-own-client/bench.json"}) {
        INFO(f);
        auto b = load_bench_result(root / f);
        CHECK(b.completed == 32);
        CHECK(b.output_tokens == 32000);
        CHECK(b.max_concurrency == 32);
        CHECK(b.duration_s.value() > 20.0);
    }
}

TEST_CASE("bench result: SGLang's own client, JSON lines with Infinity in them", "[benchresult][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_bench_result(root / "sglang-0.5/qwen3-8b-own-client/bench.jsonl");
    CHECK(b.backend == "sglang");
    CHECK(b.completed == 32);
    CHECK_FALSE(b.failed.has_value());       // SGLang's client writes no "failed"
    CHECK_FALSE(b.num_prompts.has_value());  // nor "num_prompts"
    CHECK(b.input_tokens == 2816);
    CHECK(b.output_throughput.value() == Approx(1342.4314929029656));
    CHECK(b.mean_ttft_ms.value() == Approx(271.81157621874695));
}

TEST_CASE("bench result: TensorRT-LLM's client writes vLLM's format without failed", "[benchresult][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_bench_result(root / "trtllm-1.3/no-iter-stats/bench.json");
    CHECK(b.backend == "openai");
    CHECK_FALSE(b.failed.has_value());
    CHECK(b.num_prompts == 32);
    CHECK(b.duration_s.value() == Approx(22.66869008399999));
    CHECK(b.p99_ttft_ms.value() == Approx(337.35445233997666));
}

TEST_CASE("bench result: JSON lines, the last run wins; blank lines are ignored", "[benchresult]") {
    auto b = parse_bench_result(
        "{\"completed\": 8, \"total_output_tokens\": 800}\n"
        "\n"
        "{\"completed\": 32, \"total_output_tokens\": 32000, \"failed\": null}\n\n",
        "runs.jsonl");
    CHECK(b.completed == 32);
    CHECK(b.output_tokens == 32000);
    CHECK_FALSE(b.failed.has_value());
    CHECK(b.path == "runs.jsonl");
}

TEST_CASE("bench result: values as the Python tool reads them", "[benchresult]") {
    // Counts written as floats truncate, as int() does; a missing field is absent, not 0.
    auto b = parse_bench_result(R"({"completed": 31.9, "total_output_tokens": 1e3, "duration": 12})", "x.json");
    CHECK(b.completed == 31);
    CHECK(b.output_tokens == 1000);
    CHECK(b.duration_s == 12.0);
    CHECK_FALSE(b.input_tokens.has_value());
    CHECK_FALSE(b.backend.has_value());
    CHECK(b.has_counts());

    // NaN (a latency nobody measured) is absent; Infinity is infinite; neither is touched in strings.
    auto n = parse_bench_result(R"({"completed": 0, "mean_ttft_ms": NaN, "duration": Infinity,
                                    "output_throughput": -Infinity, "backend": "NaN Infinity \" NaN"})",
                                "nan.json");
    CHECK_FALSE(n.mean_ttft_ms.has_value());
    CHECK(std::isinf(n.duration_s.value()));
    CHECK(n.output_throughput.value() < 0);
    CHECK(n.backend == "NaN Infinity \" NaN");
}

TEST_CASE("bench result: bad files give one line naming the file", "[benchresult][badinput]") {
    auto missing = fs::temp_directory_path() / "inferlint-no-such-bench.json";
    CHECK(error_of(missing).find("no such file") != std::string::npos);
    CHECK(error_of(fs::temp_directory_path()).find("folder") != std::string::npos);
    CHECK(error_of_text("empty.json", "").find("empty") != std::string::npos);
    CHECK(error_of_text("blank.json", "\n  \n").find("no JSON") != std::string::npos);
    CHECK(error_of_text("binary.json", std::string("\x7f"
                                                   "ELF\0\0\x01\x02",
                                                   8))
              .find("binary") != std::string::npos);
    CHECK(error_of_text("text.json", "Successful requests: 32\n").find("not valid JSON") != std::string::npos);

    // A pretty-printed document cut short, and a JSON line cut short (a client killed mid-write).
    CHECK(error_of_text("cut.json", "{\n \"completed\": 32,\n \"total_output_tokens\": 32").find("not valid JSON") !=
          std::string::npos);
    auto cut_line = error_of_text("cut.jsonl", "{\"completed\": 8}\n{\"completed\": 32, \"total_out");
    CHECK(cut_line.find("line 2: not valid JSON") != std::string::npos);

    CHECK(error_of_text("list.json", "[1, 2]").find("expected a JSON object, found a list") != std::string::npos);
    CHECK(error_of_text("number.json", "32").find("expected a JSON object") != std::string::npos);
    CHECK(error_of_text("other.json", R"({"model": "x", "tokens": 5})").find("none of completed") != std::string::npos);

    // Wrong types: never read as absent or as 0.
    CHECK(error_of_text("str.json", R"({"completed": "32"})").find("\"completed\" is a string") != std::string::npos);
    CHECK(error_of_text("bool.json", R"({"completed": true})").find("\"completed\" is true/false") !=
          std::string::npos);
    CHECK(error_of_text("list2.json", R"({"total_output_tokens": [1]})").find("is a list") != std::string::npos);
    CHECK(error_of_text("dur.json", R"({"completed": 3, "duration": "12 s"})").find("\"duration\" is a string") !=
          std::string::npos);
    CHECK(error_of_text("inf.json", R"({"completed": Infinity})").find("not a count") != std::string::npos);
    CHECK(error_of_text("huge.json", R"({"completed": 1e30})").find("not a count") != std::string::npos);
    CHECK(error_of_text("backend.json", R"({"completed": 3, "backend": 7})").find("\"backend\"") != std::string::npos);
}

TEST_CASE("bench result: another of inferlint's files is refused by name", "[benchresult][badinput][shared]") {
    REQUIRE_REFERENCE(root);
    CHECK(error_of(root / "vllm-0.28/live/after.snapshot.json").find("inferlint.snapshot/1 file") != std::string::npos);
    CHECK(error_of(root / "vllm-0.28/live/run.series.jsonl").find("inferlint.series/1 file") != std::string::npos);
    CHECK(error_of(root / "vllm-0.28/live/raw_metrics.prom").find("not valid JSON") != std::string::npos);
}

// 4 MiB: past every line and window limit the readers have (1 MiB at most), and every
// reader the dispatcher tries walks it, which under the sanitizers takes seconds a MiB.
TEST_CASE("bench result: a 4 MiB line cut short gives a short error", "[benchresult][badinput]") {
    std::string big = "{\"completed\": 1, \"x\": \"" + std::string(4u << 20, 'a');
    auto what = error_of_text("big.json", big);
    CHECK(what.find("not valid JSON") != std::string::npos);
    CHECK(what.size() < 400);
}
