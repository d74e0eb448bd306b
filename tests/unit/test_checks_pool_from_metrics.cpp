// The KV pool from /metrics (parse::pool_from_metrics) where no boot log is given: T9 counts
// TensorRT-LLM's whole blocks from trtllm_kv_cache_max_blocks, and a fleet's replicas are
// held against each other on the pool, block size and KV dtype their /metrics state (T17).
#include "support.hpp"

#include "inferlint/checks/fleet.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/loader.hpp"

#include <string>

using namespace inferlint;
namespace fs = std::filesystem;

namespace pool_metrics_test {

const CheckResult& of(const checks::RunVerdicts& v, TripwireId t) {
    const CheckResult* r = v.result(t);
    REQUIRE(r != nullptr);
    return *r;
}

checks::RunEvidence run_of(const fs::path& series, const fs::path& after) {
    checks::RunEvidence ev;
    ev.series = summarize_series_file(series);
    ev.after = load_snapshot(after);
    return ev;
}

TEST_CASE("pool from /metrics: T9 on TensorRT-LLM without a boot log counts trtllm_kv_cache_max_blocks",
          "[metrics_pool][T9][trtllm]") {
    const fs::path dir = testsupport::own_fixtures() / "metrics";
    auto ev = run_of(dir / "trtllm-no-boot" / "run.series.jsonl", dir / "trtllm-kv-blocks.prom");
    const auto verdicts = checks::check_run(ev);
    const auto& t9 = of(verdicts, TripwireId::T9);
    CHECK(t9.status == Status::warn);
    CHECK(t9.evidence["usable_blocks"] == 2048);
    CHECK(t9.evidence["pool_source"] == "metrics");
    CHECK(t9.evidence["pool_series"] == "trtllm_kv_cache_max_blocks x trtllm_kv_cache_tokens_per_block");
    CHECK(t9.evidence["blocks_per_request_min"] == 64.0);  // 12.5% of 2048 blocks over 4 requests
    CHECK(t9.evidence["ceiling_min"] == 21);
    CHECK(t9.evidence["ceiling_max"] == 32);
}

TEST_CASE("pool from /metrics: T9 on the recorded TensorRT-LLM 1.3 run, with and without its boot log",
          "[metrics_pool][T9][trtllm][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path dir = root / "trtllm-1.3" / "qwen3-8b";
    auto ev = run_of(dir / "run.series.jsonl", dir / "after.snapshot.json");
    const auto verdicts = checks::check_run(ev);
    const auto& t9 = of(verdicts, TripwireId::T9);
    CHECK(t9.status == Status::pass);
    CHECK(t9.evidence["usable_blocks"] == 1180);
    CHECK(t9.evidence["pool_source"] == "metrics");
    CHECK(t9.evidence["ceiling_min"] == 35);
    // With its boot log, T9 is the reference's: no blocks, no pool source.
    auto boot = run::read_boot_start(dir / "boot.log", "boot", nullptr, {});
    REQUIRE(boot);
    ev.boots.push_back(std::move(*boot));
    const auto with_log = checks::check_run(ev);
    const auto& t9_log = of(with_log, TripwireId::T9);
    CHECK(t9_log.evidence["usable_blocks"].is_null());
    CHECK_FALSE(t9_log.evidence.contains("pool_source"));
    CHECK(t9_log.message == t9.message);
}

std::vector<checks::ReplicaEvidence> replicas_of(const std::vector<std::pair<std::string, Snapshot>>& snaps) {
    std::vector<checks::ReplicaEvidence> out;
    for (const auto& [name, snap] : snaps) {
        checks::RunEvidence ev;
        ev.after = snap;
        out.push_back({name, std::move(ev), 0});
    }
    return out;
}

Snapshot vllm_pool(const std::string& blocks, const std::string& dtype) {
    return snapshot_from_text("vllm:cache_config_info{block_size=\"16\",cache_dtype=\"" + dtype +
                                  "\",num_gpu_blocks=\"" + blocks + "\"} 1.0\nvllm:num_requests_running 0.0\n",
                              "replica.prom");
}

TEST_CASE("pool from /metrics: a fleet's T17 holds its replicas' pools against each other",
          "[metrics_pool][T17][fleet]") {
    checks::RunEvidence fleet;
    SECTION("the same pool on both: a pass") {
        auto v = checks::check_fleet(
            replicas_of({{"a:8000", vllm_pool("2000", "auto")}, {"b:8000", vllm_pool("2000", "auto")}}), fleet, 1.0);
        const auto& t17 = of(v.fleet, TripwireId::T17);
        CHECK(t17.status == Status::pass);
        CHECK(t17.evidence["pool_source"] == "metrics");
        CHECK(t17.evidence["starts"] == Json::array({"a:8000", "b:8000"}));
    }
    SECTION("one replica on FP8 KV with twice the blocks: a warning naming both fields") {
        auto v = checks::check_fleet(
            replicas_of({{"a:8000", vllm_pool("2000", "auto")}, {"b:8000", vllm_pool("4000", "fp8")}}), fleet, 1.0);
        const auto& t17 = of(v.fleet, TripwireId::T17);
        CHECK(t17.status == Status::warn);
        CHECK(t17.evidence["differ"] == Json::array({"kv_cache_dtype", "kv_capacity_tokens"}));
        CHECK(t17.message.find("kv_cache_dtype (auto, fp8)") != std::string::npos);
        CHECK(t17.message.find("kv_capacity_tokens (32,000, 64,000)") != std::string::npos);
    }
    SECTION("only one replica states a pool: no T17, never a Can't tell from nothing") {
        auto v = checks::check_fleet(
            replicas_of({{"a:8000", vllm_pool("2000", "auto")},
                         {"b:8000", snapshot_from_text("vllm:num_requests_running 0.0\n", "b.prom")}}),
            fleet, 1.0);
        CHECK(v.fleet.result(TripwireId::T17) == nullptr);
    }
}

TEST_CASE("pool from /metrics: a fleet of the recorded vLLM 0.30 starts, whose pools differ (T4's jump)",
          "[metrics_pool][T17][fleet][shared]") {
    REQUIRE_REFERENCE(root);
    const auto start1 = load_snapshot(root / "vllm-0.30/qwen3-8b-start1/after.snapshot.json");
    const auto start2 = load_snapshot(root / "vllm-0.30/qwen3-8b-start2/after.snapshot.json");
    checks::RunEvidence fleet;
    auto same = checks::check_fleet(replicas_of({{"a", start1}, {"b", start1}}), fleet, 1.0);
    CHECK(of(same.fleet, TripwireId::T17).status == Status::pass);
    // The two starts' boot logs state 32,336 and 47,888 KV tokens; their /metrics say the same.
    auto differ = checks::check_fleet(replicas_of({{"start1", start1}, {"start2", start2}}), fleet, 1.0);
    const auto& t17 = of(differ.fleet, TripwireId::T17);
    CHECK(t17.status == Status::warn);
    CHECK(t17.evidence["differ"] == Json::array({"kv_capacity_tokens"}));
    CHECK(t17.evidence["fields"]["kv_capacity_tokens"]["realized"] == Json::array({32336, 47888}));
    CHECK(t17.evidence["fields"]["block_size"]["realized"] == Json::array({16, 16}));
}

}  // namespace pool_metrics_test
