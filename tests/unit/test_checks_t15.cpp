#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/util/error.hpp"

#include "support.hpp"

#include <fmt/format.h>

#include <fstream>

using namespace inferlint;
using inferlint::checks::check_client_server_agree;
namespace fs = std::filesystem;

namespace {

// A vLLM snapshot with just the two counters T15 reads (bare Prometheus text).
Snapshot vllm_counters(double finished, double tokens, const std::string& created = "") {
    std::string text = "# TYPE vllm:request_success_total counter\n";
    text += fmt::format("vllm:request_success_total{{finished_reason=\"stop\"}} {}\n", finished);
    text += "vllm:request_success_total{finished_reason=\"abort\"} 0\n";
    if (!created.empty()) text += "vllm:request_success_created{finished_reason=\"stop\"} " + created + "\n";
    text += fmt::format("vllm:generation_tokens_total {}\n", tokens);
    return snapshot_from_text(text, "synthetic.prom");
}

BenchResult client(long long completed, long long tokens) {
    BenchResult b;
    b.path = "bench.json";
    b.completed = completed;
    b.output_tokens = tokens;
    b.failed = 0;
    return b;
}

// Evidence compared as the golden files hold it: key order aside, values and their types
// (32 vs 32.0) exactly.
std::string canonical(const Json& ev) { return nlohmann::json::parse(ev.dump()).dump(); }

}  // namespace

TEST_CASE("T15 on every recorded run with a result file matches the Python tool", "[T15][shared]") {
    REQUIRE_REFERENCE(root);
    auto golden = testsupport::reference_golden();
    REQUIRE(golden);
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(*golden)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with("report__")) continue;
        nlohmann::json doc = nlohmann::json::parse(std::ifstream(entry.path()));
        const nlohmann::json* expected = nullptr;
        for (const auto& r : doc["json"])
            if (r["tripwire"] == "T15") expected = &r;
        if (!expected) continue;  // no result file in that folder
        const std::string run = doc["argv"][1];
        INFO(run);
        const fs::path dir = root / run;
        const fs::path bench_path = fs::exists(dir / "bench.json") ? dir / "bench.json" : dir / "bench.jsonl";
        auto bench = load_bench_result(bench_path);
        auto before = load_snapshot(dir / "before.snapshot.json");
        auto after = load_snapshot(dir / "after.snapshot.json");
        long long untimed = fs::exists(dir / "load.log") ? untimed_requests_in(dir / "load.log") : 0;

        CheckResult r = check_client_server_agree(bench, before, after, untimed);
        CHECK(r.tripwire == "T15");
        CHECK(std::string(status_value(r.status)) == (*expected)["status"].get<std::string>());
        CHECK(r.message == (*expected)["message"].get<std::string>());
        // Paths are compared relative to the fixtures folder, as conform.py does.
        Json ev = r.evidence;
        ev["result_file"] = fs::relative(bench_path, root).string();
        CHECK(canonical(ev) == nlohmann::json((*expected)["evidence"]).dump());
        ++compared;
    }
    CHECK(compared == 15);
}

TEST_CASE("T15 allows for the requests a client leaves out, read from load.log", "[T15][shared]") {
    REQUIRE_REFERENCE(root);
    CHECK(untimed_requests_in(root / "sglang-0.5/qwen3-8b-own-client/load.log") == 1);  // SGLang warm-up
    CHECK(untimed_requests_in(root / "trtllm-1.3/qwen3-8b-own-client/load.log") == 1);  // test request
    CHECK(untimed_requests_in(root / "trtllm-1.3/no-iter-stats/load.log") == 1);

    // Without load.log the untimed request is other traffic.
    const fs::path dir = root / "trtllm-1.3/qwen3-8b-own-client";
    auto r =
        check_client_server_agree(load_bench_result(dir / "bench.json"), load_snapshot(dir / "before.snapshot.json"),
                                  load_snapshot(dir / "after.snapshot.json"));
    CHECK(r.status == Status::fail);
    CHECK(r.message ==
          "the server finished 1 more request than the load tool sent; other traffic shared the server during the run");
    CHECK(r.evidence["extra_requests"] == 1);
}

TEST_CASE("T15 mutations of a recorded run flip the verdict", "[T15][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path dir = root / "vllm-0.30/live";
    auto before = load_snapshot(dir / "before.snapshot.json");
    auto after = load_snapshot(dir / "after.snapshot.json");
    auto bench = load_bench_result(dir / "bench.json");
    REQUIRE(check_client_server_agree(bench, before, after).status == Status::pass);

    auto fewer = bench;
    fewer.completed = 30;
    auto r = check_client_server_agree(fewer, before, after);
    CHECK(r.status == Status::fail);
    CHECK(r.message.starts_with("the server finished 2 more requests than the load tool sent"));

    auto more = bench;
    more.completed = 33;
    r = check_client_server_agree(more, before, after);
    CHECK(r.status == Status::fail);
    CHECK(r.message == "the load tool counted 1 more completed request than the server finished");

    auto tokens = bench;
    tokens.output_tokens = 31000;
    r = check_client_server_agree(tokens, before, after);
    CHECK(r.status == Status::warn);
    CHECK(r.message ==
          "requests agree, but the server generated 32,000 output tokens and the load tool counted 31,000");
    CHECK(r.evidence["extra_output_tokens"] == 1000.0);

    // Snapshots swapped: the counters went down, which is a restart, not a count.
    r = check_client_server_agree(bench, after, before);
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["restarted"] == true);
}

TEST_CASE("T15 arithmetic on counters it is given", "[T15]") {
    auto before = vllm_counters(10, 5000);

    auto r = check_client_server_agree(client(32, 32000), before, vllm_counters(42, 37000));
    CHECK(r.status == Status::pass);
    CHECK(r.message == "client and server agree: 32 requests, 32,000 output tokens");
    CHECK(r.evidence.dump() ==
          R"({"client_completed":32,"client_failed":0,"client_output_tokens":32000,"server_finished":32.0,)"
          R"("server_output_tokens":32000.0,"expected_extra_requests":0,"result_file":"bench.json",)"
          R"("extra_requests":0,"extra_output_tokens":0.0})");

    // Two warm-ups of up to 1.5x the mean output each are allowed for; more tokens are not.
    r = check_client_server_agree(client(32, 32000), before, vllm_counters(44, 37000 + 3000), 2);
    CHECK(r.status == Status::pass);
    CHECK(r.message ==
          "client and server agree: 32 requests, 32,000 output tokens, plus 2 untimed requests (test or warm-up)");
    r = check_client_server_agree(client(32, 32000), before, vllm_counters(44, 37000 + 3001), 2);
    CHECK(r.status == Status::warn);
    CHECK(r.message ==
          "requests agree, but the server generated 35,001 output tokens and the load tool counted 32,000");

    // Fewer tokens than the client counted is never explained by untimed requests.
    r = check_client_server_agree(client(32, 32000), before, vllm_counters(42, 36999));
    CHECK(r.status == Status::warn);

    // A client that completed nothing, the server only its untimed request: the counts fit, but
    // a result with no completed request measured nothing, so it is never a pass (issue 28).
    r = check_client_server_agree(client(0, 0), before, vllm_counters(11, 5001), 1);
    CHECK(r.status == Status::unknown);
    CHECK(r.message.find("completed no request") != std::string::npos);
}

TEST_CASE("T15 cannot tell without both sides' counts", "[T15]") {
    auto before = vllm_counters(10, 5000);
    auto after = vllm_counters(42, 37000);

    BenchResult no_counts;
    no_counts.path = "other.json";
    no_counts.completed = 32;
    auto r = check_client_server_agree(no_counts, before, after);
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "the result file has no completed or output-token count");
    CHECK(r.evidence["client_output_tokens"].is_null());
    CHECK_FALSE(r.evidence.contains("extra_requests"));

    auto no_tokens = snapshot_from_text("vllm:request_success_total 42\nvllm:num_requests_running 0\n", "a.prom");
    r = check_client_server_agree(client(32, 32000), before, no_tokens);
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "a server counter is missing from a snapshot");
    CHECK(r.evidence["server_finished"] == 32.0);
    CHECK(r.evidence["server_output_tokens"].is_null());

    // A restart between the snapshots, even with counters past their old values.
    r = check_client_server_agree(client(32, 32000), vllm_counters(10, 5000, "1788682378.7"),
                                  vllm_counters(42, 37000, "1788685130.5"));
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["restarted"] == true);
}

TEST_CASE("T15: a result with no completed request is never a pass", "[T15][badinput]") {
    // Both sides at zero agree, but on nothing: Can't tell.
    auto idle = vllm_counters(10, 5000);
    auto r = check_client_server_agree(client(0, 0), idle, idle);
    CHECK(r.status == Status::unknown);
    CHECK(r.message.find("completed no request") != std::string::npos);
    // The server finished requests the load tool did not count: other traffic, a fail.
    r = check_client_server_agree(client(0, 0), idle, vllm_counters(14, 9000));
    CHECK(r.status == Status::fail);
    // One completed request, counted alike: the smallest pass.
    r = check_client_server_agree(client(1, 100), idle, vllm_counters(11, 5100));
    CHECK(r.status == Status::pass);
}

TEST_CASE("T15 reads SGLang's and TensorRT-LLM's counters by their names", "[T15]") {
    auto sg = [](double n, double tokens) {
        return snapshot_from_text(fmt::format("sglang:num_requests_total {}\nsglang:generation_tokens_total {}\n"
                                              "sglang:token_usage 0\n",
                                              n, tokens),
                                  "sg.prom");
    };
    auto r = check_client_server_agree(client(32, 32000), sg(1, 32), sg(34, 32032 + 1000));
    CHECK(r.status == Status::fail);  // one more than the client sent, nothing allowed for
    r = check_client_server_agree(client(32, 32000), sg(1, 32), sg(34, 32032 + 1000), 1);
    CHECK(r.status == Status::pass);
    CHECK(r.evidence["server_finished"] == 33.0);

    auto trt = [](double n, double tokens) {
        return snapshot_from_text(
            fmt::format("trtllm_request_success_total {}\ntrtllm_generation_tokens_total {}\n", n, tokens), "trt.prom");
    };
    r = check_client_server_agree(client(32, 32000), trt(0, 0), trt(32, 32000));
    CHECK(r.status == Status::pass);
}

TEST_CASE("untimed requests from a client's output", "[T15][loadlog]") {
    CHECK(untimed_requests("") == 0);
    CHECK(untimed_requests("Starting main benchmark run...\n") == 0);
    CHECK(untimed_requests("Initial test run completed. Starting main benchmark run...") == 1);
    CHECK(untimed_requests("Warming up with 3 requests...\n") == 3);
    CHECK(untimed_requests("Initial test run completed.\nWarming up with 2 requests...\n") == 3);
    CHECK(untimed_requests("Starting warmup with 4 sequences...\nWarmup completed with 4 sequences. Starting") == 4);
    // The first occurrence that matches the whole phrase counts, as a regex search finds it.
    CHECK(untimed_requests("Warming up with many requests\nWarming up with 5 requests\nWarming up with 7 requests") ==
          5);
    CHECK(untimed_requests("Warming up with 5 prompts") == 0);
    CHECK(untimed_requests("Warming up with 99999999999999999999999 requests") == 0);
}

TEST_CASE("untimed requests: a load log that is missing or a folder is bad input", "[T15][loadlog][badinput]") {
    auto missing = fs::temp_directory_path() / "inferlint-no-such-load.log";
    CHECK_THROWS_AS(untimed_requests_in(missing), InputError);
    CHECK_THROWS_WITH(untimed_requests_in(missing), Catch::Contains(missing.string()));
    CHECK_THROWS_AS(untimed_requests_in(fs::temp_directory_path()), InputError);

    auto empty = testsupport::scratch_dir("empty-load") / "load.log";
    std::ofstream(empty).close();
    CHECK(untimed_requests_in(empty) == 0);
    // Console output with progress bars and stray bytes is still read.
    std::ofstream(empty, std::ios::binary)
        << std::string("\r\x1b[2K 3%|\xe2\x96\x8e| 1/32\0\xff\n", 21) << "Warmup completed with 2 sequences.\n";
    CHECK(untimed_requests_in(empty) == 2);
    fs::remove(empty);
}
