// xray end to end on the simulator with each of issue 13's traps on and off, every
// verdict watched changing: T16 (a harness that repeats one prompt), T18 (a client that
// counts stream chunks under speculative decoding) and T17 (a checkpoint that turns FP8
// KV on by itself). `report` on each run folder must give the verdicts xray gave. Only
// processes these tests start are ever signalled.
#include "xray_sandbox.hpp"

#include <map>

using namespace xraytest;
using Catch::Matchers::Contains;

namespace xraytraps {

struct TrapRun {
    int rc = -1;
    std::string out;
    std::map<std::string, Json> xray;                      // results.json: the last verdict per tripwire
    std::map<std::string, Json> report;                    // `report RUN --json` on the run folder
    std::string line(const std::string& tripwire) const {  // the terminal's verdict line
        std::istringstream in(out);
        const std::string tag = fmt::format("[{:>3}] ", tripwire);
        std::string found;
        for (std::string l; std::getline(in, l);)
            if (l.starts_with(tag)) found = l;
        return found;
    }
};

std::map<std::string, Json> trap_by_tripwire(const Json& list) {
    std::map<std::string, Json> out;
    for (const auto& r : list) out[r["tripwire"].get<std::string>()] = r;
    return out;
}

// `inferlint xray` (every tripwire, the default) around the simulator serving `model` and its bench
// client, on a machine with no GPU (an nvidia-smi that reads an empty card) and no other
// server (an empty process table); then `report` on the folder it wrote.
TrapRun trap_xray(const Sandbox& sb, const std::string& model, const std::string& serve_extra,
                  const std::vector<std::string>& load_extra) {
    const int port = free_port();
    util::write_file(sb.dir / "nvidia-smi", "#!/bin/sh\necho 0\n");
    fs::permissions(sb.dir / "nvidia-smi", fs::perms::owner_all);
    fs::create_directories(sb.dir / "proc");
    const std::string serve =
        fmt::format("{} serve {} --port {} --sim-boot-s 0.05 --sim-log-interval-s 0.5 --sim-time-scale 20 {}",
                    util::shell_join({sb.vllm()}), util::shell_join({model}), port, serve_extra);
    std::vector<std::string> args = {"xray", "-o", sb.out().string(), "--interval", "0.05", "--serve", serve, "--"};
    for (const auto& a : bench_cmd(sb, port, 8, 4, 64, 96, model)) args.push_back(a);
    args.insert(args.end(), load_extra.begin(), load_extra.end());
    const std::string env = "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES INFERLINT_NVIDIA_SMI=" +
                            testsupport::shell_quote((sb.dir / "nvidia-smi").string()) +
                            " INFERLINT_PROC_ROOT=" + testsupport::shell_quote((sb.dir / "proc").string()) + " ";
    auto r = testsupport::run_cli(args, env);
    TrapRun run{r.rc, r.out + r.err, {}, {}};
    INFO(run.out);
    REQUIRE(fs::is_regular_file(sb.out() / "results.json"));
    run.xray = trap_by_tripwire(Json::parse(util::read_file(sb.out() / "results.json"))["results"]);
    auto rep = testsupport::run_cli({"report", sb.out().string(), "--json"},
                                    "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ");
    INFO(rep.err);
    run.report = trap_by_tripwire(Json::parse(rep.out));
    // One path judges: report on the folder gives xray's verdicts, in its order, in its words.
    const Json said = Json::parse(util::read_file(sb.out() / "results.json"))["results"];
    const Json again = Json::parse(rep.out);
    REQUIRE(said.size() == again.size());
    for (std::size_t i = 0; i < said.size(); ++i) {
        INFO("verdict " << i << ": xray said " << said[i].dump() << "; report says " << again[i].dump());
        CHECK(said[i]["tripwire"] == again[i]["tripwire"]);
        CHECK(said[i]["status"] == again[i]["status"]);
        CHECK(said[i]["message"] == again[i]["message"]);
    }
    require_all_gone(sb.out() / "boot.log");
    return run;
}

// Every verdict `report` gives on the folder is the one xray gave.
void trap_same_verdicts(const TrapRun& r) {
    CHECK(r.report.size() >= 10);
    for (const auto& [id, res] : r.report) {
        INFO(id << ": report says " << res["message"] << "; xray said " << r.xray.at(id)["message"]);
        REQUIRE(r.xray.count(id));
        CHECK(res["status"] == r.xray.at(id)["status"]);
    }
}

const std::string kTrapFp8Checkpoint = R"({"architectures": ["Qwen3ForCausalLM"], "quantization_config": {
  "quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor",
  "dynamic": false, "symmetric": true}}})";

}  // namespace xraytraps

using namespace xraytraps;

TEST_CASE("xray traps: T16 passes unique prompts and fails a harness that repeats one", "[sim][xray]") {
    Sandbox unique_sb("trap-t16-unique");
    TrapRun unique = trap_xray(unique_sb, kModel, "", {"--dataset-name", "random"});
    INFO(unique.out);
    CHECK(unique.xray.at("T16")["status"] == "pass");
    CHECK(unique.xray.at("T16")["evidence"]["unique_prompts"] == "--dataset-name random");
    CHECK(unique.xray.at("T16")["evidence"]["hit_tokens"] == 0.0);
    CHECK(unique.xray.at("T16")["evidence"]["queried_tokens"] == 9 * 64.0);
    CHECK(unique.report.at("T16")["status"] == "pass");
    CHECK(unique.rc != 1);  // nothing failed (a run this short can leave T14 unsure: exit 2)
    trap_same_verdicts(unique);

    Sandbox same_sb("trap-t16-same");
    TrapRun same = trap_xray(same_sb, kModel, "", {"--dataset-name", "random", "--sim-same-prompt"});
    INFO(same.out);
    CHECK(same.xray.at("T16")["status"] == "fail");
    CHECK(same.xray.at("T16")["evidence"]["hit_tokens"] == 8 * 48.0);
    CHECK_THAT(same.line("T16"),
               Contains("[T16] TRIPWIRE-FAILED  384 of 576 prompt tokens came from the prefix cache "
                        "(66.7%) although the prompts were meant to be unique (--dataset-name random)"));
    CHECK(same.rc == 1);
    // report on the folder reads xray's live record: the same reason as xray gave.
    CHECK(same.report.at("T16")["status"] == "fail");
    CHECK(same.report.at("T16")["evidence"]["unique_prompts"] == "--dataset-name random");
    trap_same_verdicts(same);
    // Without the live record, the client's Namespace line in load.log says the same.
    fs::remove(same_sb.out() / "live.json");
    auto from_log = testsupport::run_cli({"report", same_sb.out().string(), "--tripwires", "T16", "--json"});
    CHECK(trap_by_tripwire(Json::parse(from_log.out)).at("T16")["evidence"]["unique_prompts"] ==
          "dataset_name='random' in load.log");
    // Without that line either, report cannot tell the prompts were meant to be unique: a warning.
    const fs::path log = same_sb.out() / "load.log";
    util::write_file(
        log, testsupport::each_line(util::read_file(log), [](std::string& l) { return !l.starts_with("Namespace("); }));
    auto rep = testsupport::run_cli({"report", same_sb.out().string(), "--tripwires", "T16", "--json"});
    CHECK(trap_by_tripwire(Json::parse(rep.out)).at("T16")["status"] == "warn");
}

TEST_CASE("xray traps: with the dataset left to the client's default, xray reads it from load.log", "[sim][xray]") {
    Sandbox sb("trap-t16-default");
    TrapRun r = trap_xray(sb, kModel, "", {"--sim-same-prompt"});
    INFO(r.out);
    CHECK(r.xray.at("T16")["status"] == "fail");
    CHECK(r.xray.at("T16")["evidence"]["unique_prompts"] == "dataset_name='random' in load.log");
    trap_same_verdicts(r);
}

TEST_CASE("xray traps: T18 passes a client counting tokens and fails one counting chunks under spec decoding",
          "[sim][xray]") {
    const std::string spec =
        "--speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}' "
        "--sim-seed 11";
    Sandbox tokens_sb("trap-t18-tokens");
    TrapRun tokens = trap_xray(tokens_sb, kModel, spec, {"--dataset-name", "random"});
    INFO(tokens.out);
    CHECK(tokens.xray.at("T18")["status"] == "pass");
    CHECK(tokens.xray.at("T18")["evidence"]["tokens_per_step"].get<double>() > 1.5);
    CHECK_THAT(tokens.line("T18"), Contains("it counted tokens, not stream chunks"));
    CHECK(tokens.xray.at("T15")["status"] == "pass");
    CHECK(tokens.report.at("T18")["status"] == "pass");
    CHECK(tokens.rc != 1);  // nothing failed (a run this short can leave T14 unsure: exit 2)
    trap_same_verdicts(tokens);

    Sandbox chunks_sb("trap-t18-chunks");
    TrapRun chunks = trap_xray(chunks_sb, kModel, spec, {"--dataset-name", "random", "--sim-count-chunks"});
    INFO(chunks.out);
    CHECK(chunks.xray.at("T18")["status"] == "fail");
    CHECK_THAT(chunks.line("T18"), Contains("so the load tool counted stream chunks, not tokens"));
    // T15 names T18 as the cause instead of other traffic.
    CHECK(chunks.xray.at("T15")["status"] == "warn");
    CHECK(chunks.xray.at("T15")["evidence"]["cause"] == "T18");
    CHECK_THAT(chunks.line("T15"), Contains("it counted stream chunks, not tokens (T18)"));
    CHECK(chunks.report.at("T18")["status"] == "fail");
    CHECK(chunks.rc == 1);
    trap_same_verdicts(chunks);
}

TEST_CASE("xray traps: T18 fails a chunk-counting client whichever load tool's file it writes",
          "[sim][xray][loadresult]") {
    const std::string spec =
        "--speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}' "
        "--sim-seed 11";
    for (const char* format : {"guidellm", "aiperf", "inference-perf", "llmperf", "inferlint-load"}) {
        DYNAMIC_SECTION(format) {
            Sandbox sb(std::string("trap-t18-") + format);
            TrapRun run = trap_xray(sb, kModel, spec,
                                    {"--dataset-name", "random", "--sim-count-chunks", "--sim-result-format", format});
            INFO(run.out);
            CHECK(run.xray.at("T18")["status"] == "fail");
            CHECK(run.xray.at("T15")["status"] == "warn");
            CHECK(run.report.at("T18")["status"] == "fail");
        }
    }
}

TEST_CASE("xray traps: T17 passes a plain model and warns on a checkpoint that turns FP8 KV on", "[sim][xray]") {
    Sandbox plain_sb("trap-t17-plain");
    TrapRun plain = trap_xray(plain_sb, kModel, "", {"--dataset-name", "random"});
    INFO(plain.out);
    CHECK(plain.xray.at("T17")["status"] == "pass");
    CHECK(plain.report.at("T17")["status"] == "pass");
    trap_same_verdicts(plain);

    testsupport::TempDir models("trap-t17-models");
    const fs::path model = models.path / "Qwen3-8B-FP8-KV";
    fs::create_directories(model);
    util::write_file(model / "config.json", kTrapFp8Checkpoint);
    Sandbox fp8_sb("trap-t17-fp8");
    TrapRun fp8 = trap_xray(fp8_sb, model.string(), "", {"--dataset-name", "random"});
    INFO(fp8.out);
    CHECK(fp8.xray.at("T17")["status"] == "warn");
    // The cause, read from the model folder the boot log names: no --model-config needed.
    CHECK_THAT(fp8.line("T17"), Contains("the engine stored the KV cache in fp8 though --kv-cache-dtype was auto") &&
                                    Contains("the checkpoint asked for it: " + (model / "config.json").string()));
    CHECK(fp8.xray.at("T17")["evidence"]["model_config"]["kv_cache_dtype"] == "fp8");
    CHECK(fp8.report.at("T17")["status"] == "warn");
    CHECK(fp8.rc != 1);  // nothing failed (a run this short can leave T14 unsure: exit 2)
    trap_same_verdicts(fp8);
}
