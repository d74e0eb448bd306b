// inferlint-sim: a simulated vLLM for tests and demos. Answers to the real command lines,
// so that a directory holding a `vllm` link to it, first on PATH, stands in for vLLM:
//   vllm serve MODEL [options]        (or: inferlint-sim vllm serve MODEL ...)
//   vllm bench serve --model M ...
//   nvidia-smi --query-gpu=... --format=csv,noheader,nounits   (a link named nvidia-smi:
//                                     one simulated, idle card, for demos on machines with no GPU;
//                                     nvidia_smi.cpp, with T19's tenant)
#include "args.hpp"
#include "bench.hpp"
#include "nvidia_smi.hpp"
#include "serve.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

// Options that never take a value, for both commands.
const std::set<std::string> kFlags = {"enforce_eager",
                                      "trust_remote_code",
                                      "sim_crash_on_first_request",
                                      "disable_log_requests",
                                      "disable_log_stats",
                                      "enable_prefix_caching",
                                      "no_enable_prefix_caching",
                                      "enable_chunked_prefill",
                                      "ignore_eos",
                                      "save_result",
                                      "save_detailed",
                                      "disable_tqdm",
                                      "no_test_input",
                                      "help",
                                      "sim_same_prompt",
                                      "sim_count_chunks",
                                      "sim_running_counts_waiting"};

int usage() {
    std::fprintf(stderr,
                 "usage: vllm serve MODEL [--port P] [--max-num-seqs N] [--max-model-len L] [--num-gpu-blocks B] "
                 "[--block-size T] [--kv-cache-dtype D] [--no-enable-prefix-caching] [--speculative-config JSON] "
                 "[--sim-time-scale F] [--sim-noise PCT] [--sim-seed N] ...\n"
                 "       vllm bench serve --model M [--base-url U | --host H --port P] --num-prompts N "
                 "--max-concurrency C --random-input-len I --random-output-len O [--save-result --result-dir D "
                 "--result-filename F] [--seed S] [--random-prefix-len P] [--sim-same-prompt] [--sim-count-chunks]\n"
                 "       inferlint-sim vllm ...   (the same, without a link named vllm)\n");
    return 2;
}

std::string basename_of(const char* path) {
    const char* slash = std::strrchr(path, '/');
    return slash ? slash + 1 : path;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> words(argv + 1, argv + argc);
    if (basename_of(argv[0]) == "nvidia-smi") return sim::fake_nvidia_smi(argv[0], words);
    if (basename_of(argv[0]) != "vllm") {
        if (words.empty() || words[0] != "vllm") return usage();
        words.erase(words.begin());
    }
    if (words.empty()) return usage();
    if (words[0] == "--version") {
        std::printf("0.30.0\n");
        return 0;
    }
    // The argv strings sit back to back in memory; the EngineCore child rewrites them.
    char* area = argv[0];
    std::size_t bytes = static_cast<std::size_t>(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0]);
    if (words[0] == "serve") {
        sim::Args a = sim::parse_args({words.begin() + 1, words.end()}, kFlags);
        if (a.flag("help")) return usage();
        return sim::serve_main(sim::serve_config(a), area, bytes);
    }
    if (words[0] == "bench" && words.size() > 1 && words[1] == "serve") {
        sim::Args a = sim::parse_args({words.begin() + 2, words.end()}, kFlags);
        if (a.flag("help")) return usage();
        return sim::bench_main(a);
    }
    return usage();
}
