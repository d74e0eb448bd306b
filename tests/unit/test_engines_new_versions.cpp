// What the newer engine releases print and export (issue 29): vLLM's "Preemptions: N" in
// its periodic stats line as T1's second witness; more in the sections below. Each format on
// a line of the project's own (tests/fixtures) and, where ../shared holds one, a real line.
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/parse/bootlog.hpp"

#include "support.hpp"

namespace new_versions_test {

namespace fs = std::filesystem;
using namespace inferlint;

fs::path own(const std::string& name) { return testsupport::own_fixtures() / name; }

Snapshot snap(const std::string& prom, double t_wall) {
    Snapshot s;
    s.url = "http://x/metrics";
    s.text = prom;
    s.t_wall = t_wall;
    s.t_mono_ns = static_cast<long long>(t_wall * 1e9);
    s.latency_s = 0.01;
    return s;
}

std::string vllm_prom(int preemptions) {
    return "vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} " + std::to_string(preemptions) +
           "\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0\n";
}

// ---- vLLM: Preemptions in the periodic stats line

TEST_CASE("vLLM stats lines: Preemptions summed over the lines that print it", "[bootlog][T1][engines]") {
    auto f = parse::parse_boot_log_file(own("bootlog/vllm/stats_preemptions.log"), nullptr);
    CHECK(f.engine == "vllm");
    CHECK(f.realized.stats_lines == 4);
    CHECK(f.realized.logged_preemptions == 5);  // 3 + 2; "Deferred: 1 reqs" before it
    CHECK(f.unparsed.empty());
}

TEST_CASE("vLLM stats lines of 0.28 print no count: nullopt, not 0", "[bootlog][T1][engines][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = parse::parse_boot_log_file(root / "vllm-0.28/run_preempted_silently.log", nullptr);
    CHECK(f.realized.stats_lines > 0);
    CHECK_FALSE(f.realized.logged_preemptions);
}

TEST_CASE("T1: vLLM's logged preemptions are the second witness", "[T1][engines]") {
    auto b = snap(vllm_prom(10), 1), a = snap(vllm_prom(15), 2);
    checks::PauseEvidence p;
    p.have_log = true;
    p.stats_lines = 4;
    p.logged_preemptions = 5;
    auto r = checks::check_no_preemption(b, a, p);
    CHECK(r.status == Status::fail);
    CHECK(r.message == "5 preemptions during the run (the server log's stats lines count 5)");
    CHECK(r.evidence["preemptions_in_log"] == 5);
    CHECK(r.evidence["stats_lines"] == 4);

    // The counter is absent from a snapshot: the log alone fails the run.
    auto bare = snap("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0\n", 1);
    auto from_log = checks::check_no_preemption(bare, bare, p);
    CHECK(from_log.status == Status::fail);
    CHECK(from_log.evidence["preemptions"] == 5);
    // Without a count in the log it stays Can't tell: no line is not no preemption.
    checks::PauseEvidence silent;
    silent.have_log = true;
    silent.stats_lines = 4;
    CHECK(checks::check_no_preemption(bare, bare, silent).status == Status::unknown);

    // Preemptions outside the snapshots' window do not fail it, and are said.
    auto quiet = checks::check_no_preemption(b, b, p);
    CHECK(quiet.status == Status::pass);
    CHECK_THAT(quiet.message, Catch::Contains("count 5 outside them"));
    // A log with no count leaves the message as the reference prints it.
    CHECK(checks::check_no_preemption(b, a, silent).message == "5 preemptions during the run");
    CHECK_FALSE(checks::check_no_preemption(b, a, silent).evidence.contains("preemptions_in_log"));
}

}  // namespace new_versions_test

namespace new_versions_test {

// ---- TensorRT-LLM: pauses a log at INFO would not show

std::string trt_prom() { return "trtllm_num_requests_running 0\n"; }

TEST_CASE("T1 on TensorRT-LLM: no pause at INFO is Can't tell on a release that may log them at DEBUG",
          "[T1][trtllm][engines]") {
    auto f = parse::parse_boot_log_file(own("bootlog/trtllm/served_info_only.log"), nullptr);
    REQUIRE(f.engine == "trtllm");
    CHECK(f.pauses == 0);
    CHECK(f.served_in_log == 3);
    CHECK_FALSE(f.realized.trt_debug_lines);
    auto b = snap(trt_prom(), 1);
    auto r = checks::check_no_preemption(b, b, checks::pause_evidence(nullptr, &f));
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Catch::Contains("TLLM_LOG_LEVEL=DEBUG"));
    CHECK_THAT(r.message, Catch::Contains("1.3.0rc31"));

    // With DEBUG lines in the log a pause would be there: none is a pass.
    std::string text = util::read_file(own("bootlog/trtllm/served_info_only.log"));
    text += "[12/01/2026-09:12:00] [TRT-LLM] [D] [batchmgr] scheduled 3 requests\n";
    auto dbg = parse::parse_boot_log(text, nullptr);
    CHECK(dbg.realized.trt_debug_lines);
    CHECK(checks::check_no_preemption(b, b, checks::pause_evidence(nullptr, &dbg)).status == Status::pass);
    // The C++ logger's form too.
    auto cpp = parse::parse_boot_log(text + "[TensorRT-LLM][DEBUG] MaxUtilizationScheduler: scheduling request ID 9\n",
                                     nullptr);
    CHECK(cpp.realized.trt_debug_lines);
}

TEST_CASE("T1 on TensorRT-LLM 1.3.0rc29 at INFO still passes, as the reference prints it", "[T1][trtllm][engines][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = parse::parse_boot_log_file(root / "trtllm-1.3/qwen3-8b/boot.log", nullptr);
    CHECK_FALSE(f.realized.trt_debug_lines);
    auto b = snap(trt_prom(), 1);
    auto r = checks::check_no_preemption(b, b, checks::pause_evidence(nullptr, &f));
    CHECK(r.status == Status::pass);
    CHECK(r.message == "no pause in the server log, which covers 41 answered requests");
}

TEST_CASE("T1 on a real TensorRT-LLM 1.1 log: no served request, so no count of pauses", "[T1][trtllm][engines][shared]") {
    auto field = testsupport::reference_dir().parent_path() / "field";
    if (!fs::is_directory(field)) FAIL("needs ../shared/field, which is absent: leave [shared] out by hand");
    auto f = parse::parse_boot_log_file(field / "trtllm-1.1.0rc3-dgx-spark-gpt-oss-120b-serve-ok.log", nullptr);
    CHECK(f.engine == "trtllm");
    CHECK_FALSE(f.realized.trt_debug_lines);
    CHECK_FALSE(f.pauses);  // it covers no answered request
    auto b = snap(trt_prom(), 1);
    CHECK(checks::check_no_preemption(b, b, checks::pause_evidence(nullptr, &f)).status == Status::unknown);
}

}  // namespace new_versions_test

#include "inferlint/checks/compare.hpp"
#include "inferlint/parse/metrics_pool.hpp"

namespace new_versions_test {

// ---- the pool from /metrics, for runs and fleets without a boot log

TEST_CASE("pool from /metrics: vLLM's cache_config_info labels", "[metrics_pool][engines]") {
    auto s = load_snapshot(own("metrics/vllm-0.33-cache-config.prom"));
    auto p = parse::pool_from_metrics(s);
    REQUIRE(p);
    CHECK(p->source == "vllm:cache_config_info");
    CHECK(p->blocks == 3584);
    CHECK(p->block_size == 32);
    CHECK(p->tokens == 114688);
    CHECK(p->kv_cache_dtype == "fp8_e4m3");
    // Without kv_cache_size_tokens (before 0.30) the pool is blocks x block size.
    auto older = snapshot_from_text(
        "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",num_gpu_blocks=\"100\"} 1.0\n", "old.prom");
    CHECK(parse::pool_from_metrics(older)->tokens == 1600);
    // None of it: no pool, never 0.
    CHECK_FALSE(parse::pool_from_metrics(snapshot_from_text("vllm:num_requests_running 0\n", "none.prom")));
}

TEST_CASE("pool from /metrics: TensorRT-LLM's block gauges", "[metrics_pool][trtllm][engines]") {
    auto p = parse::pool_from_metrics(load_snapshot(own("metrics/trtllm-kv-blocks.prom")));
    REQUIRE(p);
    CHECK(p->blocks == 2048);
    CHECK(p->block_size == 64);
    CHECK(p->tokens == 131072);
    CHECK(p->kv_cache_dtype == "fp8");
    CHECK(p->source == "trtllm_kv_cache_max_blocks x trtllm_kv_cache_tokens_per_block");
    auto cfg = checks::metrics_config(*p);
    auto field = [&](std::string_view n) {
        for (const auto& f : cfg)
            if (f.name == n) return f.realized;
        return Json();
    };
    CHECK(field("kv_capacity_tokens") == 131072);
    CHECK(field("block_size") == 64);
    CHECK(field("kv_cache_dtype") == "fp8");
    CHECK(field("engine_version").is_null());
}

TEST_CASE("pool from /metrics on recorded vLLM 0.30 and TensorRT-LLM 1.3 snapshots", "[metrics_pool][engines][shared]") {
    REQUIRE_REFERENCE(root);
    auto v = parse::pool_from_metrics(load_snapshot(root / "vllm-0.30/qwen3-8b-start1/after.snapshot.json"));
    REQUIRE(v);
    CHECK(v->tokens == 32336);  // what its boot log states
    CHECK(v->blocks == 2021);
    CHECK(v->block_size == 16);
    CHECK(v->kv_cache_dtype == "auto");
    auto t = parse::pool_from_metrics(load_snapshot(root / "trtllm-1.3/qwen3-8b/after.snapshot.json"));
    REQUIRE(t);
    CHECK(t->blocks == 1180);
    CHECK(t->block_size == 32);
    CHECK(t->tokens == 37760);
    CHECK(t->kv_cache_dtype == "auto");
}

}  // namespace new_versions_test

namespace new_versions_test {

TEST_CASE("compare's C2 weighs pools read from /metrics when no arm has a boot log", "[metrics_pool][compare][engines]") {
    auto arm = [](const std::string& name, const char* prom) {
        checks::Arm a;
        a.name = name;
        checks::ArmRun r;
        r.label = name + "/run1";
        r.completed = true;
        auto pool = parse::pool_from_metrics(load_snapshot(own(prom)));
        REQUIRE(pool);
        r.config = checks::metrics_config(*pool);
        r.kv_source = pool->source;
        a.runs.push_back(std::move(r));
        return a;
    };
    auto a = arm("A", "metrics/vllm-0.33-cache-config.prom"), b = arm("B", "metrics/trtllm-kv-blocks.prom");
    auto checks = checks::comparability_checks(a, b);
    const checks::ComparisonResult* c2 = nullptr;
    for (const auto& c : checks)
        if (c.id == checks::ComparisonId::C2) c2 = &c;
    REQUIRE(c2);
    CHECK(c2->status == Status::warn);  // 114,688 against 131,072 tokens: more than one pool step
    CHECK_THAT(c2->message, Catch::Contains("with the KV cache in"));  // fp8 against fp8_e4m3
    CHECK(c2->evidence["kv_source"]["A"] == Json::array({"vllm:cache_config_info"}));
    CHECK(c2->evidence["kv_tokens"]["B"] == 131072);
}

}  // namespace new_versions_test

#include "inferlint/parse/failures.hpp"

namespace new_versions_test {

// ---- a failure line a terminal hard-wrapped

TEST_CASE("T12's cause: a failure line hard-wrapped by a terminal is joined again", "[failures][engines]") {
    auto f = parse::classify_failure(util::read_file(own("bootlog/vllm/wrapped_failure.log")));
    REQUIRE(f);
    CHECK(f->lineno == 5);
    CHECK_THAT(f->line, Catch::Contains("KV cache is needed, which is larger than the available KV cache memory"));
    CHECK_THAT(f->summary(), Catch::Contains("(2.10 GiB)"));
    CHECK_THAT(f->line, Catch::Contains("maximum model length is 57344"));  // the third piece too
    // An indented line after it is the traceback's, not the rest of the line.
    auto indented = parse::classify_failure(
        "(EngineCore pid=9) ValueError: To serve at least one request with the model's max seq len (8192), (1.00 GiB "
        "KV cach\n    e is needed\n");
    REQUIRE(indented);
    CHECK(indented->line.find("e is needed") == std::string::npos);
}

TEST_CASE("T12's cause on the real hard-wrapped XPU log", "[failures][engines][shared]") {
    auto field = testsupport::reference_dir().parent_path() / "field";
    if (!fs::is_directory(field)) FAIL("needs ../shared/field, which is absent: leave [shared] out by hand");
    auto f = parse::classify_failure(
        util::read_file(field / "vllm-unknown-xpu-arc-b70-kv-cache-memory-bytes-fail-part2.log"));
    REQUIRE(f);
    CHECK_THAT(f->line, Catch::Contains("(4.26 GiB KV cache is needed, which is larger than the available KV cache "
                                        "memory (4.25 GiB)"));
}

}  // namespace new_versions_test
