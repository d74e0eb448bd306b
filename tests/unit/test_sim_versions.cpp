// --sim-version 0.31: the boot lines name the source places a real vLLM 0.31.0 log names
// (../shared/field/vllm-0.31.0-a100-llama31-8b-ok-fragment.log); their texts, and what
// inferlint reads from them, are 0.30's.
#include "sim_traps.hpp"

using Catch::Matchers::Contains;

using namespace simtraps;

namespace sim_versions_test {

// Each boot line the field log shows, as "[file.py:N] " and the start of its text.
const std::vector<std::pair<std::string, std::string>> kSites031{
    {"[default_loader.py:484] ", "Loading weights took "},   {"[model_runner.py:407] ", "Model loading took "},
    {"[gpu_worker.py:692] ", "Available KV cache memory: "}, {"[kv_cache_utils.py:2464] ", "GPU KV cache size: "},
    {"[gpu_worker.py:955] ", "Free memory on device ("},
};

TEST_CASE("--sim-version 0.31 prints vLLM 0.31.0's source places; 0.30 keeps its own", "[sim][engines]") {
    TrapSim v031("Qwen/Qwen3-8B", {"--sim-version", "0.31"});
    TrapSim v030("Qwen/Qwen3-8B", {"--sim-version", "0.30"});
    for (const auto& [site, text] : kSites031) {
        CHECK_THAT(v031.text(), Contains(site + text));
        CHECK(v030.text().find(site + text) == std::string::npos);
    }
    CHECK_THAT(v030.text(), Contains("[kv_cache_utils.py:2395] GPU KV cache size: "));
    // What inferlint reads is the same from both.
    auto a = parse::parse_boot_log(v031.text(), nullptr);
    auto b = parse::parse_boot_log(v030.text(), nullptr);
    CHECK(a.vllm_version == "0.31.0");
    CHECK(a.kv_pool_tokens == b.kv_pool_tokens);
    CHECK(a.available_kv_cache_gib == b.available_kv_cache_gib);
    CHECK(a.model_load_gib == b.model_load_gib);
    CHECK(a.unparsed.empty());
}

TEST_CASE("--sim-version 0.31's source places are the ones the real 0.31.0 log prints", "[sim][engines][shared]") {
    const fs::path log =
        testsupport::reference_dir().parent_path() / "field" / "vllm-0.31.0-a100-llama31-8b-ok-fragment.log";
    if (!fs::is_regular_file(log)) FAIL("needs ../shared/field, which is absent: leave [shared] out by hand");
    const std::string real = util::read_file(log);
    for (const auto& [site, text] : kSites031) CHECK_THAT(real, Contains(site + text));
}

}  // namespace sim_versions_test
