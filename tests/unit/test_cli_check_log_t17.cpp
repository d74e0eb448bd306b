// check-log's T17 and --model-config, run as a user would.
#include "inferlint/core/result.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

// The recorded FP8 start with --kv-cache-dtype fp8 taken out of its arguments line.
fs::path t17_fp8_without_flag(const fs::path& root, const fs::path& dir) {
    std::string text = util::read_file(root / "vllm-0.28/boot_fp8_triton.log");
    const std::string flag = "'kv_cache_dtype': 'fp8', ";
    auto at = text.find(flag);
    REQUIRE(at != std::string::npos);
    text.erase(at, flag.size());
    util::write_file(dir / "boot.log", text);
    return dir / "boot.log";
}

Json t17_last_result(const std::string& out) {
    Json all = Json::parse(out);
    Json found;
    for (const auto& r : all)
        if (r["tripwire"] == "T17") found = r;
    return found;
}

}  // namespace

TEST_CASE("check-log --model-config names the checkpoint as the cause of FP8 KV", "[cli_check_log][T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("cli-t17");
    auto log = t17_fp8_without_flag(root, tmp.path);
    util::write_file(tmp.path / "model/config.json",
                     R"({"quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": )"
                     R"({"num_bits": 8, "type": "float"}}})");
    auto plain = testsupport::run_cli({"check-log", log.string()}, testsupport::kAllTripwiresEnv);
    CHECK(plain.rc == 0);  // a warning, not a failure
    CHECK(plain.out.find("[T17] WARN  the engine stored the KV cache in fp8 though --kv-cache-dtype was auto") !=
          std::string::npos);
    CHECK(plain.out.find("give --model-config PATH") != std::string::npos);

    auto named =
        testsupport::run_cli({"check-log", log.string(), "--model-config", (tmp.path / "model").string(), "--json"},
                             testsupport::kAllTripwiresEnv);
    CHECK(named.rc == 0);
    Json t17 = t17_last_result(named.out);
    CHECK(t17["status"] == "warn");
    CHECK(t17["evidence"]["model_config"]["kv_cache_dtype"] == "fp8");
    CHECK(t17["message"].get<std::string>().find("the checkpoint asked for it") != std::string::npos);
    auto strict = testsupport::run_cli({"check-log", log.string(), "--strict"}, testsupport::kAllTripwiresEnv);
    CHECK(strict.rc == 1);
}

TEST_CASE("check-log --model-config: a missing or broken config.json is one line, exit 2",
          "[cli_check_log][T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("cli-t17");
    const std::string log = (root / "vllm-0.28/boot_fp8_triton.log").string();
    util::write_file(tmp.path / "broken.json", "{\"quantization_config\": ");
    for (const std::string& bad :
         {(tmp.path / "broken.json").string(), (tmp.path / "missing.json").string(), tmp.path.string()}) {
        INFO(bad);
        auto r = testsupport::run_cli({"check-log", log, "--model-config", bad}, testsupport::kAllTripwiresEnv);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find(bad) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    // Twice for three logs matches neither form.
    auto r = testsupport::run_cli({"check-log", log, log, log, "--model-config", (tmp.path / "broken.json").string(),
                                   "--model-config", (tmp.path / "broken.json").string()},
                                  testsupport::kAllTripwiresEnv);
    CHECK(r.rc == 2);
    CHECK(r.err.find("--model-config") != std::string::npos);
}

TEST_CASE("check-log on two starts ends with T17's configuration diff", "[cli_check_log][T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = testsupport::run_cli({"check-log", (root / "vllm-0.28/boot_cudagraphs.log").string(),
                                   (root / "vllm-0.28/boot_eager.log").string(), "--json"},
                                  testsupport::kAllTripwiresEnv);
    CHECK(r.rc == 0);
    Json all = Json::parse(r.out);
    REQUIRE_FALSE(all.empty());
    const Json& last = all.back();
    CHECK(last["tripwire"] == "T17");
    CHECK(last["status"] == "warn");
    CHECK(last["evidence"]["differ"] == Json::array({"kv_capacity_tokens", "cuda_graphs", "compile"}));
    CHECK(last["evidence"]["fields"]["cuda_graphs"]["asked"] == Json::array({nullptr, "eager"}));
}
