// The whole `prefix-cache` command (T16) and `report --unique-prompts`: text and --json,
// exit statuses, the boot log, and bad input.
#include "support.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

using testsupport::run_cli;
using testsupport::TempDir;
namespace fs = std::filesystem;

namespace {

// A copy of a recorded snapshot in `dir` with `series`'s sample lines set to `value`
// (nullopt: dropped), clocks kept.
std::string edited_snapshot(const fs::path& recorded, const fs::path& dir, const std::string& name,
                            const std::string& series, std::optional<double> value) {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(recorded));
    doc["text"] = testsupport::each_line(doc["text"].get<std::string>(), [&](std::string& line) {
        if (!line.starts_with(series + "{") && !line.starts_with(series + " ")) return true;
        if (!value) return false;
        line = line.substr(0, line.rfind(' ') + 1) + std::to_string(*value) + "\n";
        return true;
    });
    fs::path out = dir / name;
    std::ofstream(out, std::ios::binary) << doc.dump(1) << "\n";
    return out.string();
}

}  // namespace

TEST_CASE("prefix-cache: the recorded vLLM run passes, exit 0", "[cli][T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = (root / "vllm-0.29/live/before.snapshot.json").string();
    auto a = (root / "vllm-0.29/live/after.snapshot.json").string();
    auto r = run_cli({"prefix-cache", b, a}, testsupport::kAllTripwiresEnv);
    CHECK(r.rc == 0);
    CHECK(r.out == "[T16] PASS  0 of 2,816 prompt tokens came from the prefix cache (0.0%)\n");
    CHECK(r.err.empty());
    auto j = run_cli({"prefix-cache", b, a, "--json"}, testsupport::kAllTripwiresEnv);
    auto doc = nlohmann::json::parse(j.out);
    REQUIRE(doc.size() == 1);
    CHECK(doc[0]["tripwire"] == "T16");
    CHECK(doc[0]["status"] == "pass");
    CHECK(doc[0]["evidence"]["queried_tokens"] == 2816.0);
    CHECK(doc[0]["evidence"]["hit_tokens"] == 0.0);
    CHECK(doc[0]["evidence"]["hit_rate"] == 0.0);
}

TEST_CASE("prefix-cache: SGLang's own client warns (exit 0, 1 with --strict); its off log passes",
          "[cli][T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto dir = root / "sglang-0.5/qwen3-8b-own-client";
    auto r = run_cli({"prefix-cache", (dir / "before.snapshot.json").string(), (dir / "after.snapshot.json").string()},
                     testsupport::kAllTripwiresEnv);
    CHECK(r.rc == 0);
    CHECK(r.out.starts_with("[T16] WARN  87 of 3,064 prompt tokens came from the prefix cache (2.8%)"));
    auto strict = run_cli(
        {"prefix-cache", (dir / "before.snapshot.json").string(), (dir / "after.snapshot.json").string(), "--strict"});
    CHECK(strict.rc == 1);

    auto live = root / "sglang-0.5/live";
    auto off = run_cli({"prefix-cache", (live / "before.snapshot.json").string(),
                        (live / "after.snapshot.json").string(), "--boot-log", (live / "boot.log").string()},
                       testsupport::kAllTripwiresEnv);
    CHECK(off.rc == 0);
    CHECK(off.out ==
          "[T16] PASS  prefix caching was off (server_args: disable_radix_cache True); 0 of 2,979 prompt "
          "tokens came from the cache\n");
}

TEST_CASE("prefix-cache: raised hits warn, and fail with --unique-prompts; dropped counters exit 2",
          "[cli][T16][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("t16-cli");
    auto b = (root / "vllm-0.29/live/before.snapshot.json").string();
    auto after = root / "vllm-0.29/live/after.snapshot.json";
    auto hits = edited_snapshot(after, tmp.path, "hits.json", "vllm:prefix_cache_hits_total", 1887);
    auto warn = run_cli({"prefix-cache", b, hits}, testsupport::kAllTripwiresEnv);
    CHECK(warn.rc == 0);
    CHECK(warn.out.starts_with("[T16] WARN  1,887 of 2,816 prompt tokens came from the prefix cache (67.0%)"));
    auto fail = run_cli({"prefix-cache", b, hits, "--unique-prompts"}, testsupport::kAllTripwiresEnv);
    CHECK(fail.rc == 1);
    CHECK(
        fail.out.starts_with("[T16] TRIPWIRE-FAILED  1,887 of 2,816 prompt tokens came from the prefix cache "
                             "(67.0%) although the prompts were meant to be unique (--unique-prompts)"));

    auto dropped = edited_snapshot(after, tmp.path, "dropped.json", "vllm:prefix_cache_hits_total", std::nullopt);
    auto unknown = run_cli({"prefix-cache", b, dropped, "--unique-prompts"}, testsupport::kAllTripwiresEnv);
    CHECK(unknown.rc == 2);
    CHECK(unknown.out ==
          "[T16] ????  vllm:prefix_cache_hits_total absent from a snapshot: the prefix cache's share "
          "cannot be told\n");

    // report takes --unique-prompts too, and gives T16 after the other verdicts.
    auto rep = run_cli(
        {"report", "--before", b, "--after", hits, "-o", (tmp.path / "r.html").string(), "--unique-prompts", "--json"},
        testsupport::kAllTripwiresEnv);
    CHECK(rep.rc == 0);
    auto doc = nlohmann::json::parse(rep.out);
    REQUIRE(doc.is_array());
    REQUIRE_FALSE(doc.empty());
    // T16 after the reference's verdicts; only T20 (failed requests) follows it.
    auto t16_of = [](const nlohmann::json& list) {
        for (const auto& r : list)
            if (r["tripwire"] == "T16") return r;
        return nlohmann::json();
    };
    CHECK(doc.back()["tripwire"] == "T20");
    CHECK(doc[doc.size() - 2]["tripwire"] == "T16");
    CHECK(t16_of(doc)["status"] == "fail");
    CHECK(t16_of(doc)["evidence"]["unique_prompts"] == "--unique-prompts");
    auto plain = run_cli({"report", "--before", b, "--after", hits, "-o", (tmp.path / "p.html").string(), "--json"},
                         testsupport::kAllTripwiresEnv);
    CHECK(t16_of(nlohmann::json::parse(plain.out))["status"] == "warn");
}

TEST_CASE("prefix-cache: bad input is one line naming the file, exit 2", "[cli][T16][bad][shared]") {
    REQUIRE_REFERENCE(root);
    TempDir tmp("t16-bad");
    auto vb = (root / "vllm-0.29/live/before.snapshot.json").string();
    auto va = (root / "vllm-0.29/live/after.snapshot.json").string();
    auto sa = (root / "sglang-0.5/live/after.snapshot.json").string();
    auto one_line = [](const testsupport::CliResult& r, const std::string& want) {
        INFO(r.err);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err.starts_with("inferlint: "));
        CHECK(r.err.find(want) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    };
    auto missing = (tmp.path / "missing.json").string();
    one_line(run_cli({"prefix-cache", vb, missing}, testsupport::kAllTripwiresEnv), missing);
    std::ofstream(tmp.path / "trunc.json", std::ios::binary) << "{\"schema\": \"inferlint.snapshot/1\", \"url\"";
    one_line(run_cli({"prefix-cache", (tmp.path / "trunc.json").string(), va}, testsupport::kAllTripwiresEnv),
             "trunc.json: not valid JSON");
    // Another engine's snapshots than the one named, or two engines' snapshots.
    one_line(run_cli({"prefix-cache", vb, va, "--engine", "sglang"}, testsupport::kAllTripwiresEnv),
             "the snapshots came from vLLM");
    one_line(run_cli({"prefix-cache", vb, sa}, testsupport::kAllTripwiresEnv),
             sa + " came from SGLang: give two snapshots of one server");
    // Another engine's log.
    one_line(run_cli({"prefix-cache", vb, va, "--boot-log", (root / "trtllm-1.3/qwen3-8b/boot.log").string()},
                     testsupport::kAllTripwiresEnv),
             "came from TensorRT-LLM: give the log of the server the snapshots were taken from");
    one_line(run_cli({"prefix-cache", vb, va, "--boot-log", missing}, testsupport::kAllTripwiresEnv), missing);
}
