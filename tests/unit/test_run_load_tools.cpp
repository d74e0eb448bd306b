// xray's knowledge of the other load tools' command lines (xray_plan.cpp): which tool it
// is, the concurrency asked for, whether the prompts are meant to be unique, and where
// each is asked to write its result in the run folder.
#include "support.hpp"

#include "inferlint/run/xray.hpp"

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(std::initializer_list<const char*> w) { return {w.begin(), w.end()}; }

}  // namespace

TEST_CASE("xray: the load tools are told by their command lines", "[xray][loadresult]") {
    CHECK(xray::load_tool(words({"guidellm", "benchmark", "--target", "http://x"})) == "guidellm");
    CHECK(xray::load_tool(words({"/usr/bin/aiperf", "profile", "-m", "m"})) == "aiperf");
    CHECK(xray::load_tool(words({"genai-perf", "profile", "-m", "m"})) == "genai-perf");
    CHECK(xray::load_tool(words({"inference-perf", "--config_file", "c.yml"})) == "inference-perf");
    CHECK(xray::load_tool(words({"python", "token_benchmark_ray.py", "--model", "m"})) == "llmperf");
    CHECK(xray::load_tool(words({"vllm", "bench", "serve"})) == "vllm bench serve");
    CHECK_FALSE(xray::load_tool(words({"python", "my_harness.py"})).has_value());
}

TEST_CASE("xray: the concurrency each tool asks for", "[xray][loadresult]") {
    CHECK(xray::load_concurrency(words({"aiperf", "profile", "--concurrency", "16"})) == 16);
    CHECK(xray::load_concurrency(words({"genai-perf", "profile", "--concurrency=8"})) == 8);
    CHECK(xray::load_concurrency(words({"python", "token_benchmark_ray.py", "--num-concurrent-requests", "5"})) == 5);
    CHECK(xray::load_concurrency(words({"guidellm", "benchmark", "--profile", "concurrent", "--rate", "32"})) == 32);
    CHECK(xray::load_concurrency(words({"guidellm", "benchmark", "--rate-type", "synchronous"})) == 1);
    CHECK_FALSE(xray::load_concurrency(words({"guidellm", "benchmark", "--profile", "constant", "--rate", "4"})));
    CHECK_FALSE(xray::load_concurrency(words({"aiperf", "profile", "--max-concurrency", "4"})));  // not its flag
    CHECK(xray::load_concurrency(words({"vllm", "bench", "serve", "--max-concurrency", "4"})) == 4);
}

TEST_CASE("xray: GuideLLM's synthetic prompts are unique unless they share a prefix", "[xray][loadresult][T16]") {
    CHECK(xray::load_unique_prompts(words({"guidellm", "benchmark", "--data", "prompt_tokens=256,output_tokens=128"})));
    CHECK_FALSE(xray::load_unique_prompts(
        words({"guidellm", "benchmark", "--data", "prompt_tokens=256,prefix_tokens=64,output_tokens=128"})));
    CHECK_FALSE(xray::load_unique_prompts(words({"guidellm", "benchmark", "--data", "sharegpt.json"})));
}

TEST_CASE("xray: each tool is asked to write its result into the run folder", "[xray][loadresult]") {
    const fs::path out = "run";
    auto g = xray::prepare_load(words({"guidellm", "benchmark", "--target", "http://x"}), out);
    CHECK(g.argv.back() == "run/benchmarks.json");
    CHECK(g.result == fs::path("run/benchmarks.json"));
    auto mine = xray::prepare_load(words({"guidellm", "benchmark", "--output-path", "b.json"}), out);
    CHECK(mine.argv.size() == 4);
    CHECK(mine.result == fs::path("b.json"));
    auto a = xray::prepare_load(words({"aiperf", "profile", "-m", "m"}), out);
    CHECK(a.result == fs::path("run/aiperf/profile_export_aiperf.json"));
    CHECK(std::find(a.argv.begin(), a.argv.end(), "--artifact-dir") != a.argv.end());
    auto l = xray::prepare_load(words({"python", "token_benchmark_ray.py"}), out);
    CHECK(l.argv.back() == "run/llmperf");
    CHECK_FALSE(l.result.has_value());  // named after the model: found after the run
    auto other = xray::prepare_load(words({"python", "my_harness.py"}), out);
    CHECK(other.argv.size() == 2);
    CHECK_FALSE(other.result.has_value());
}
