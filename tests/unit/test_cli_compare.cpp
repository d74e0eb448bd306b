// `compare` on the recorded runs, copied into a scratch folder as arms of several runs:
// the comparability checks on real evidence, the JSON, and bad input.
#include "support.hpp"

#include <fstream>

using Catch::Matchers::Contains;
using testsupport::run_cli;
using testsupport::TempDir;
using CompareDoc = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// `n` copies of a recorded run folder under dir/name/run-K.
fs::path arm_of(const fs::path& dir, const std::string& name, const fs::path& run, int n) {
    for (int i = 1; i <= n; ++i) {
        const fs::path to = dir / name / ("run-" + std::to_string(i));
        fs::create_directories(to);
        fs::copy(run, to, fs::copy_options::recursive);
    }
    return dir / name;
}

CompareDoc compare_json(const std::vector<std::string>& args, int* rc = nullptr) {
    std::vector<std::string> all{"compare"};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--json");
    auto r = run_cli(all);
    INFO(r.err);
    if (rc) *rc = r.rc;
    return CompareDoc::parse(r.out);
}

const CompareDoc& check_of(const CompareDoc& doc, const std::string& id) {
    for (const auto& c : doc["checks"])
        if (c["check"] == id) return c;
    FAIL("no check " << id);
    static CompareDoc none;
    return none;
}

}  // namespace

TEST_CASE("compare: two vLLM starts with different KV pools, three runs an arm", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "start1", root / "vllm-0.30/qwen3-8b-start1", 3);
    auto b = arm_of(t.path, "start2", root / "vllm-0.30/qwen3-8b-start2", 3);
    int rc = -1;
    CompareDoc doc = compare_json({a.string(), "--vs", b.string(), "--name-a", "start1", "--name-b", "start2"}, &rc);
    CHECK(rc == 1);  // T1 failed in start1's runs: C6
    CHECK(doc["can_tell"] == true);
    CHECK(doc["arms"]["a"]["name"] == "start1");
    CHECK(doc["arms"]["a"]["runs"].size() == 3);
    CHECK(doc["arms"]["a"]["completed"].size() == 3);
    CHECK(doc["arms"]["a"]["failed_runs"] == 0);
    // The recorded pools: 32,336 and 47,888 tokens, 1.481x, more than one pool step.
    const CompareDoc& c2 = check_of(doc, "C2");
    CHECK(c2["status"] == "warn");
    CHECK(c2["evidence"]["factor"].get<double>() == Approx(47888.0 / 32336.0));
    CHECK_THAT(c2["message"].get<std::string>(), Contains("(1.481x)"));
    const CompareDoc& c6 = check_of(doc, "C6");
    CHECK(c6["status"] == "fail");
    CHECK(c6["evidence"]["failed"].size() == 3);
    CHECK(c6["evidence"]["failed"][0]["tripwire"] == "T1");
    CHECK_THAT(c6["message"].get<std::string>(), Contains("T1 in " + (a / "run-1").string()));
    CHECK(check_of(doc, "C4")["status"] == "pass");
    CHECK(check_of(doc, "C1")["status"] == "pass");
    // T10's figure: the rate T10 reports over the snapshots' span, the same in each copy.
    auto t10 = run_cli(
        {"rate", (a / "run-1/before.snapshot.json").string(), (a / "run-1/after.snapshot.json").string(), "--json"});
    const double rate = CompareDoc::parse(t10.out)[0]["evidence"]["rate_per_s"].get<double>();
    const CompareDoc& out_tp = doc["figures"][0];
    CHECK(out_tp["figure"] == "output_throughput");
    CHECK(out_tp["a"][0].get<double>() == rate);
    // Copies of one run: the difference has no spread, so the interval is the point.
    CHECK(out_tp["interval"][0].get<double>() == Approx(out_tp["relative_difference"].get<double>()));
    CHECK(doc["figures"][2]["figure"] == "ttft_p50");
    CHECK(doc["figures"][2]["better"] == "lower");
    CHECK(doc["figures"][2]["a"][0].get<double>() == Approx(638.895364499831));
}

TEST_CASE("compare: copies of the same run are a tie; --require-gain fails on it", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 3);
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    auto r = run_cli({"compare", a.string(), "--vs", b.string(), "--require-gain", "output_throughput"});
    INFO(r.out << r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.out, Contains("no difference shown: [+0.0%, +0.0%] includes 0"));
    CHECK_THAT(r.out,
               Contains("[gate] TRIPWIRE-FAILED  require-gain output_throughput: the gain's lower bound +0.0% is "
                        "not above +0.0%"));
}

TEST_CASE("compare: fewer than 3 completed runs an arm is Can't tell, exit 2", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 2);
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    int rc = -1;
    CompareDoc doc = compare_json({a.string(), "--vs", b.string()}, &rc);
    CHECK(rc == 2);
    CHECK(doc["can_tell"] == false);
    CHECK(doc["cant_tell"] == "A has 2 completed runs; a difference needs at least 3 completed runs per arm");
    CHECK(doc["exit_status"] == 2);
}

TEST_CASE("compare: a run without its snapshots counts as a failed run of its arm, never dropped",
          "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 4);
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    fs::remove(a / "run-2/after.snapshot.json");
    fs::remove(a / "run-4/before.snapshot.json");
    fs::remove(a / "run-4/after.snapshot.json");
    int rc = -1;
    CompareDoc doc = compare_json({a.string(), "--vs", b.string()}, &rc);
    const CompareDoc& arm = doc["arms"]["a"];
    CHECK(arm["runs"].size() == 4);
    CHECK(arm["completed"].size() == 2);
    CHECK(arm["failed_runs"] == 2);
    CHECK(arm["failures"][0]["run"] == (a / "run-2").string());
    CHECK(arm["failures"][0]["reason"] == "no after snapshot");
    CHECK(arm["failures"][1]["reason"] == "no before or after snapshot");
    CHECK(check_of(doc, "C7")["status"] == "fail");
    CHECK(rc == 1);  // C7 failed, and A has 2 completed runs: can't tell too
    CHECK(doc["can_tell"] == false);
}

TEST_CASE("compare: xray's results.json saying the run did not complete makes it a failed run", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 4);
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    std::ofstream(a / "run-3/results.json")
        << R"({"schema": "inferlint.xray/1", "completed": false, "problem": "the server stopped answering during the load"})";
    CompareDoc doc = compare_json({a.string(), "--vs", b.string()});
    CHECK(doc["arms"]["a"]["failed_runs"] == 1);
    CHECK(doc["arms"]["a"]["failures"][0]["reason"] == "the server stopped answering during the load");
    CHECK(doc["can_tell"] == true);  // 3 of 4 completed
    CHECK_THAT(check_of(doc, "C7")["message"].get<std::string>(), Contains("A: 1 of 4 runs did not complete"));
}

TEST_CASE("compare: bad input is one line and exit 2", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    auto one_line = [](const testsupport::CliResult& r) {
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    };
    SECTION("an empty arm") {
        auto r = run_cli({"compare", "--vs", b.string()});
        INFO(r.err);
        one_line(r);
        CHECK_THAT(r.err, Contains("no runs for A"));
    }
    SECTION("a folder that is not a run") {
        fs::create_directories(t.path / "empty" / "sub");
        auto r = run_cli({"compare", (t.path / "empty").string(), "--vs", b.string()});
        INFO(r.err);
        one_line(r);
        CHECK_THAT(r.err, Contains((t.path / "empty").string() + ": not a run folder"));
    }
    SECTION("a missing folder") {
        auto r = run_cli({"compare", (t.path / "nowhere").string(), "--vs", b.string()});
        one_line(r);
        CHECK_THAT(r.err, Contains("nowhere: no such folder"));
    }
    SECTION("runs of one arm from different engines") {
        auto a = arm_of(t.path, "mixed", root / "vllm-0.30/qwen3-8b-start2", 2);
        fs::create_directories(a / "run-3");
        fs::copy(root / "sglang-0.5/qwen3-8b", a / "run-3", fs::copy_options::recursive);
        auto r = run_cli({"compare", a.string(), "--vs", b.string()});
        INFO(r.err);
        one_line(r);
        CHECK_THAT(r.err, Contains("came from vLLM"));
        CHECK_THAT(r.err, Contains("came from SGLang"));
        CHECK_THAT(r.err, Contains("an arm is one configuration"));
    }
    SECTION("a run whose files came from different engines") {
        auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 3);
        fs::copy_file(root / "sglang-0.5/qwen3-8b/after.snapshot.json", a / "run-2/after.snapshot.json",
                      fs::copy_options::overwrite_existing);
        auto r = run_cli({"compare", a.string(), "--vs", b.string()});
        INFO(r.err);
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Contains("run-2"));
    }
    SECTION("a truncated snapshot names the file") {
        auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 3);
        std::ofstream(a / "run-1/before.snapshot.json") << "{\"schema\": \"inferlint.snapshot/1\", \"te";
        auto r = run_cli({"compare", a.string(), "--vs", b.string()});
        one_line(r);
        CHECK_THAT(r.err, Contains("run-1/before.snapshot.json"));
    }
    SECTION("an unknown figure in a gate") {
        auto r = run_cli({"compare", b.string(), "--vs", b.string(), "--require-gain", "speed:5"});
        one_line(r);
        CHECK_THAT(r.err, Contains("unknown figure 'speed'"));
    }
}

TEST_CASE("compare: a folder of run folders is its runs, and -o writes the page", "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start1", 3);
    auto b = arm_of(t.path, "b<&>", root / "vllm-0.30/qwen3-8b-start2", 3);
    const fs::path page = t.path / "compare.html";
    auto r = run_cli({"compare", a.string(), "--vs", (b / "run-1").string(), (b / "run-2").string(),
                      (b / "run-3").string(), "--name-b", "<b>fp8</b>", "-o", page.string()});
    INFO(r.out << r.err);
    CHECK_THAT(r.out, Contains("A: 3 runs, 3 completed"));
    CHECK_THAT(r.out, Contains("<b>fp8</b>: 3 runs, 3 completed"));
    REQUIRE(fs::is_regular_file(page));
    std::ifstream in(page);
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(html, Contains("&lt;b&gt;fp8&lt;/b&gt; against A"));
    CHECK(html.find("<b>fp8</b>") == std::string::npos);
    CHECK_THAT(html, Contains("b&lt;&amp;&gt;"));
    CHECK_THAT(html, Contains("data-theme-toggle"));
    CHECK_THAT(html, Contains("Content-Security-Policy"));
    CHECK_THAT(html, Contains("<svg viewBox="));
    CHECK_THAT(html, Contains("Data table"));
}

TEST_CASE("compare: arms measured by two load tools fail C4, which says what each tool's figures were read as",
          "[compare][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir t("compare");
    auto a = arm_of(t.path, "a", root / "vllm-0.30/qwen3-8b-start2", 3);
    auto b = arm_of(t.path, "b", root / "vllm-0.30/qwen3-8b-start2", 3);
    // B's runs keep their server evidence, but their load result is GuideLLM's (our own small file).
    for (int i = 1; i <= 3; ++i)
        fs::copy_file(testsupport::own_fixtures() / "loadtools" / "guidellm-v2-small.json",
                      b / ("run-" + std::to_string(i)) / "bench.json", fs::copy_options::overwrite_existing);
    CompareDoc doc = compare_json({a.string(), "--vs", b.string()});
    const CompareDoc& c4 = check_of(doc, "C4");
    CHECK(c4["status"] == "fail");
    const std::string msg = c4["message"].get<std::string>();
    CHECK_THAT(msg, Contains("load client (guidellm against vllm bench serve)"));
    CHECK_THAT(msg, Contains("read into one definition each"));
    CHECK_THAT(msg, Contains("GuideLLM"));
    REQUIRE(c4["evidence"].contains("definitions"));
    CHECK(c4["evidence"]["definitions"]["A"].empty());
    CHECK_FALSE(c4["evidence"]["definitions"]["B"].empty());
    // The same tool on both sides says nothing of definitions.
    CompareDoc same = compare_json({a.string(), "--vs", a.string()});
    CHECK_FALSE(check_of(same, "C4")["evidence"].contains("definitions"));
}
