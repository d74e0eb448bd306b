// T20 failed-requests: the real load-tool files in ../shared/loadtools ([shared]), mutations
// that flip the verdict with one change, the server's counters, bad counts, and C8.
#include "inferlint/checks/compare.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"
#include "inferlint/util/error.hpp"

#include "support.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

using namespace inferlint;
using Catch::Matchers::Contains;
using inferlint::checks::check_failed_requests;
namespace fs = std::filesystem;

namespace {

BenchResult t20_real(const std::string& rel) {
    const fs::path p = testsupport::loadtools_dir() / rel;
    if (!fs::exists(p))
        FAIL("needs " << p.string() << ", which is absent: leave the [shared] test cases out with ~[shared]");
    return load_bench_result(p);
}

BenchResult t20_text(const std::string& json) { return parse_bench_result(json, "bench.json"); }

// A vLLM snapshot with the finished-request counter by reason.
Snapshot t20_vllm(double stop, std::optional<double> abort) {
    std::string text = "# TYPE vllm:request_success_total counter\n";
    text += fmt::format("vllm:request_success_total{{finished_reason=\"stop\"}} {}\n", stop);
    if (abort) text += fmt::format("vllm:request_success_total{{finished_reason=\"abort\"}} {}\n", *abort);
    text += "vllm:generation_tokens_total 100\n";
    return snapshot_from_text(text, "synthetic.prom");
}

}  // namespace

TEST_CASE("T20: AIPerf's run with 11 cancelled requests fails, and --max-failed-share 15 makes it a warning",
          "[T20][shared]") {
    BenchResult b = t20_real("aiperf/examples-artifacts-run1/profile_export_aiperf.json");
    CheckResult r = check_failed_requests(&b, nullptr, nullptr);
    INFO(r.message);
    CHECK(r.tripwire == TripwireId::T20);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("11 of 100 requests did not complete (11.0%"));
    CHECK_THAT(r.message, Contains("RequestCancellationError (11)"));
    CHECK_THAT(r.message, Contains("cover only the 89 that completed"));
    CHECK(std::fabs(r.evidence["failed_share"].get<double>() - 0.11) < 1e-12);
    CHECK(check_failed_requests(&b, nullptr, nullptr, 0.15).status == Status::warn);
    CHECK(check_failed_requests(&b, nullptr, nullptr, 0.10).status == Status::fail);
    CHECK(check_failed_requests(&b, nullptr, nullptr, 0.11).status == Status::warn);  // at the share: WARN
}

TEST_CASE("T20: vllm bench serve on A100 that completed 240 of 250 fails; its 250-of-250 repeat passes",
          "[T20][shared]") {
    const std::string dir = "vllm-bench-serve/llm-d-benchmark-exp7_A100_llm-d-2p1d/";
    BenchResult short_run = t20_real(dir + "benchmark_2025-05-11_23-39-15.json");
    CheckResult r = check_failed_requests(&short_run, nullptr, nullptr);
    INFO(r.message);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("10 of 250 requests did not complete (4.0%"));
    CHECK_THAT(r.message, Contains("completed 240 of the 250 prompts it sent (num_prompts)"));
    BenchResult whole = t20_real(dir + "benchmark_2025-05-11_23-41-55.json");
    CheckResult p = check_failed_requests(&whole, nullptr, nullptr);
    INFO(p.message);
    CHECK(p.status == Status::pass);
    CHECK_THAT(p.message, Contains("none of the 250 requests failed"));
}

TEST_CASE("T20: one count changed flips the verdict", "[T20]") {
    const std::string ok = R"({"completed": 64, "failed": 0, "num_prompts": 64, "total_output_tokens": 6400})";
    BenchResult pass = t20_text(ok);
    CHECK(check_failed_requests(&pass, nullptr, nullptr).status == Status::pass);
    BenchResult fail = t20_text(R"({"completed": 63, "failed": 1, "num_prompts": 64, "total_output_tokens": 6400})");
    CheckResult f = check_failed_requests(&fail, nullptr, nullptr);
    CHECK(f.status == Status::fail);
    CHECK_THAT(f.message, Contains("1 of 64 requests did not complete (1.6%"));
    // vllm bench serve exiting 0 with every request failed
    BenchResult all = t20_text(R"({"completed": 0, "failed": 64, "num_prompts": 64})");
    CheckResult a = check_failed_requests(&all, nullptr, nullptr);
    CHECK(a.status == Status::fail);
    CHECK_THAT(a.message, Contains("64 of 64 requests did not complete (100.0%"));
    CHECK(check_failed_requests(&all, nullptr, nullptr, 0.5).status == Status::fail);
}

TEST_CASE("T20: the server's aborts between the snapshots, read only where the engine exports them", "[T20]") {
    const Snapshot before = t20_vllm(10, 0), clean = t20_vllm(74, 0), aborted = t20_vllm(70, 4);
    CheckResult p = check_failed_requests(nullptr, &before, &clean);
    INFO(p.message);
    CHECK(p.status == Status::pass);
    CheckResult f = check_failed_requests(nullptr, &before, &aborted);
    INFO(f.message);
    CHECK(f.status == Status::fail);
    CHECK_THAT(f.message, Contains("the server finished 4 of 64 requests as aborted or errored ("));
    CHECK_THAT(f.message, Contains("(6.2% failed)"));
    CHECK(f.evidence["server_failed"] == 4.0);
    // The client's clean count and the server's aborts: the server's word fails it.
    BenchResult b = t20_text(R"({"completed": 60, "failed": 0, "num_prompts": 60})");
    CHECK(check_failed_requests(&b, &before, &aborted).status == Status::fail);
    // No abort series at all: the server says nothing, never 0 aborts.
    const Snapshot old_before = t20_vllm(10, std::nullopt), old_after = t20_vllm(74, std::nullopt);
    CheckResult u = check_failed_requests(nullptr, &old_before, &old_after);
    INFO(u.message);
    CHECK(u.status == Status::unknown);
    CHECK_THAT(u.message, Contains("hold no counter of failed requests"));
    CHECK(u.evidence["server_failed"].is_null());
}

TEST_CASE("T20: neither side, or counts that contradict themselves, is Can't tell, never a pass", "[T20]") {
    CheckResult none = check_failed_requests(nullptr, nullptr, nullptr);
    CHECK(none.status == Status::unknown);
    CHECK_THAT(none.message, Contains("--bench-result"));
    BenchResult silent = t20_text(R"({"completed": 64, "total_output_tokens": 6400})");
    CheckResult s = check_failed_requests(&silent, nullptr, nullptr);
    CHECK(s.status == Status::unknown);
    CHECK_THAT(s.message, Contains("states no failed, cancelled or incomplete count"));
    BenchResult negative = t20_text(R"({"completed": 64, "failed": -3, "num_prompts": 64})");
    CheckResult n = check_failed_requests(&negative, nullptr, nullptr);
    CHECK(n.status == Status::unknown);
    CHECK_THAT(n.message, Contains("a negative count"));
    BenchResult too_many = t20_text(R"({"completed": 240, "failed": 20, "num_prompts": 250})");
    CheckResult t = check_failed_requests(&too_many, nullptr, nullptr);
    CHECK(t.status == Status::unknown);
    CHECK_THAT(t.message, Contains("do not add up"));
    BenchResult more_done = t20_text(R"({"completed": 260, "num_prompts": 250})");
    CHECK(check_failed_requests(&more_done, nullptr, nullptr).status == Status::unknown);
    BenchResult nothing = t20_text(R"({"completed": 0, "failed": 0, "num_prompts": 0})");
    CheckResult z = check_failed_requests(&nothing, nullptr, nullptr);
    CHECK(z.status == Status::unknown);
    CHECK_THAT(z.message, Contains("counts no request at all"));
    // A count that is not a number is the parser's one-line error naming the file.
    CHECK_THROWS_AS(t20_text(R"({"completed": 64, "failed": "three"})"), InputError);
}

TEST_CASE("T20: the suite gives it with a load result or both snapshots, and passes --max-failed-share on", "[T20]") {
    checks::RunEvidence ev;
    CHECK(checks::check_run(ev).result(TripwireId::T20) == nullptr);
    ev.bench = t20_text(R"({"completed": 90, "failed": 10, "num_prompts": 100})");
    const checks::RunVerdicts verdicts = checks::check_run(ev);
    const CheckResult* r = verdicts.result(TripwireId::T20);
    REQUIRE(r);
    CHECK(r->status == Status::fail);
    ev.max_failed_share = 0.10;
    CHECK(checks::check_run(ev).result(TripwireId::T20)->status == Status::warn);
}

namespace {

checks::ArmRun t20_arm_run(const std::string& label, long long completed, long long failed) {
    checks::ArmRun run;
    run.label = label;
    run.completed = true;
    BenchResult b = parse_bench_result(
        fmt::format(R"({{"completed": {}, "failed": {}, "num_prompts": {}}})", completed, failed, completed + failed),
        label);
    run.verdicts.push_back(check_failed_requests(&b, nullptr, nullptr));
    return run;
}

checks::ComparisonResult t20_c8(const checks::Arm& a, const checks::Arm& b) {
    for (auto& r : checks::comparability_checks(a, b))
        if (r.id == checks::ComparisonId::C8) return r;
    FAIL("no C8");
    return {};
}

}  // namespace

TEST_CASE("C8: arms whose failed shares differ beyond their noise are refused", "[T20][compare]") {
    checks::Arm a{"A", {t20_arm_run("a1", 64, 0), t20_arm_run("a2", 64, 0), t20_arm_run("a3", 64, 0)}};
    checks::Arm b{"B", {t20_arm_run("b1", 48, 16), t20_arm_run("b2", 48, 16), t20_arm_run("b3", 48, 16)}};
    checks::ComparisonResult r = t20_c8(a, b);
    INFO(r.message);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("failed A 0.0% (0 of 192), B 25.0% (48 of 192)"));
    CHECK(checks::code(r.id) == "C8");
    // One failure in 192 against none: within the noise.
    checks::Arm near{"B", {t20_arm_run("b1", 64, 0), t20_arm_run("b2", 63, 1), t20_arm_run("b3", 64, 0)}};
    checks::ComparisonResult p = t20_c8(a, near);
    INFO(p.message);
    CHECK(p.status == Status::pass);
    CHECK(p.evidence["interval"][0].get<double>() < 0);
    // A run with no count: Can't tell, naming it.
    checks::Arm blind{"B", {t20_arm_run("b1", 64, 0)}};
    blind.runs.push_back(checks::ArmRun{.label = "b2", .completed = true});
    checks::ComparisonResult u = t20_c8(a, blind);
    CHECK(u.status == Status::unknown);
    CHECK_THAT(u.message, Contains("B (b2)"));
}
