#include "support.hpp"

#include "inferlint/util/files.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path scratch(const std::string& name, const std::string& text) {
    static const fs::path dir = testsupport::scratch_dir("cli-series");
    auto p = dir / name;
    inferlint::util::write_file(p, text);
    return p;
}

const std::string kHeader = R"({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000", "interval_s": 0.25})";

}  // namespace

TEST_CASE("series: every golden case gives the Python tool's verdicts and evidence", "[series][cli][shared]") {
    REQUIRE_REFERENCE(root);
    auto golden = testsupport::reference_golden();
    REQUIRE(golden);
    int cases = 0;
    for (const auto& entry : fs::directory_iterator(*golden)) {
        auto name = entry.path().filename().string();
        if (name.rfind("series__", 0) != 0) continue;
        json g = json::parse(inferlint::util::read_file(entry.path()));
        std::vector<std::string> args;
        for (const auto& a : g["argv"]) {
            auto s = a.get<std::string>();
            args.push_back(fs::exists(root / s) ? (root / s).string() : s);
        }
        args.push_back("--json");
        auto r = testsupport::run_cli(args, testsupport::kGoldenEnv);
        INFO(name << "\n" << r.err);
        CHECK(r.rc == g["exit"].get<int>());
        json ours = json::parse(r.out);
        REQUIRE(ours.size() == g["json"].size());
        for (std::size_t i = 0; i < ours.size(); ++i) {
            CHECK(ours[i]["tripwire"] == g["json"][i]["tripwire"]);
            CHECK(ours[i]["status"] == g["json"][i]["status"]);
            CHECK(testsupport::json_differ(ours[i]["evidence"], g["json"][i]["evidence"]) == "");
        }
        // the terminal form prints the same verdict lines' labels and exit status
        args.pop_back();
        auto text = testsupport::run_cli(args, testsupport::kGoldenEnv);
        CHECK(text.rc == g["text_exit"].get<int>());
        ++cases;
    }
    CHECK(cases == 21);
}

TEST_CASE("series: the live run's text output", "[series][cli][shared]") {
    REQUIRE_REFERENCE(root);
    auto live = root / "vllm-0.28" / "live";
    auto r = testsupport::run_cli({"series", (live / "run.series.jsonl").string(), "--snapshot",
                                   (live / "after.snapshot.json").string(), "--requested", "32"});
    CHECK(r.rc == 1);
    CHECK(r.out ==
          "[T14] PASS  gauge denominator is 42 = num_gpu_blocks (43) - 1 null block\n"
          "[ T9] WARN  ceiling moved between 7 and 10 as requests grew (one request held 9.5% to 14.3% of the "
          "cache); concurrency was not a constant of this run\n"
          "[ T8] TRIPWIRE-FAILED  requested 32 concurrent, server never ran more than 10\n");
    // the recording names no engine: said on stderr, read as vLLM's
    CHECK_THAT(r.err, Catch::Contains("does not say which engine"));
}

TEST_CASE("series: a recording of another engine than the one named is refused", "[series][cli][shared]") {
    REQUIRE_REFERENCE(root);
    auto trt = (root / "trtllm-1.3" / "pauses" / "run.series.jsonl").string();
    auto r = testsupport::run_cli({"series", trt, "--engine", "vllm"});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("TensorRT-LLM"));
    auto env = testsupport::run_cli({"series", trt}, "INFERLINT_ENGINE=sglang ");
    CHECK(env.rc == 2);
    CHECK_THAT(env.err, Catch::Contains("INFERLINT_ENGINE=sglang"));
    // a snapshot of another engine, too
    auto sg =
        testsupport::run_cli({"series", (root / "vllm-0.28" / "live" / "run.series.jsonl").string(), "--engine", "vllm",
                              "--snapshot", (root / "sglang-0.5" / "live" / "after.snapshot.json").string()});
    CHECK(sg.rc == 2);
}

TEST_CASE("series: bad input is one line, exit 2, never a pass", "[series][cli]") {
    auto one_line_error = [](const std::vector<std::string>& args, const std::string& needle) {
        auto r = testsupport::run_cli(args);
        INFO(r.err);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err.rfind("inferlint: ", 0) == 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_THAT(r.err, Catch::Contains(needle));
    };
    auto dir = scratch("x", "x").parent_path();
    one_line_error({"series", (dir / "nope.jsonl").string()}, "nope.jsonl: no such file");
    one_line_error({"series", scratch("empty.jsonl", "").string()}, "empty.jsonl: empty file");
    one_line_error({"series", dir.string()}, "is a folder");
    one_line_error({"series", scratch("junk.jsonl", std::string("\0\1\2\3junk", 8)).string()}, "binary data");
    one_line_error({"series", scratch("snap.json", R"({"schema": "inferlint.snapshot/1"})").string()},
                   "snap.json: line 1: schema");
    one_line_error({"series", scratch("types.jsonl", kHeader + "\n{\"t_wall\": \"now\", \"running\": 1}\n").string()},
                   "types.jsonl: line 2:");
    one_line_error({"series", scratch("huge.jsonl", std::string(50u << 20, '{')).string()},
                   "huge.jsonl: line 1 is over");
    fs::remove(dir / "huge.jsonl");
}

TEST_CASE("series: a truncated last line is skipped, counted, and the rest checked", "[series][cli]") {
    std::string text = kHeader + "\n";
    for (int i = 0; i < 6; ++i)
        text += R"({"t_wall": )" + std::to_string(100 + i) +
                R"(.0, "t_mono_ns": 1, "running": 4.0, "waiting": 0.0, "kv_usage": 1.0})"
                "\n";
    text += R"({"t_wall": 107.0, "t_mono_ns": 1, "runni)";
    auto p = scratch("cut.series.jsonl", text);
    auto r = testsupport::run_cli({"series", p.string(), "--requested", "4", "--json"});
    INFO(r.err);
    CHECK(r.rc == 0);
    CHECK_THAT(r.err, Catch::Contains("skipped 1 line that is not JSON (first: line 8)"));
    json out = json::parse(r.out);
    CHECK(out[0]["evidence"]["samples"] == 6);
    CHECK(out[0]["evidence"]["ceiling_min"] == 4);
    CHECK(out[1]["status"] == "pass");
}

TEST_CASE("series: --tripwires and INFERLINT_TRIPWIRES report only the tripwires named, and gate on them",
          "[series][cli]") {
    const fs::path run = testsupport::own_fixtures() / "vllm-sim" / "preempted";
    const std::vector<std::string> base{"series",      (run / "run.series.jsonl").string(),
                                        "--snapshot",  (run / "after.snapshot.json").string(),
                                        "--requested", "16"};
    auto all = testsupport::run_cli(base);
    INFO(all.out << all.err);
    CHECK(all.rc == 1);  // T8 fails on this run
    CHECK(all.out.find("[ T8] TRIPWIRE-FAILED") != std::string::npos);

    auto args = base;
    args.insert(args.end(), {"--tripwires", "T9,T14", "--json"});
    auto only = testsupport::run_cli(args);
    json got = json::parse(only.out);
    REQUIRE(got.size() == 2);
    CHECK(got[0]["tripwire"] == "T14");
    CHECK(got[1]["tripwire"] == "T9");
    CHECK(only.rc != 1);  // T8's failure is not asked for

    auto env = testsupport::run_cli(base, "env -u INFERLINT_ENGINE INFERLINT_TRIPWIRES=T8 ");
    CHECK(env.rc == 1);
    CHECK(env.out.find("[T14]") == std::string::npos);
    CHECK(env.out.find("[ T8]") != std::string::npos);

    auto bad = testsupport::run_cli(base, "env -u INFERLINT_ENGINE INFERLINT_TRIPWIRES=T1-T99 ");
    CHECK(bad.rc == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err ==
          "inferlint: INFERLINT_TRIPWIRES=T1-T99: not a list of tripwires (for example all, reference, T1-T15 or "
          "T1,T8)\n");
    args = base;
    args.insert(args.end(), {"--tripwires", "T8-T1"});
    CHECK(testsupport::run_cli(args).rc == 2);
}

TEST_CASE("series: --requested 0 or below is refused in one line naming the option", "[series][cli]") {
    const fs::path run = testsupport::own_fixtures() / "vllm-sim" / "preempted";
    for (const char* n : {"0", "-5", "x", "3.5"}) {
        auto r = testsupport::run_cli({"series", (run / "run.series.jsonl").string(), "--requested", n});
        INFO(n << ": " << r.err);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err.rfind("inferlint: --requested: must be a whole number above 0", 0) == 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}
