// The simulator's tests share these (test_sim_traps*.cpp; test_sim.cpp its spawn and wait): a simulated
// vLLM on a free port of 127.0.0.1 with its ground truth (/sim/state), its bench client,
// inferlint's commands on what they leave, and model folders. Only processes these tests
// start are ever signalled.
#pragma once

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

namespace simtraps {

using namespace inferlint;
namespace fs = std::filesystem;

inline double trap_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `inferlint-sim vllm ARGS...` with its output in `log`; returns the pid.
inline int trap_spawn(const std::vector<std::string>& args, const fs::path& log) {
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

inline int trap_wait_exit(int pid, double timeout_s) {
    auto t0 = std::chrono::steady_clock::now();
    while (trap_since(t0) < timeout_s) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
        std::vector<std::string> args = {
            "serve", model, "--port", "0", "--sim-boot-s", "0.05", "--sim-log-interval-s", "0.5", "--sim-time-scale",
            "20"};
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
inline Json trap_bench(const TrapSim& s, const fs::path& dir, int prompts, int in_len, int out_len,
                       const std::vector<std::string>& extra = {}) {
    fs::create_directories(dir);
    std::vector<std::string> args = {"bench",
                                     "serve",
                                     "--model",
                                     "sim/Qwen3-8B",
                                     "--base-url",
                                     s.url(),
                                     "--num-prompts",
                                     std::to_string(prompts),
                                     "--max-concurrency",
                                     "4",
                                     "--random-input-len",
                                     std::to_string(in_len),
                                     "--random-output-len",
                                     std::to_string(out_len),
                                     "--ignore-eos",
                                     "--save-result",
                                     "--result-dir",
                                     dir.string(),
                                     "--result-filename",
                                     "bench.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    int pid = trap_spawn(args, dir / "load.log");
    int rc = trap_wait_exit(pid, 60);
    INFO(util::read_file(dir / "load.log", util::AllowEmpty::yes));
    REQUIRE(rc == 0);
    return Json::parse(util::read_file(dir / "bench.json"));
}

// The results of a command's --json output, by tripwire.
inline std::map<std::string, Json> trap_results(const testsupport::CliResult& r) {
    INFO(r.out << r.err);
    std::map<std::string, Json> out;
    Json doc = Json::parse(r.out);
    const Json& list = doc.is_array() ? doc : doc["results"];
    for (const auto& res : list) out[res["tripwire"].get<std::string>()] = res;
    return out;
}

inline double trap_delta(const fs::path& before, const fs::path& after, const std::string& name,
                         const prom::LabelFilter& labels = {}) {
    return Deltas(load_snapshot(before), load_snapshot(after))(name, "", labels).value();
}

// A completion's answer, streamed: the text of each chunk that carries tokens.
inline std::vector<std::string> trap_stream_chunks(const TrapSim& s, const std::string& prompt, int max_tokens) {
    auto r = util::http_post_json(
        s.url() + "/v1/completions",
        fmt::format(R"({{"model": "sim/Qwen3-8B", "prompt": "{}", "max_tokens": {}, "stream": true}})", prompt,
                    max_tokens));
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
inline int trap_words(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), ' ') + std::count(text.begin(), text.end(), '.'));
}

inline std::string trap_words_prompt(char letter, int n) {
    std::string p;
    for (int i = 0; i < n; ++i) p += fmt::format("{}{}{}", i ? " " : "", letter, i);
    return p;
}

inline long long trap_hits(const TrapSim& s) { return s.state()["prefix_cache_hit_tokens"].get<long long>(); }

// A model folder with this config.json text.
inline fs::path trap_model(const fs::path& parent, const std::string& name, const std::string& config_json) {
    fs::path dir = parent / name;
    fs::create_directories(dir);
    if (!config_json.empty()) util::write_file(dir / "config.json", config_json);
    return dir;
}

inline const std::string kTrapFp8Config = R"({"architectures": ["Qwen3ForCausalLM"], "quantization_config": {
  "quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor",
  "dynamic": false, "symmetric": true}}})";
inline const std::string kTrapPlainConfig = R"({"architectures": ["Qwen3ForCausalLM"], "torch_dtype": "bfloat16"})";

}  // namespace simtraps
