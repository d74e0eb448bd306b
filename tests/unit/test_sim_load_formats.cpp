// The simulator's bench client writing each load tool's format (--sim-result-format) under
// speculative decoding: client-counts reads every one by its content, and T18 fails the
// client that counted stream chunks, whatever tool's file it wrote.
#include "sim_traps.hpp"

using Catch::Matchers::Contains;
using namespace simtraps;

TEST_CASE("load formats: T18 fails a chunk-counting client in every tool's format", "[sim][loadresult]") {
    TrapSim s("sim/Qwen3-8B",
              {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})", "--sim-seed", "5"});
    for (const char* format : {"guidellm", "aiperf", "inference-perf", "llmperf", "inferlint-load"}) {
        DYNAMIC_SECTION(format) {
            const fs::path dir = s.tmp.path / format;
            fs::path before = s.snapshot(std::string(format) + "-b");
            (void)trap_bench(s, dir, 8, 32, 96, {"--sim-count-chunks", "--sim-result-format", format});
            fs::path after = s.snapshot(std::string(format) + "-a");
            auto r = trap_results(testsupport::run_cli({"client-counts", before.string(), after.string(),
                                                        "--bench-result", (dir / "bench.json").string(), "--load-log",
                                                        (dir / "load.log").string(), "--json"}));
            REQUIRE(r.count("T18"));
            INFO(r["T18"].dump());
            CHECK(r["T18"]["status"] == "fail");
            CHECK(r["T15"]["status"] == "warn");
            CHECK(r["T15"]["evidence"]["result_file"] == (dir / "bench.json").string());
        }
    }
}
