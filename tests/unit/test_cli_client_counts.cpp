// Whole command: client-counts (T15 and T18), on recorded snapshots with load tool results
// written here, text and --json, and bad input.
#include "support.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

using testsupport::run_cli;
using testsupport::TempDir;
namespace fs = std::filesystem;

namespace {

// A `vllm bench serve --save-result` document with the counts T15 and T18 read.
std::string cc_bench_json(long long completed, long long output_tokens) {
    return fmt::format(R"({{"backend": "openai", "num_prompts": {0}, "max_concurrency": 12, "duration": 60.0, )"
                       R"("completed": {0}, "failed": 0, "total_input_tokens": 4800, "total_output_tokens": {1}, )"
                       R"("output_throughput": {2}}})",
                       completed, output_tokens, static_cast<double>(output_tokens) / 60.0);
}

fs::path cc_write(const fs::path& dir, const std::string& name, const std::string& body) {
    std::ofstream(dir / name, std::ios::binary) << body;
    return dir / name;
}

std::vector<std::string> cc_args(const fs::path& root, const fs::path& bench) {
    const fs::path m = root / "vllm-0.28/metrics";
    return {"client-counts", (m / "preempted_before.snapshot.json").string(),
            (m / "preempted_after.snapshot.json").string(), "--bench-result", bench.string()};
}

// The output without T20's line (failed requests), which these cases check apart.
std::string cc_without_t20(const std::string& out) {
    return testsupport::each_line(out, [](std::string& line) { return !line.starts_with("[T20]"); });
}

}  // namespace

TEST_CASE("client-counts: a chunk-counting client on the speculative run, T15 naming T18, exit 1",
          "[cli][T18][T15][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("client-counts");
    auto bench = cc_write(tmp.path, "bench.json", cc_bench_json(48, 4856));
    auto r = run_cli(cc_args(root, bench));
    CHECK(r.rc == 1);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::Contains("[T20] PASS  none of the 48 requests failed"));
    CHECK(cc_without_t20(r.out) ==
          "[T15] WARN  requests agree, but the server generated 12,288 output tokens and the load tool counted 4,856: "
          "it counted stream chunks, not tokens (T18)\n"
          "[T18] TRIPWIRE-FAILED  the load tool counted 4,856 output tokens and the server generated 12,288, 2.53x as "
          "many: the 2.55 tokens per step of speculative decoding (7,457 accepted draft tokens over 4,808 drafts), so "
          "the load tool counted stream chunks, not tokens, and its output throughput is low by the same factor\n");

    auto args = cc_args(root, bench);
    args.push_back("--json");
    auto j = run_cli(args);
    CHECK(j.rc == 1);
    auto doc = nlohmann::json::parse(j.out);
    REQUIRE(doc.size() == 3);  // T15, T18, T20
    CHECK(doc[2]["tripwire"] == "T20");
    CHECK(doc[0]["tripwire"] == "T15");
    CHECK(doc[0]["evidence"]["cause"] == "T18");
    CHECK(doc[1]["tripwire"] == "T18");
    CHECK(doc[1]["status"] == "fail");
    CHECK(doc[1]["evidence"]["client_output_tokens"] == 4856);
    CHECK(doc[1]["evidence"]["server_output_tokens"] == 12288.0);
    CHECK(doc[1]["evidence"]["spec_drafts"] == 4808.0);
    CHECK(doc[1]["evidence"]["spec_accepted_tokens"] == 7457.0);
    CHECK(doc[1]["evidence"]["result_file"] == bench.string());
}

TEST_CASE("client-counts: a client that counted tokens passes both, exit 0", "[cli][T18][T15][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("client-counts");
    auto r = run_cli(cc_args(root, cc_write(tmp.path, "bench.json", cc_bench_json(48, 12288))));
    CHECK(r.rc == 0);
    CHECK(cc_without_t20(r.out) ==
          "[T15] PASS  client and server agree: 48 requests, 12,288 output tokens\n"
          "[T18] PASS  the load tool's 12,288 output tokens agree with the server's 12,288, at 2.55 tokens "
          "per step of speculative decoding: it counted tokens, not stream chunks\n");
}

TEST_CASE("client-counts: --load-log allows for the requests the client left out", "[cli][T15][T18][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path dir = root / "sglang-0.5/qwen3-8b-own-client";
    std::vector<std::string> args{"client-counts", (dir / "before.snapshot.json").string(),
                                  (dir / "after.snapshot.json").string(), "--bench-result",
                                  (dir / (fs::exists(dir / "bench.json") ? "bench.json" : "bench.jsonl")).string()};
    auto without = run_cli(args);
    CHECK(without.rc == 1);  // the warm-up reads as other traffic
    CHECK(without.out.find("[T18] ????  the client's and the server's requests disagree (T15)") != std::string::npos);
    args.insert(args.end(), {"--load-log", (dir / "load.log").string()});
    auto with = run_cli(args);
    CHECK(with.rc == 0);
    CHECK_THAT(with.out, Catch::Contains("[T20] PASS  none of the 32 requests failed"));
    CHECK(cc_without_t20(with.out) ==
          "[T15] PASS  client and server agree: 32 requests, 32,000 output tokens, plus 1 untimed request "
          "(test or warm-up)\n"
          "[T18] PASS  the load tool's 32,000 output tokens agree with the server's 32,032, one token per "
          "step (no speculative decoding)\n");
}

TEST_CASE("client-counts: a short count without speculative-decoding counters is Can't tell, exit 2",
          "[cli][T18][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("client-counts");
    const fs::path dir = root / "vllm-0.30/live";
    auto bench = cc_write(tmp.path, "bench.json", cc_bench_json(32, 12800));
    auto r = run_cli({"client-counts", (dir / "before.snapshot.json").string(), (dir / "after.snapshot.json").string(),
                      "--bench-result", bench.string()});
    CHECK(r.rc == 2);
    CHECK(r.out.find("[T15] WARN  requests agree, but the server generated 32,000 output tokens and the load tool "
                     "counted 12,800\n") == 0);
    CHECK(r.out.find("[T18] ????  the load tool counted 12,800 output tokens and the server generated 32,000, and the "
                     "server exports no speculative-decoding counters to tell chunks from tokens\n") !=
          std::string::npos);
}

TEST_CASE("client-counts: another tool's result, a snapshot or a mistyped count is one line, exit 2",
          "[cli][T18][bad][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("client-counts");
    // genai-perf's profile export: statistics per metric, none of the fields vLLM's client writes.
    auto other = cc_write(tmp.path, "profile_export_genai_perf.json",
                          R"({"request_throughput": {"unit": "requests/sec", "avg": 0.8},)"
                          R"( "output_token_throughput": {"unit": "tokens/sec", "avg": 204.8},)"
                          R"( "request_count": {"unit": "count", "avg": 48}})");
    auto snapshot = root / "vllm-0.28/metrics/preempted_after.snapshot.json";
    auto typed = cc_write(tmp.path, "typed.json", R"({"completed": "48", "total_output_tokens": 4856})");
    auto empty = cc_write(tmp.path, "empty.json", "");
    for (const auto& bad : {other, snapshot, typed, empty, tmp.path / "missing.json"}) {
        INFO(bad);
        auto r = run_cli(cc_args(root, bad));
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find(bad.string()) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    // --bench-result is required.
    const fs::path m = root / "vllm-0.28/metrics";
    auto r = run_cli({"client-counts", (m / "preempted_before.prom").string(), (m / "preempted_after.prom").string()});
    CHECK(r.rc == 2);
    CHECK(r.err.find("--bench-result") != std::string::npos);
    // Snapshots of another engine than named.
    auto named = cc_args(root, cc_write(tmp.path, "bench.json", cc_bench_json(48, 12288)));
    named.insert(named.end(), {"--engine", "sglang"});
    r = run_cli(named);
    CHECK(r.rc == 2);
    CHECK(r.err.find("--engine sglang, but") != std::string::npos);
}
