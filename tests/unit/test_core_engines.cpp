#include "inferlint/core/engines.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

std::string key_of(const Engine* e) { return e ? e->key : std::string("none"); }

}  // namespace

TEST_CASE("engines: the table lists vLLM, SGLang and TensorRT-LLM, each found by its id", "[engines]") {
    const auto& all = all_engines();
    REQUIRE(all.size() == 3);
    CHECK(all[0]->key == "vllm");
    CHECK(all[1]->key == "sglang");
    CHECK(all[2]->key == "trtllm");
    for (const Engine* e : all) CHECK(&engine(e->id) == e);
    CHECK(vllm().name == "vLLM");
    CHECK(sglang().name == "SGLang");
    CHECK(trtllm().name == "TensorRT-LLM");
}

TEST_CASE("engines: every metric name an engine has starts with its prefix", "[engines]") {
    for (const Engine* e : all_engines()) {
        const MetricNames& m = e->metrics;
        for (const std::string* name : {&m.running, &m.waiting, &m.kv_usage, &m.preemptions, &m.generation_tokens,
                                        &m.prompt_tokens, &m.request_success, &m.e2e_latency, &m.first_token,
                                        &m.queue_time, &m.cache_info, &m.pool_tokens, &m.page_size, &m.paused}) {
            INFO(e->key << ": " << *name);
            if (!name->empty()) CHECK(name->starts_with(e->prefix));
        }
        // the series every check reads are there for every engine
        CHECK_FALSE(m.running.empty());
        CHECK_FALSE(m.generation_tokens.empty());
        CHECK_FALSE(m.request_success.empty());
    }
}

TEST_CASE("engines: TensorRT-LLM counts no preemptions; it pauses, and has a paused gauge", "[engines]") {
    CHECK(trtllm().metrics.preemptions.empty());
    CHECK(trtllm().metrics.paused == "trtllm_num_paused_requests");
    CHECK(trtllm().preemption == "pause");
    CHECK(trtllm().gauges_lag);
    CHECK(vllm().metrics.preemptions == "vllm:num_preemptions_total");
    CHECK(sglang().preemption == "retraction");
    CHECK_FALSE(vllm().gauges_lag);
}

TEST_CASE("engines: SGLang's retraction counter is witnessed by the gauge it serves from the start", "[engines]") {
    CHECK(sglang().witness("sglang:num_retracted_requests_total") == "sglang:num_retracted_reqs");
    CHECK(sglang().witness("sglang:generation_tokens_total").empty());
    CHECK(vllm().witness("vllm:num_preemptions_total").empty());
}

TEST_CASE("engines: SGLang listens on 30000 by default, the others on 8000", "[engines]") {
    CHECK(sglang().default_port == 30000);
    CHECK(vllm().default_port == 8000);
    CHECK(trtllm().default_port == 8000);
}

TEST_CASE("engines: by_key knows the three keys and falls back to vLLM", "[engines]") {
    CHECK(&by_key("sglang") == &sglang());
    CHECK(&by_key("trtllm") == &trtllm());
    CHECK(&by_key("vllm") == &vllm());
    CHECK(&by_key("") == &vllm());
    CHECK(&by_key("tgi") == &vllm());
    CHECK(&by_key("SGLang") == &vllm());  // keys only, as written
}

TEST_CASE("engines: parse_key reads a key or a name in any case, and nothing else", "[engines]") {
    CHECK(key_of(parse_key("TensorRT-LLM")) == "trtllm");
    CHECK(key_of(parse_key("tensorrt-llm")) == "trtllm");
    CHECK(key_of(parse_key(" trtllm\n")) == "trtllm");
    CHECK(key_of(parse_key("SGLANG")) == "sglang");
    CHECK(key_of(parse_key("vLLM")) == "vllm");
    CHECK(parse_key("tgi") == nullptr);
    CHECK(parse_key("") == nullptr);
    CHECK(parse_key("v llm") == nullptr);
}

TEST_CASE("engines: named_by picks the engine most metric names belong to", "[engines]") {
    CHECK(key_of(named_by({"vllm:num_requests_running", "sglang:num_running_reqs", "sglang:token_usage",
                           "python_gc_objects_collected_total"})) == "sglang");
    CHECK(key_of(named_by({"trtllm_kv_cache_utilization"})) == "trtllm");
    CHECK(named_by({"python_gc_objects_collected_total", "process_cpu_seconds_total"}) == nullptr);
    CHECK(named_by({}) == nullptr);
    // the prefix is matched from the start of the name only
    CHECK(named_by({"my_vllm:thing"}) == nullptr);
}

TEST_CASE("engines: a server command names its engine, behind a path, env or python -m", "[engines]") {
    CHECK(key_of(from_command("vllm serve Qwen/Qwen3-8B --port 8000")) == "vllm");
    CHECK(key_of(from_command("/opt/venv/bin/vllm serve m")) == "vllm");
    CHECK(key_of(from_command("env CUDA_VISIBLE_DEVICES=0 VLLM_X=1 vllm serve m")) == "vllm");
    CHECK(key_of(from_command("python -m vllm.entrypoints.openai.api_server --model m")) == "vllm");
    CHECK(key_of(from_command("python3 -m sglang.launch_server --model-path m")) == "sglang");
    CHECK(key_of(from_command("sglang serve --model-path m")) == "sglang");
    CHECK(key_of(from_command("trtllm-serve m --backend pytorch")) == "trtllm");
    CHECK(key_of(from_command("python -m tensorrt_llm.commands.serve m")) == "trtllm");
    CHECK(key_of(from_command("'/path with space/vllm' serve m")) == "vllm");
    // an argv keeps Windows' backslashes (a command line would read them as escapes)
    CHECK(key_of(from_command(std::vector<std::string>{"C:\\venv\\Scripts\\vllm", "serve", "m"})) == "vllm");
    CHECK(key_of(from_command(std::vector<std::string>{"trtllm-serve"})) == "trtllm");
}

TEST_CASE("engines: commands that start no server name no engine", "[engines]") {
    CHECK(from_command("vllm bench serve --model m") == nullptr);  // the load tool, not a server
    CHECK(from_command("python -m vllmx.serve") == nullptr);
    CHECK(from_command("python -m http.server") == nullptr);
    CHECK(from_command("vllm serve 'unbalanced") == nullptr);
    CHECK(from_command("") == nullptr);
    CHECK(from_command(std::vector<std::string>{}) == nullptr);
}

TEST_CASE("engines: shell_split splits as POSIX shlex does", "[engines]") {
    using V = std::vector<std::string>;
    CHECK(shell_split("a 'b c'  \"d \\\"e\\\"\" f\\ g") == V{"a", "b c", "d \"e\"", "f g"});
    CHECK(shell_split("x'y'\"z\"") == V{"xyz"});
    CHECK(shell_split("\"a\\nb\"") == V{"a\\nb"});  // in double quotes only \" \\ \$ \` are escapes
    CHECK(shell_split("'' \"\"") == V{"", ""});
    CHECK(shell_split("  ") == V{});
    CHECK(shell_split("'open") == std::nullopt);
    CHECK(shell_split("\"open") == std::nullopt);
    CHECK(shell_split("trailing\\") == std::nullopt);
}

TEST_CASE("engines: a boot log is told by lines only its engine prints", "[engines]") {
    CHECK(key_of(from_log("[TensorRT-LLM] TensorRT-LLM version: 1.3.0rc29\n")) == "trtllm");
    CHECK(key_of(from_log("INFO server_args={'model_path': 'm'}\n")) == "sglang");
    CHECK(key_of(from_log("INFO Initializing a V1 LLM engine (v0.28.0) with config: ...\n")) == "vllm");
    CHECK(key_of(from_log("(EngineCore pid=123) INFO loading\n")) == "vllm");
    // FlashInfer ships kernels under .../tensorrt_llm/ too: that alone names no engine
    CHECK(from_log("/site-packages/flashinfer/data/include/tensorrt_llm/kernels/x.h\n") == nullptr);
    CHECK(from_log("nothing an engine prints\n") == nullptr);
    CHECK(from_log("") == nullptr);
}

TEST_CASE("engines: a log's engine is told as the three patterns tell it, word edges and all", "[engines]") {
    // The patterns from_log reads literally, in the order they are tried.
    const std::regex trt(R"(\[TensorRT-LLM\]|\btrtllm-serve\b|\btensorrt_llm/(?:llmapi|serve|_torch|commands)/)");
    const std::regex sgl(R"(\bserver_args=\{|\bsglang[./]|sglang::)");
    const std::regex vll(R"(Initializing a V1 LLM engine|\bvllm[./]|VLLM::|\(EngineCore pid=)");
    auto by_patterns = [&](const std::string& t) -> std::string {
        if (std::regex_search(t, trt)) return "trtllm";
        if (std::regex_search(t, sgl)) return "sglang";
        if (std::regex_search(t, vll)) return "vllm";
        return "none";
    };
    const std::vector<std::string> pieces{"vllm",
                                          ".",
                                          "/",
                                          "x",
                                          "_",
                                          "-",
                                          " ",
                                          "\xc3\xa9",
                                          "\n",
                                          "VLLM::",
                                          "sglang",
                                          "sglang::",
                                          "server_args={",
                                          "trtllm-serve",
                                          "tensorrt_llm/",
                                          "llmapi/",
                                          "serve/",
                                          "_torch/",
                                          "commands/",
                                          "kernels/",
                                          "[TensorRT-LLM]",
                                          "(EngineCore pid=",
                                          "Initializing a V1 LLM engine",
                                          "2"};
    std::mt19937 rng(3);
    for (int round = 0; round < 20000; ++round) {
        std::string t;
        for (int n = 1 + static_cast<int>(rng() % 5); n > 0; --n) t += pieces[rng() % pieces.size()];
        INFO(t);
        REQUIRE(key_of(from_log(t)) == by_patterns(t));
    }
}

TEST_CASE("engines: only the head of a log is read to tell its engine", "[engines]") {
    std::string log(200000, '.');
    log += "\nINFO Initializing a V1 LLM engine\n";
    CHECK(from_log(log) == nullptr);
    CHECK(key_of(from_log(log.substr(150000))) == "vllm");
}

TEST_CASE("engines: the project's own boot logs are told apart", "[engines]") {
    const fs::path own = testsupport::own_fixtures();
    CHECK(key_of(from_log(util::read_file(own / "bootlog/sglang/boot.log"))) == "sglang");
    CHECK(key_of(from_log(util::read_file(own / "bootlog/trtllm/boot.log"))) == "trtllm");
    CHECK(key_of(from_log(util::read_file(own / "bootlog/vllm/healthy.log"))) == "vllm");
    CHECK(key_of(from_log(util::read_file(own / "vllm-sim/preempted/boot.log"))) == "vllm");
}
