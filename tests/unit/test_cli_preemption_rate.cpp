// Whole commands: preemption (T1) and rate (T10), text and --json, engines and bad input.
#include "support.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

using testsupport::run_cli;

TEST_CASE("preemption: text line and exit status 1 on the recorded preempted run", "[cli][T1][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = run_cli({"preemption", (root / "vllm-0.28/metrics/preempted_before.prom").string(),
                      (root / "vllm-0.28/metrics/preempted_after.prom").string()});
    CHECK(r.rc == 1);
    CHECK(r.out == "[ T1] TRIPWIRE-FAILED  60 preemptions during the run\n");
}

TEST_CASE("preemption --json: the array of results with evidence", "[cli][T1][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = run_cli({"preemption", (root / "vllm-0.28/live/before.snapshot.json").string(),
                      (root / "vllm-0.28/live/after.snapshot.json").string(), "--json"});
    auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc.is_array());
    REQUIRE(doc.size() == 1);
    CHECK(doc[0]["tripwire"] == "T1");
    CHECK(doc[0]["evidence"]["series"] == "vllm:num_preemptions_total");
    CHECK(r.rc == (doc[0]["status"] == "fail" ? 1 : 0));
}

TEST_CASE("preemption: snapshots from another engine than named exit 2", "[cli][engine][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = (root / "sglang-0.5/live/before.snapshot.json").string();
    auto a = (root / "sglang-0.5/live/after.snapshot.json").string();
    auto r = run_cli({"preemption", b, a, "--engine", "vllm"});
    CHECK(r.rc == 2);
    CHECK(r.err.find("--engine vllm, but the snapshots came from SGLang") != std::string::npos);
    auto env = run_cli({"preemption", b, a}, "env INFERLINT_ENGINE=trtllm ");
    CHECK(env.rc == 2);
    CHECK(env.err.find("INFERLINT_ENGINE=trtllm") != std::string::npos);
    auto ok = run_cli({"preemption", b, a, "--engine", "SGLang"});
    CHECK(ok.rc != 2);
}

TEST_CASE("rate: tokens/s and the integer-second comparison on the example run", "[cli][T10]") {
    auto dir = testsupport::source_dir() / "examples" / "demo-run";
    auto r = run_cli({"rate", (dir / "before.snapshot.json").string(), (dir / "after.snapshot.json").string()});
    CHECK(r.rc == 0);
    CHECK(r.out.find("[T10] PASS  400.00 tokens/s over 80.000s") == 0);
    CHECK(r.out.find("an integer-second timer would say") != std::string::npos);
    auto j =
        run_cli({"rate", (dir / "before.snapshot.json").string(), (dir / "after.snapshot.json").string(), "--json"});
    auto doc = nlohmann::json::parse(j.out);
    CHECK(doc[0]["evidence"]["tokens"].get<double>() == 32000.0);
    CHECK(doc[0]["message"] == "400.00 tokens/s over 80.000s");
}

TEST_CASE("preemption/rate: bad input is one line naming the file, exit 2", "[cli][bad]") {
    auto dir = testsupport::scratch_dir("cli-bad");
    auto write = [&](const std::string& name, const std::string& body) {
        std::ofstream(dir / name, std::ios::binary) << body;
        return (dir / name).string();
    };
    auto good = write("good.prom", "vllm:num_preemptions_total 1\n");
    std::vector<std::pair<std::string, std::string>> cases = {
        {(dir / "missing.json").string(), "no such file"},
        {dir.string(), "is a folder"},
        {write("empty.json", ""), "empty"},
        {write("junk.bin", std::string("\0\x01\x02garbage", 10)), "binary"},
        {write("trunc.json", "{\"schema\": \"inferlint.snapshot/1\", \"url\""), "not valid JSON"},
        {write("schema.json", "{\"schema\": \"inferlint.series/1\"}"), "not an inferlint.snapshot/1"},
        {write("label.prom", "vllm:x{a=\"1\",b} 1\n"), "line 1"},
    };
    for (const auto& [path, want] : cases) {
        for (const char* cmd : {"preemption", "rate"}) {
            auto r = run_cli({cmd, good, path});
            INFO(cmd << " " << path << " -> " << r.err);
            CHECK(r.rc == 2);
            CHECK(r.out.empty());
            CHECK(r.err.find("inferlint: ") == 0);
            CHECK(r.err.find(want) != std::string::npos);
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        }
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: no arguments says where to start; a typo gets a suggestion", "[cli]") {
    auto r = run_cli({});
    CHECK(r.rc == 0);
    CHECK(r.out.find("Start here:") != std::string::npos);
    auto t = run_cli({"preemptoin"});
    CHECK(t.rc == 2);
    CHECK(t.err.find("Did you mean 'preemption'?") != std::string::npos);
    auto v = run_cli({"--version"});
    CHECK(v.rc == 0);
    CHECK(v.out.find("inferlint 0.3.1") != std::string::npos);
    auto h = run_cli({"--help"});
    CHECK(h.rc == 0);
    CHECK(h.out.find("Check a saved run") != std::string::npos);
    auto bad_engine = run_cli({"rate", "a", "b", "--engine", "tgi"});
    CHECK(bad_engine.rc == 2);
}
