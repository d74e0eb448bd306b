// The simulator's traps, continued: a model folder whose checkpoint asks for FP8 KV (T17)
// and run-to-run noise, each against the simulator's ground truth (/sim/state).
#include "sim_traps.hpp"

using Catch::Matchers::Contains;

using namespace simtraps;

TEST_CASE("a model folder whose checkpoint asks for FP8 KV: the log says so, the pool doubles, T17 warns", "[sim]") {
    testsupport::TempDir models("simtrap-models");
    const fs::path fp8 = trap_model(models.path, "fp8-kv", kTrapFp8Config);
    TrapSim s(fp8.string(), {});
    CHECK_THAT(s.text(), Contains("[cache.py:282] Using fp8 data type to store kv cache."));
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    CHECK(facts.realized.kv_cache_dtype == "fp8");
    CHECK(facts.kv_pool_tokens == 2 * 2022 * 16);
    CHECK(s.state()["num_gpu_blocks"] == 2 * 2022);
    CHECK(s.state()["kv_cache_dtype"] == "fp8");
    CHECK(run::Scraper().scrape(s.url()).metrics().info("vllm:cache_config_info")->at("cache_dtype") == "fp8");
    // check-log reads the config.json of the folder the log names, with no --model-config.
    auto r = trap_results(testsupport::run_cli({"check-log", s.log.string(), "--tripwires", "T17", "--json"}));
    CHECK(r["T17"]["status"] == "warn");
    CHECK_THAT(r["T17"]["message"].get<std::string>(),
               Contains("the checkpoint asked for it") && Contains((fp8 / "config.json").string()));

    // Asked for on the command line: as asked.
    TrapSim asked(fp8.string(), {"--kv-cache-dtype", "fp8"});
    CHECK(trap_results(testsupport::run_cli(
              {"check-log", asked.log.string(), "--tripwires", "T17", "--json"}))["T17"]["status"] == "pass");
    // --kv-cache-dtype bfloat16 overrules the checkpoint: 16 bits, the usual pool.
    TrapSim wide(fp8.string(), {"--kv-cache-dtype", "bfloat16"});
    CHECK(wide.text().find("data type to store kv cache") == std::string::npos);
    CHECK(parse::parse_boot_log(wide.text(), nullptr).kv_pool_tokens == 2022 * 16);
}

TEST_CASE("a plain model folder: 16-bit KV unless --kv-cache-dtype asks for FP8", "[sim]") {
    testsupport::TempDir models("simtrap-models");
    const fs::path plain = trap_model(models.path, "plain", kTrapPlainConfig);
    TrapSim s(plain.string(), {});
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    CHECK(facts.realized.kv_cache_dtype == "auto");
    CHECK(facts.kv_pool_tokens == 2022 * 16);
    CHECK(s.text().find("data type to store kv cache") == std::string::npos);
    CHECK(trap_results(testsupport::run_cli(
              {"check-log", s.log.string(), "--tripwires", "T17", "--json"}))["T17"]["status"] == "pass");
    TrapSim e4m3(plain.string(), {"--kv-cache-dtype", "fp8_e4m3"});
    CHECK_THAT(e4m3.text(), Contains("Using fp8_e4m3 data type to store kv cache"));
    CHECK(parse::parse_boot_log(e4m3.text(), nullptr).kv_pool_tokens == 2 * 2022 * 16);
    CHECK(trap_results(testsupport::run_cli(
              {"check-log", e4m3.log.string(), "--tripwires", "T17", "--json"}))["T17"]["status"] == "pass");
}

TEST_CASE("a model folder with a bad config.json fails the boot as transformers does", "[sim]") {
    testsupport::TempDir models("simtrap-models");
    const fs::path bad = trap_model(models.path, "bad", "{\"architectures\": [");
    TrapSim s(bad.string(), {}, false);
    CHECK(s.exit_status == 1);
    CHECK_THAT(s.text(),
               Contains(fmt::format("OSError: It looks like the config file at '{}' is not a valid JSON file.",
                                    (bad / "config.json").string())));
    CHECK(s.text().find("EngineCore") == std::string::npos);  // it never got that far
    auto r = trap_results(testsupport::run_cli({"check-log", s.log.string(), "--tripwires", "all", "--json"}));
    CHECK(r["T12"]["status"] == "fail");
    CHECK(r["T17"]["status"] == "unknown");  // never a pass for a start with no KV cache
    const fs::path empty = trap_model(models.path, "empty", "");
    TrapSim none(empty.string(), {}, false);
    CHECK(none.exit_status == 1);
    CHECK_THAT(none.text(), Contains("does not appear to have a file named config.json"));
    // A dtype vLLM does not know is argparse's error.
    TrapSim wrong("sim/Qwen3-8B", {"--kv-cache-dtype", "int4"}, false);
    CHECK(wrong.exit_status == 2);
    CHECK_THAT(wrong.text(), Contains("argument --kv-cache-dtype: invalid choice: 'int4'"));
}

TEST_CASE("--sim-noise: each start's decode speed is drawn from its seed", "[sim]") {
    auto factor = [](const std::vector<std::string>& extra) {
        TrapSim s("sim/Qwen3-8B", extra);
        return s.state()["speed_factor"].get<double>();
    };
    const double one = factor({"--sim-noise", "5", "--sim-seed", "1"});
    const double again = factor({"--sim-noise", "5", "--sim-seed", "1"});
    const double two = factor({"--sim-noise", "5", "--sim-seed", "2"});
    CHECK(one == again);
    CHECK(one != two);
    for (double f : {one, two}) {
        CHECK(f >= 0.95);
        CHECK(f <= 1.05);
        CHECK(f != 1.0);
    }
    CHECK(factor({"--sim-seed", "1"}) == 1.0);  // no noise asked: the nominal speed
    // Unseeded starts draw afresh, so repetitions differ as real ones do.
    CHECK(factor({"--sim-noise", "5"}) != factor({"--sim-noise", "5"}));
}
