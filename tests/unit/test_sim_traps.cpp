// The simulator's traps (issue 13): its prefix cache, speculative decoding, a model folder
// whose checkpoint asks for FP8 KV, and run-to-run noise, each with its ground truth
// (/sim/state) as the answer key for inferlint's own readings. Every test starts its own
// servers on free ports of 127.0.0.1.
#include "support.hpp"

#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/prom.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>

using namespace inferlint;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace simtraps {

double trap_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `inferlint-sim vllm ARGS...` with its output in `log`; returns the pid.
int trap_spawn(const std::vector<std::string>& args, const fs::path& log) {
    std::ofstream{log};
    int pid = ::fork();
    if (pid == 0) {
        int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        std::vector<std::string> all = {"inferlint-sim", "vllm"};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(INFERLINT_SIM_BINARY, argv.data());
        _exit(127);
    }
    return pid;
}

int trap_wait_exit(int pid, double timeout_s) {
    auto t0 = std::chrono::steady_clock::now();
    while (trap_since(t0) < timeout_s) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
}

// A simulated vLLM serving MODEL, stopped with its EngineCore when the test ends.
struct TrapSim {
    testsupport::TempDir tmp{"simtrap"};
    fs::path log = tmp.path / "boot.log";
    int pid = -1, port = 0, core = 0, exit_status = -1;

    TrapSim(const std::string& model, const std::vector<std::string>& extra, bool expect_ready = true) {
        std::vector<std::string> args = {"serve", model, "--port", "0", "--sim-boot-s", "0.05", "--sim-log-interval-s",
                                         "0.5", "--sim-time-scale", "20"};
        args.insert(args.end(), extra.begin(), extra.end());
        pid = trap_spawn(args, log);
        static const std::regex port_re(R"(Starting vLLM server on http://127\.0\.0\.1:(\d+))");
        static const std::regex core_re(R"(\(EngineCore pid=(\d+)\))");
        auto t0 = std::chrono::steady_clock::now();
        while (trap_since(t0) < 20) {
            std::string t = text();
            std::smatch m;
            if (!core && std::regex_search(t, m, core_re)) core = std::stoi(m[1]);
            if (t.find("Application startup complete.") != std::string::npos && std::regex_search(t, m, port_re)) {
                port = std::stoi(m[1]);
                return;
            }
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                pid = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        stop();
        if (expect_ready) FAIL("the simulator did not start: " << text());
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
    std::string text() const { return util::read_file(log, util::AllowEmpty::yes); }
    Json state() const { return Json::parse(util::get_text(url() + "/sim/state")); }
    // The snapshot command's file, as a user would take it.
    fs::path snapshot(const std::string& name) const {
        fs::path out = tmp.path / (name + ".snapshot.json");
        auto r = testsupport::run_cli({"snapshot", url(), "-o", out.string()});
        REQUIRE(r.rc == 0);
        return out;
    }
    void stop() {
        if (pid > 0) {
            ::kill(pid, SIGTERM);
            if (trap_wait_exit(pid, 5) < 0) {
                ::kill(pid, SIGKILL);
                trap_wait_exit(pid, 2);
            }
            pid = -1;
        }
        std::ifstream comm("/proc/" + std::to_string(core) + "/comm");
        std::string name;
        if (core > 0 && std::getline(comm, name) && name.starts_with("VLLM::EngineCor")) ::kill(core, SIGKILL);
    }
    ~TrapSim() { stop(); }
};

// `vllm bench serve` against the simulator: the result JSON (bench.json in `dir`, its
// output in load.log there).
Json trap_bench(const TrapSim& s, const fs::path& dir, int prompts, int in_len, int out_len,
                const std::vector<std::string>& extra = {}) {
    fs::create_directories(dir);
    std::vector<std::string> args = {"bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", s.url(),
                                     "--num-prompts", std::to_string(prompts), "--max-concurrency", "4",
                                     "--random-input-len", std::to_string(in_len), "--random-output-len",
                                     std::to_string(out_len), "--ignore-eos", "--save-result", "--result-dir",
                                     dir.string(), "--result-filename", "bench.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    int pid = trap_spawn(args, dir / "load.log");
    int rc = trap_wait_exit(pid, 60);
    INFO(util::read_file(dir / "load.log", util::AllowEmpty::yes));
    REQUIRE(rc == 0);
    return Json::parse(util::read_file(dir / "bench.json"));
}

// The results of a command's --json output, by tripwire.
std::map<std::string, Json> trap_results(const testsupport::CliResult& r) {
    INFO(r.out << r.err);
    std::map<std::string, Json> out;
    Json doc = Json::parse(r.out);
    const Json& list = doc.is_array() ? doc : doc["results"];
    for (const auto& res : list) out[res["tripwire"].get<std::string>()] = res;
    return out;
}

double trap_delta(const fs::path& before, const fs::path& after, const std::string& name,
                  const prom::LabelFilter& labels = {}) {
    return counter_delta(load_snapshot(before), load_snapshot(after), name, "", labels).value();
}

// A completion's answer, streamed: the text of each chunk that carries tokens.
std::vector<std::string> trap_stream_chunks(const TrapSim& s, const std::string& prompt, int max_tokens) {
    auto r = util::http_post_json(
        s.url() + "/v1/completions",
        fmt::format(R"({{"model": "sim/Qwen3-8B", "prompt": "{}", "max_tokens": {}, "stream": true}})", prompt, max_tokens));
    REQUIRE(r.status == 200);
    std::vector<std::string> texts;
    std::istringstream in(r.body);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("data: {")) continue;
        Json doc = Json::parse(line.substr(6));
        if (doc["choices"].empty()) continue;
        std::string text = doc["choices"][0]["text"].get<std::string>();
        if (!text.empty()) texts.push_back(text);
    }
    return texts;
}

// The simulator's tokens are " It", " is", " sunny", " and", " warm", " today" and ".".
int trap_words(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), ' ') + std::count(text.begin(), text.end(), '.'));
}

std::string trap_words_prompt(char letter, int n) {
    std::string p;
    for (int i = 0; i < n; ++i) p += fmt::format("{}{}{}", i ? " " : "", letter, i);
    return p;
}

long long trap_hits(const TrapSim& s) { return s.state()["prefix_cache_hit_tokens"].get<long long>(); }

// A model folder with this config.json text.
fs::path trap_model(const fs::path& parent, const std::string& name, const std::string& config_json) {
    fs::path dir = parent / name;
    fs::create_directories(dir);
    if (!config_json.empty()) util::write_file(dir / "config.json", config_json);
    return dir;
}

const std::string kTrapFp8Config = R"({"architectures": ["Qwen3ForCausalLM"], "quantization_config": {
  "quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor",
  "dynamic": false, "symmetric": true}}})";
const std::string kTrapPlainConfig = R"({"architectures": ["Qwen3ForCausalLM"], "torch_dtype": "bfloat16"})";

}  // namespace simtraps

using namespace simtraps;

TEST_CASE("prefix cache: a repeated prompt is served from cached blocks, and the counters say how much", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {});
    const fs::path run = s.tmp.path / "same";
    fs::path before = s.snapshot("before");
    Json result = trap_bench(s, run, 8, 64, 16, {"--sim-same-prompt"});
    fs::path after = s.snapshot("after");
    Json truth = s.state();
    CHECK(result["completed"] == 8);
    // The test request leaves its 4 full blocks cached; each of the 8 takes 3 of them
    // (vLLM computes the last prompt token, so the 4th block again): 8 x 48 of 9 x 64.
    CHECK(truth["prefix_cache_hit_tokens"] == 8 * 48);
    CHECK(truth["prefix_cache_query_tokens"] == 9 * 64);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_hits_total") == 8 * 48);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_queries_total") == 9 * 64);
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_total") == 9 * 64);  // every prompt token, cached or not
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_cached_total") == 8 * 48);
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_by_source_total", {{"source", "local_cache_hit"}}) == 8 * 48);
    // The prefill skipped what the cache served.
    CHECK(trap_delta(before, after, "vllm:request_prefill_kv_computed_tokens_sum") == 9 * 64 - 8 * 48);
    // Cached blocks no request holds count as free, as in vLLM's usage gauge.
    CHECK(truth["cached_blocks"] == 4);
    CHECK(truth["used_blocks"] == 0);
    CHECK(load_snapshot(after).metrics().single("vllm:kv_cache_usage_perc").value() == 0.0);
    // T16 from the snapshots: meant unique, it fails; otherwise a warning.
    auto unique = trap_results(testsupport::run_cli(
        {"prefix-cache", before.string(), after.string(), "--unique-prompts", "--json"}));
    CHECK(unique["T16"]["status"] == "fail");
    CHECK(unique["T16"]["evidence"]["hit_tokens"] == truth["prefix_cache_hit_tokens"].get<double>());
    CHECK(unique["T16"]["evidence"]["queried_tokens"] == truth["prefix_cache_query_tokens"].get<double>());
    auto plain = trap_results(testsupport::run_cli({"prefix-cache", before.string(), after.string(), "--json"}));
    CHECK(plain["T16"]["status"] == "warn");
}

TEST_CASE("prefix cache: unique prompts miss it; a second run with the same --seed repeats the first", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {});
    fs::path before = s.snapshot("b0");
    trap_bench(s, s.tmp.path / "seed0", 8, 64, 16);
    fs::path mid = s.snapshot("b1");
    CHECK(s.state()["prefix_cache_hit_tokens"] == 0);
    CHECK(s.state()["prefix_cache_query_tokens"] == 9 * 64);
    auto first = trap_results(
        testsupport::run_cli({"prefix-cache", before.string(), mid.string(), "--unique-prompts", "--json"}));
    CHECK(first["T16"]["status"] == "pass");
    CHECK(first["T16"]["evidence"]["hit_tokens"] == 0.0);
    // Another seed: other prompts, nothing cached for them.
    trap_bench(s, s.tmp.path / "seed1", 8, 64, 16, {"--seed", "1"});
    CHECK(trap_hits(s) == 0);
    // The first seed again: every prompt (its test request's too) is in the cache.
    fs::path again_before = s.snapshot("b2");
    trap_bench(s, s.tmp.path / "seed0-again", 8, 64, 16, {"--seed", "0"});
    fs::path again_after = s.snapshot("b3");
    CHECK(trap_hits(s) == 9 * 48);
    auto again = trap_results(testsupport::run_cli(
        {"prefix-cache", again_before.string(), again_after.string(), "--unique-prompts", "--json"}));
    CHECK(again["T16"]["status"] == "fail");
    CHECK(again["T16"]["evidence"]["hit_tokens"] == 9 * 48.0);
    // The client says what it sent: a random dataset without a shared prefix.
    CHECK_THAT(util::read_file(s.tmp.path / "seed0" / "load.log"),
               Contains("dataset_name='random'") && Contains("random_prefix_len=0"));
}

TEST_CASE("prefix cache: cached blocks stay while empty ones last, then the least recently freed go", "[sim]") {
    // 64 usable blocks of 16. A (64 words) caches 4 blocks, B and C (900 words) 56 each.
    TrapSim s("sim/Qwen3-8B",
              {"--num-gpu-blocks", "65", "--block-size", "16", "--max-model-len", "1024", "--max-num-seqs", "4"});
    auto send = [&](char letter, int words) {
        auto r = util::http_post_json(s.url() + "/v1/completions",
                                      fmt::format(R"({{"model": "sim/Qwen3-8B", "prompt": "{}", "max_tokens": 4}})",
                                                  trap_words_prompt(letter, words)));
        REQUIRE(r.status == 200);
        return trap_hits(s);
    };
    CHECK(send('a', 64) == 0);
    CHECK(send('a', 64) == 48);  // 3 of its 4 blocks: the last prompt token is always computed
    CHECK(send('b', 900) == 48);
    CHECK(s.state()["cached_blocks"] == 60);  // A's 4 and B's 56: the pool had empty blocks for B
    CHECK(send('a', 64) == 96);  // still cached; now freed more recently than B
    // C needs 57 blocks with 4 empty: 53 cached ones go, least recently freed first: A's
    // 4th block (freed after A's first run; its later runs compute that block again rather
    // than take it), then 52 of B's, its tail first.
    CHECK(send('c', 900) == 96);
    CHECK(s.state()["cached_blocks"] == 3 + 4 + 56);
    // A's first 3 survived; its 2 new blocks, with 1 empty, take B's 4th.
    CHECK(send('a', 64) == 144);
    CHECK(send('b', 900) == 192);  // B's first 3 survived
    Json truth = s.state();
    CHECK(truth["used_blocks"] == 0);
    CHECK(truth["preemptions"] == 0);
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().single("vllm:prefix_cache_hits_total").value() == 192);
    CHECK(snap.metrics().single("vllm:kv_cache_usage_perc").value() == 0.0);
}

TEST_CASE("prefix caching off: nothing looked up, and the log and metrics say so", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {"--no-enable-prefix-caching"});
    fs::path before = s.snapshot("before");
    trap_bench(s, s.tmp.path / "same", 8, 64, 16, {"--sim-same-prompt"});
    fs::path after = s.snapshot("after");
    Json truth = s.state();
    CHECK(truth["prefix_caching"] == false);
    CHECK(truth["prefix_cache_hit_tokens"] == 0);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_queries_total") == 0);  // as vLLM: no lookups at all
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_total") == 9 * 64);
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    REQUIRE(facts.non_default_args);
    CHECK((*facts.non_default_args)["enable_prefix_caching"] == false);
    CHECK(facts.realized.engine_config["enable_prefix_caching"] == "False");
    CHECK(load_snapshot(after).metrics().info("vllm:cache_config_info")->at("enable_prefix_caching") == "False");
    auto r = trap_results(testsupport::run_cli(
        {"prefix-cache", before.string(), after.string(), "--unique-prompts", "--boot-log", s.log.string(), "--json"}));
    CHECK(r["T16"]["status"] == "pass");
    CHECK_THAT(r["T16"]["message"].get<std::string>(), Contains("prefix caching was off"));
    // Asked for by name, it is on and in the non-default args, as vLLM prints it.
    TrapSim on("sim/Qwen3-8B", {"--enable-prefix-caching"});
    auto on_facts = parse::parse_boot_log(on.text(), nullptr);
    CHECK((*on_facts.non_default_args)["enable_prefix_caching"] == true);
    CHECK(on.state()["prefix_caching"] == true);
}

TEST_CASE("speculative decoding: a step makes 1 + accepted tokens, one stream chunk, counted as vLLM does",
          "[sim]") {
    TrapSim s("sim/Qwen3-8B", {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})",
                               "--sim-spec-accept-rate", "0.7", "--sim-seed", "3"});
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    REQUIRE(facts.non_default_args);
    CHECK((*facts.non_default_args)["speculative_config"] ==
          Json{{"method", "ngram"}, {"num_speculative_tokens", 3}});
    CHECK(facts.speculative == true);
    CHECK_THAT(facts.realized.engine_config["speculative_config"].get<std::string>(),
               Contains("SpeculativeConfig(method='ngram'") && Contains("num_spec_tokens=3"));
    // One request alone: its chunks are its steps (the first without a draft).
    Json t0 = s.state();
    auto chunks = trap_stream_chunks(s, "a b c d", 40);
    Json t1 = s.state();
    int tokens = 0, longest = 0;
    for (const auto& c : chunks) tokens += trap_words(c), longest = std::max(longest, trap_words(c));
    CHECK(tokens == 40);
    CHECK(t1["generation_tokens"].get<int>() - t0["generation_tokens"].get<int>() == 40);
    const int drafts = t1["spec_drafts"].get<int>() - t0["spec_drafts"].get<int>();
    CHECK(static_cast<int>(chunks.size()) == 1 + drafts);
    CHECK(longest > 1);
    CHECK(longest <= 4);
    CHECK(static_cast<int>(chunks.size()) < 40);
    // The counters against the truth, and the per-position counts sum to the accepted.
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().single("vllm:spec_decode_num_drafts_total").value() == t1["spec_drafts"].get<double>());
    CHECK(snap.metrics().single("vllm:spec_decode_num_draft_tokens_total").value() == 3 * t1["spec_drafts"].get<double>());
    CHECK(snap.metrics().single("vllm:spec_decode_num_accepted_tokens_total").value() ==
          t1["spec_accepted_tokens"].get<double>());
    double per_pos = 0;
    for (int i = 0; i < 3; ++i)
        per_pos += snap.metrics()
                       .single("vllm:spec_decode_num_accepted_tokens_per_pos_total", {{"position", std::to_string(i)}})
                       .value();
    CHECK(per_pos == t1["spec_accepted_tokens"].get<double>());
}

TEST_CASE("speculative decoding: client-counts passes a client counting tokens, fails one counting chunks",
          "[sim]") {
    TrapSim s("sim/Qwen3-8B", {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})",
                               "--sim-seed", "5"});
    for (bool chunks : {false, true}) {
        DYNAMIC_SECTION((chunks ? "--sim-count-chunks" : "usage tokens")) {
            const fs::path dir = s.tmp.path / (chunks ? "chunks" : "tokens");
            fs::path before = s.snapshot(chunks ? "cb" : "tb");
            std::vector<std::string> extra;
            if (chunks) extra.push_back("--sim-count-chunks");
            Json result = trap_bench(s, dir, 8, 32, 96, extra);
            fs::path after = s.snapshot(chunks ? "ca" : "ta");
            const double generated = trap_delta(before, after, "vllm:generation_tokens_total");
            CHECK(generated == 9 * 96);
            auto r = trap_results(testsupport::run_cli({"client-counts", before.string(), after.string(),
                                                        "--bench-result", (dir / "bench.json").string(), "--load-log",
                                                        (dir / "load.log").string(), "--json"}));
            REQUIRE(r.count("T18"));
            REQUIRE(r.count("T15"));
            CHECK(r["T18"]["evidence"]["tokens_per_step"].get<double>() > 1.5);
            if (!chunks) {
                CHECK(result["total_output_tokens"] == 8 * 96);
                CHECK(r["T18"]["status"] == "pass");
                CHECK(r["T15"]["status"] == "pass");
            } else {
                CHECK(result["total_output_tokens"].get<int>() < 8 * 96 * 0.7);
                CHECK(r["T18"]["status"] == "fail");
                // T15 warns, as the reference's does for a token difference, and names T18 as the cause.
                CHECK(r["T15"]["status"] == "warn");
                CHECK(r["T15"]["evidence"]["cause"] == "T18");
                CHECK_THAT(r["T15"]["message"].get<std::string>(), Contains("it counted stream chunks, not tokens (T18)"));
            }
        }
    }
}

TEST_CASE("speculative decoding: the simulator's counter names are the recorded vLLM's", "[sim][shared]") {
    REQUIRE_REFERENCE(root);
    auto names_of = [](const std::string& text) {
        std::set<std::string> names;
        prom::Metrics m;
        prom::ParseError error;
        REQUIRE(prom::parse(text, m, error));
        for (const auto& smp : m.samples())
            if (smp.name.find("spec_decode") != std::string::npos) names.insert(smp.name);
        return names;
    };
    const auto recorded = names_of(util::read_file(root / "vllm-0.28" / "metrics" / "preempted_after.prom"));
    TrapSim s("sim/Qwen3-8B", {"--speculative-config", R"({"method": "mtp", "num_speculative_tokens": 2})"});
    const auto ours = names_of(util::get_text(s.url() + "/metrics"));
    CHECK(recorded.size() == 8);
    CHECK(ours == recorded);
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().select("vllm:spec_decode_num_accepted_tokens_per_pos_total").size() == 2);
    // And without a speculative config, none at all (vLLM registers them only then).
    TrapSim plain("sim/Qwen3-8B", {});
    CHECK(names_of(util::get_text(plain.url() + "/metrics")).empty());
}

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
    CHECK(trap_results(testsupport::run_cli({"check-log", asked.log.string(), "--tripwires", "T17", "--json"}))["T17"]
              ["status"] == "pass");
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
    CHECK(trap_results(testsupport::run_cli({"check-log", s.log.string(), "--tripwires", "T17", "--json"}))["T17"]
              ["status"] == "pass");
    TrapSim e4m3(plain.string(), {"--kv-cache-dtype", "fp8_e4m3"});
    CHECK_THAT(e4m3.text(), Contains("Using fp8_e4m3 data type to store kv cache"));
    CHECK(parse::parse_boot_log(e4m3.text(), nullptr).kv_pool_tokens == 2 * 2022 * 16);
    CHECK(trap_results(testsupport::run_cli({"check-log", e4m3.log.string(), "--tripwires", "T17", "--json"}))["T17"]
              ["status"] == "pass");
}

TEST_CASE("a model folder with a bad config.json fails the boot as transformers does", "[sim]") {
    testsupport::TempDir models("simtrap-models");
    const fs::path bad = trap_model(models.path, "bad", "{\"architectures\": [");
    TrapSim s(bad.string(), {}, false);
    CHECK(s.exit_status == 1);
    CHECK_THAT(s.text(), Contains(fmt::format("OSError: It looks like the config file at '{}' is not a valid JSON file.",
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
