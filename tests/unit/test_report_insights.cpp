#include "report_inputs.hpp"
#include "support.hpp"

#include "inferlint/parse/benchresult.hpp"
#include "inferlint/report/insights.hpp"
#include "inferlint/report/report.hpp"

#include <map>
#include <tuple>

namespace fs = std::filesystem;
using namespace inferlint;
using namespace inferlint::report;
using testsupport::build_report;
using testsupport::ReportInputs;

namespace {

Report build_run(const fs::path& d, bool with_bench = true) {
    ReportInputs in;
    in.boot_logs = {d / "boot.log"};
    in.before = load_snapshot(d / "before.snapshot.json");
    in.after = load_snapshot(d / "after.snapshot.json");
    in.series = read_series(d / "run.series.jsonl");
    in.requested = 32;
    if (with_bench && fs::exists(d / "bench.json")) in.bench = load_bench_result(d / "bench.json");
    return build_report(std::move(in));
}

std::map<std::string, Insight> said(const fs::path& d, bool with_bench = true) {
    std::map<std::string, Insight> out;
    for (auto& i : limits(build_run(d, with_bench))) out.emplace(i.key, i);
    return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

// Qwen3-8B, 32 requests of 88 + 1,000 tokens at once: the load needs 34,816 tokens of cache.
TEST_CASE("insights: a cache too small for the load, and what each engine did", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    auto v = said(root / "vllm-0.30/qwen3-8b-start1").at("cache");
    CHECK(v.tone == Tone::limit);
    CHECK_THAT(v.text, Catch::Contains("holds 32,336 tokens; 32 requests of 1,088 tokens need 34,816"));
    CHECK_THAT(v.text, Catch::Contains("so 29 fit at full length. To make room, it preempted 3 running requests."));
    auto sg = said(root / "sglang-0.5/qwen3-8b").at("cache");
    CHECK(ends_with(sg.text, "To make room, it ran at most 29 at once and queued the rest."));
    auto trt = said(root / "trtllm-1.3/pauses").at("cache");
    CHECK_THAT(trt.text, Catch::Contains("holds 20,960 tokens"));
    CHECK(ends_with(trt.text, "paused 13 running requests."));
    auto both = said(root / "sglang-0.5/retraction").at("cache");
    CHECK(ends_with(both.text, "queued the rest, and retracted 1 running request."));
}

TEST_CASE("insights: a cache that holds the load", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    for (auto [run, pool, share] : {std::tuple{"vllm-0.30/qwen3-8b-start2", "47,888", "73%"},
                                    std::tuple{"trtllm-1.3/qwen3-8b", "37,760", "92%"}}) {
        INFO(run);
        auto got = said(root / run);
        CHECK(got.at("cache").tone == Tone::ok);
        CHECK_THAT(got.at("cache").text, Catch::Contains(std::string("holds ") + pool + " tokens"));
        CHECK(ends_with(got.at("cache").text, std::string("need 34,816, ") + share + " of it."));
        CHECK(got.at("waiting").tone == Tone::ok);
        CHECK(got.at("pace").tone == Tone::ok);
    }
}

TEST_CASE("insights: the pace says how many ran on average", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    auto pace = said(root / "sglang-0.5/qwen3-8b").at("pace");
    CHECK(pace.title == "On average 17 of 32 requests ran at once");
    CHECK(pace.text ==
          "The load kept 32 requests open; the server's recording shows 16.8 running on average while it was busy. "
          "The load tool measured 799 output tokens/s over the whole run.");
    // TensorRT-LLM's gauges lag: counted from tokens instead, and called what it is
    auto trt = said(root / "trtllm-1.3/pauses").at("pace");
    CHECK(trt.title == "On average 24 of 32 requests were part-way through their output");
    CHECK_THAT(trt.text,
               Catch::Contains("so on average 24.4 of the 32 requests the load kept open were in that stretch"));
    CHECK_THAT(trt.text, Catch::Contains("(1,006 x 0.0243 s), including any paused mid-output."));
    CHECK(ends_with(trt.text, "so the recording does not give the number running."));
}

TEST_CASE("insights: waiting long is told apart from waiting for others", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    auto sg = said(root / "sglang-0.5/qwen3-8b").at("waiting");
    CHECK(sg.title == "Some requests waited much longer to start");
    CHECK_THAT(sg.text, Catch::Contains("within 641 ms, but the slowest (p99) waited 22.1 s: they were queued"));
    auto capped = said(root / "sglang-0.5/capped").at("waiting");
    CHECK(capped.title == "Requests waited long to start");
    CHECK_THAT(capped.text, Catch::Contains("285.2 s"));
}

TEST_CASE("insights: hybrid models get the concurrency sentence instead of the cache one",
          "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    auto capped = said(root / "sglang-0.5/capped");
    CHECK(capped.count("cache") == 0);
    CHECK(capped.at("concurrency").tone == Tone::limit);
    CHECK_THAT(capped.at("concurrency").text,
               Catch::Contains("ran at most 1 at once: SGLang lowered its limit to 1 running because of the mamba"));
    CHECK_THAT(capped.at("pace").text, Catch::Contains("the server's recording shows 1.0 running on average"));
    auto v = said(root / "vllm-0.30/live");
    CHECK(v.count("cache") == 0);
    CHECK(ends_with(v.at("concurrency").text, "ran at most 11 at once. It also preempted 22 running requests."));
}

TEST_CASE("insights: without the load tool's result, the server's own counts", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    auto got = said(root / "vllm-0.28/live", false);
    CHECK(got.at("waiting").text == "A request waited 29.3 s on average before the server started it.");
    CHECK(ends_with(got.at("pace").text,
                    "while the server was busy, its recording shows 8.0 running on average and 343 output tokens/s."));
    auto b = busy(build_run(root / "vllm-0.28/live", false));
    REQUIRE(b);
    CHECK(b->mean_running == Approx(8.0).margin(0.05));
}

TEST_CASE("insights: at most three, and none after a restart", "[report][insights][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = build_run(root / "sglang-0.5/qwen3-8b");
    CHECK(limits(rep).size() == 3);
    auto need = cache_need(rep);
    REQUIRE(need);
    CHECK(need->total() == 34816);
    REQUIRE(per_request_tokens(rep));
    CHECK(*per_request_tokens(rep) == Approx(1088));
    rep.summary.restarted = true;
    CHECK(limits(rep).empty());
}

TEST_CASE("insights: nothing is said without the numbers", "[report][insights]") {
    Report empty = build_report({});
    CHECK(limits(empty).empty());
    CHECK_FALSE(cache_need(empty));
    CHECK_FALSE(busy(empty));
    CHECK_FALSE(per_request_tokens(empty));
}
