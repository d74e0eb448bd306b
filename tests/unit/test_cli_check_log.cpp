#include "inferlint/core/result.hpp"

#include "../support.hpp"

#include <fstream>

using namespace inferlint;

namespace {
std::filesystem::path scratch(const std::string& name) {
    static const auto dir = testsupport::scratch_dir("cli-log");
    return dir / name;
}
}  // namespace

TEST_CASE("check-log: one failing log, --json", "[cli_check_log][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = testsupport::run_cli(
        {"check-log", (root / "vllm-0.28/boot_spec_backend_override.log").string(), "--json", "--tripwires", "all"});
    CHECK(r.rc == 1);
    Json out = Json::parse(r.out);
    REQUIRE(out.size() == 5);
    CHECK(out[0]["tripwire"] == "T7");
    CHECK(out[2]["tripwire"] == "T6");
    CHECK(out[2]["status"] == "fail");
    // T22 after the reference's verdicts: MTP on a hybrid model before vLLM 0.30, a known bug.
    CHECK(out[3]["tripwire"] == "T22");
    CHECK(out[3]["status"] == "warn");
    // Then T17: --kv-cache-dtype fp8 was asked and used.
    CHECK(out[4]["tripwire"] == "T17");
    CHECK(out[4]["status"] == "pass");
}

TEST_CASE("check-log: two runs' boot.log are labelled by folder and compared", "[cli_check_log][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = testsupport::run_cli({"check-log", (root / "vllm-0.30/qwen3-8b-start1/boot.log").string(),
                                   (root / "vllm-0.30/qwen3-8b-start2/boot.log").string()});
    CHECK(r.rc == 0);
    CHECK(r.out.find("[ T4] WARN  same flags, 2 different pools: 32,336 to 47,888 tokens (48.10% apart) across "
                     "qwen3-8b-start1/boot.log, qwen3-8b-start2/boot.log") != std::string::npos);
    CHECK(r.out.find("[T12] PASS  qwen3-8b-start1/boot.log: no failure in log") != std::string::npos);
    CHECK(r.out.find("peak activation 0.31 to 1.3 GiB") != std::string::npos);
}

TEST_CASE("check-log and boot-facts: bad input exits 2 with one line", "[cli_check_log][shared]") {
    REQUIRE_REFERENCE(root);
    auto empty = scratch("empty.log");
    { std::ofstream(empty.string()); }
    auto junk = scratch("junk.log");
    { std::ofstream(junk.string(), std::ios::binary) << std::string("\0\1\2\3binary", 10); }
    for (const std::string cmd : {"check-log", "boot-facts"}) {
        for (const std::string& bad :
             {scratch("missing.log").string(), empty.string(), junk.string(), scratch("").parent_path().string()}) {
            INFO(cmd << " " << bad);
            auto r = testsupport::run_cli({cmd, bad});
            CHECK(r.rc == 2);
            CHECK(r.out.empty());
            CHECK(r.err.find(bad) != std::string::npos);
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        }
        // another engine's log than the one named
        auto other = testsupport::run_cli({cmd, (root / "sglang-0.5/capped/boot.log").string(), "--engine", "vllm"});
        CHECK(other.rc == 2);
        CHECK(other.err.find("SGLang") != std::string::npos);
    }
}

TEST_CASE("boot-facts: text and --json; an untested release is a note on stderr", "[cli_check_log][shared]") {
    REQUIRE_REFERENCE(root);
    auto text = testsupport::run_cli({"boot-facts", (root / "vllm-0.28/boot_spec_backend_override.log").string()});
    CHECK(text.rc == 0);
    CHECK(text.out.find("drafter_backends             ['FLASHINFER']") != std::string::npos);
    CHECK(text.out.find("cudagraph_mode_downgrade     ('FULL_AND_PIECEWISE', 'PIECEWISE')") != std::string::npos);
    CHECK(text.out.find("processes                    {'APIServer': [3235], 'EngineCore': [3475]}") !=
          std::string::npos);

    auto log = scratch("new.log");
    {
        std::ofstream out(log.string());
        out << "INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.31.2) with config: x\n"
            << "GPU KV cache size: 10 tokens, Maximum concurrency for 5 tokens per request: 2.00x\n"
            << "Available KV cache memory: 1.5.2 GiB\n";
    }
    auto js = testsupport::run_cli({"boot-facts", log.string(), "--json"});
    CHECK(js.rc == 0);
    Json doc = Json::parse(js.out);
    CHECK(doc["vllm_version"] == "0.31.2");
    CHECK(doc["kv_pool_tokens"] == 10);
    CHECK(doc["unparsed"][0]["field"] == "available_kv_cache_gib");
    CHECK(js.err.find("note: vLLM 0.31.2 is not a tested version") != std::string::npos);
    auto strict = testsupport::run_cli({"boot-facts", log.string(), "--strict"});
    CHECK(strict.rc == 2);
    CHECK(strict.out.find("UNPARSED available_kv_cache_gib (line 3): Available KV cache memory: 1.5.2 GiB") !=
          std::string::npos);
}
