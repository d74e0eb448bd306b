// The plan of an xray run: the load command as it will run, the server's address, and
// everything that can be found wrong before anything starts.
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/run/xray.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"
#include "inferlint/util/process.hpp"
#include "inferlint/util/subprocess.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unistd.h>

namespace inferlint::xray {

namespace {

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool has(const std::vector<std::string>& cmd, std::string_view word) {
    return std::find(cmd.begin(), cmd.end(), word) != cmd.end();
}

// A path as Python's str(Path(p)) writes it: "run/" and "./run" are "run".
std::string path_text(const fs::path& p) {
    fs::path n = p.lexically_normal();
    std::string s = n.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s.empty() ? "." : s;
}

// On PATH, or at the path given, and executable (find_program takes a path as given).
bool program_exists(const std::string& name) {
    const std::string exe = util::find_program(name);
    return !exe.empty() && util::is_executable_file(exe);
}

}  // namespace

std::optional<std::string> flag_value(const std::vector<std::string>& cmd, std::string_view flag) {
    const std::string with_eq = std::string(flag) + "=";
    for (std::size_t i = 0; i < cmd.size(); ++i) {
        if (cmd[i] == flag && i + 1 < cmd.size()) return cmd[i + 1];
        if (cmd[i].starts_with(with_eq)) return cmd[i].substr(with_eq.size());
    }
    return std::nullopt;
}

std::optional<long long> load_concurrency(const std::vector<std::string>& cmd) {
    std::optional<std::string> v = flag_value(cmd, "--max-concurrency");
    const auto tool = load_tool(cmd);
    if (tool == "aiperf" || tool == "genai-perf") v = flag_value(cmd, "--concurrency");
    if (tool == "llmperf") v = flag_value(cmd, "--num-concurrent-requests");
    // GuideLLM: --rate N with --rate-type concurrent (v0.3) or --profile concurrent (newer).
    if (tool == "guidellm") {
        auto kind = flag_value(cmd, "--profile");
        if (!kind) kind = flag_value(cmd, "--rate-type");
        v = std::nullopt;
        if (kind == "concurrent") v = flag_value(cmd, "--rate");
        if (kind == "synchronous") v = "1";
    }
    if (!v || !all_digits(*v) || v->size() > 18) return std::nullopt;
    return std::stoll(*v);
}

std::optional<std::string> load_unique_prompts(const std::vector<std::string>& cmd) {
    // GuideLLM's synthetic data (--data "prompt_tokens=N,output_tokens=M") draws each prompt
    // afresh; prefix_tokens makes them share one.
    if (load_tool(cmd) == "guidellm") {
        auto data = flag_value(cmd, "--data");
        if (!data || data->find("prompt_tokens=") == std::string::npos ||
            data->find("prefix_tokens") != std::string::npos)
            return std::nullopt;
        return "--data " + *data;
    }
    auto dataset = flag_value(cmd, "--dataset-name");
    if (!dataset || !dataset->starts_with("random")) return std::nullopt;
    if (auto prefix = flag_value(cmd, "--random-prefix-len"); prefix && *prefix != "0") return std::nullopt;
    return "--dataset-name " + *dataset;
}

std::optional<EngineId> load_client(const std::vector<std::string>& cmd) {
    for (std::size_t i = 0; i + 1 < cmd.size(); ++i)
        if (cmd[i] == "bench" && cmd[i + 1] == "serve") return EngineId::vllm;
    if (has(cmd, "sglang.benchmark.serving") || has(cmd, "sglang.bench_serving")) return EngineId::sglang;
    if (has(cmd, "tensorrt_llm.serve.scripts.benchmark_serving")) return EngineId::trtllm;
    return std::nullopt;
}

std::optional<std::string> load_tool(const std::vector<std::string>& cmd) {
    if (auto c = load_client(cmd)) {
        switch (*c) {
            case EngineId::vllm:
                return "vllm bench serve";
            case EngineId::sglang:
                return "sglang bench_serving";
            case EngineId::trtllm:
                return "tensorrt_llm benchmark_serving";
        }
    }
    auto word = [&](std::size_t i) { return fs::path(cmd[i]).filename().string(); };
    for (std::size_t i = 0; i < cmd.size(); ++i) {
        const std::string w = word(i);
        const std::string next = i + 1 < cmd.size() ? cmd[i + 1] : "";
        if (w == "guidellm" && next == "benchmark") return "guidellm";
        if (w == "aiperf" && next == "profile") return "aiperf";
        if (w == "genai-perf" && next == "profile") return "genai-perf";
        if (w == "inference-perf" || w == "inference_perf") return "inference-perf";
        if (w == "token_benchmark_ray.py") return "llmperf";
    }
    return std::nullopt;
}

namespace {

// The other tools' result, into the run folder: GuideLLM's --output-path, AIPerf's
// --artifact-dir (its profile_export_aiperf.json), LLMPerf's --results-dir (a file named
// after the model: found after the run). genai-perf nests its files under a folder named
// after the model, and inference-perf takes its folder from its config file: neither is
// moved, and --bench-result names what they wrote.
PreparedLoad prepare_other_tool(const std::string& tool, PreparedLoad p, const fs::path& out) {
    const auto& cmd = p.argv;
    if (tool == "guidellm") {
        if (auto path = flag_value(cmd, "--output-path")) {
            if (fs::path(*path).extension() == ".json") p.result = fs::path(*path);
            return p;
        }
        if (flag_value(cmd, "--output-dir")) return p;
        const std::string target = path_text(out / "benchmarks.json");
        p.argv.insert(p.argv.end(), {"--output-path", target});
        p.result = fs::path(target);
    } else if (tool == "aiperf") {
        std::string dir = flag_value(cmd, "--artifact-dir").value_or("");
        if (dir.empty()) {
            dir = path_text(out / "aiperf");
            p.argv.insert(p.argv.end(), {"--artifact-dir", dir});
        }
        p.result = fs::path(dir) / "profile_export_aiperf.json";
    } else if (tool == "genai-perf") {
        if (!flag_value(cmd, "--artifact-dir"))
            p.argv.insert(p.argv.end(), {"--artifact-dir", path_text(out / "genai-perf")});
    } else if (tool == "llmperf") {
        if (!flag_value(cmd, "--results-dir"))
            p.argv.insert(p.argv.end(), {"--results-dir", path_text(out / "llmperf")});
    }
    return p;
}

}  // namespace

PreparedLoad prepare_load(const std::vector<std::string>& cmd, const fs::path& out) {
    PreparedLoad p{cmd, std::nullopt};
    const auto client = load_client(cmd);
    if (!client) {
        if (auto tool = load_tool(cmd)) return prepare_other_tool(*tool, std::move(p), out);
        return p;
    }
    if (*client == EngineId::sglang) {
        // SGLang's client appends one JSON line per run to --output-file.
        if (auto name = flag_value(cmd, "--output-file")) {
            p.result = fs::path(*name);
            return p;
        }
        const std::string target = path_text(out / "bench.jsonl");
        p.argv.insert(p.argv.end(), {"--output-file", target});
        p.result = fs::path(target);
        return p;
    }
    // vLLM's client keeps each request's start, TTFT and chunk gaps only with --save-detailed
    // (T21 reads them); the others' scripts are older copies that may not know the flag.
    if (*client == EngineId::vllm && !has(cmd, "--save-detailed")) p.argv.push_back("--save-detailed");
    if (!has(cmd, "--save-result")) {
        p.argv.insert(p.argv.end(),
                      {"--save-result", "--result-dir", path_text(out), "--result-filename", "bench.json"});
        p.result = fs::path(path_text(out / "bench.json"));
        return p;
    }
    auto name = flag_value(cmd, "--result-filename");
    if (!name) return p;  // the client names the file itself
    p.result = fs::path(flag_value(cmd, "--result-dir").value_or(".")) / *name;
    return p;
}

std::optional<fs::path> newest_json(const fs::path& folder, fs::file_time_type since) {
    std::optional<fs::path> best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if (p.extension() != ".json" || !it->is_regular_file(ec)) continue;
        auto t = fs::last_write_time(p, ec);
        if (ec || t < since) continue;
        if (!best || t > best_time) best = p, best_time = t;
    }
    return best;
}

std::string server_url(const std::optional<std::string>& serve, const Engine* named) {
    std::vector<std::string> argv;
    if (serve) argv = shell_split(*serve).value_or(std::vector<std::string>{});
    const Engine* found = named ? named : from_command(argv);
    if (!found) found = &vllm();
    std::string host = flag_value(argv, "--host").value_or("");
    if (host.empty() || host == "0.0.0.0" || host == "::") host = "127.0.0.1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    auto port = flag_value(argv, "--port");
    return fmt::format("http://{}:{}", host, port && all_digits(*port) ? *port : std::to_string(found->default_port));
}

namespace {

// A --serve command that starts the named engine's inference server, on Linux.
void check_serve(const std::string& serve, const Engine* named) {
    auto argv = shell_split(serve);
    if (!argv) throw InputError(fmt::format("--serve {}: unbalanced quotes", util::shell_join({serve})));
    if (argv->empty()) throw InputError("--serve: the server command is empty");
    const Engine* started = from_command(*argv);
    if (!started)
        throw InputError(fmt::format(
            "--serve {}: not an inference server command (vllm serve MODEL, sglang serve --model-path MODEL, "
            "python -m sglang.launch_server, trtllm-serve serve MODEL)",
            util::shell_join({serve})));
    if (named && named != started)
        throw InputError(fmt::format("the engine named is {}, but the --serve command starts {}'s server", named->name,
                                     started->name));
    if (!program_exists((*argv)[0])) throw InputError(fmt::format("--serve: {}: not found", (*argv)[0]));
    std::error_code ec;
    if (!fs::is_directory(run::proc_root(), ec))
        throw InputError("--serve needs Linux (or WSL): stopping the server reads /proc");
}

// One server's address, its port free when this run starts it, and its boot log there.
std::string checked_server(const std::string& url, const std::optional<std::string>& serve,
                           const std::optional<fs::path>& boot_log, const Engine* named) {
    if (serve) check_serve(*serve, named);
    const std::string out = url.empty() ? server_url(serve, named) : util::normalise_base_url(url);
    if (serve) {
        const int port = util::parse_base_url(out).port;
        if (util::port_in_use(port))
            throw InputError(
                fmt::format("port {} is already in use by another process; stop it, or give the server "
                            "another --port",
                            port));
    }
    if (boot_log) {
        std::error_code ec;
        if (!fs::is_regular_file(*boot_log, ec))
            throw InputError(fmt::format("{}: no such boot log", boot_log->string()));
    }
    return out;
}

// "http://127.0.0.1:8001/v" -> "127.0.0.1:8001/v".
std::string replica_name(const std::string& url) {
    const auto p = util::parse_base_url(url);
    std::string host = p.host.find(':') != std::string::npos ? "[" + p.host + "]" : p.host;
    return fmt::format("{}:{}{}", host, p.port, p.prefix);
}

}  // namespace

Plan checked(Plan plan) {
    if (plan.load.empty())
        throw InputError(
            "xray needs the load command after --, e.g. -- vllm bench serve ..., or the engine's own benchmark "
            "client");
    if (!program_exists(plan.load[0])) throw InputError(fmt::format("the load command {}: not found", plan.load[0]));
    if (plan.replicas.empty()) {
        plan.url = checked_server(plan.url, plan.serve, plan.boot_log, plan.engine);
    } else {
        std::map<std::string, std::string> folders;  // folder -> url
        for (auto& r : plan.replicas) {
            r.url = checked_server(r.url, r.serve, r.boot_log, plan.engine);
            r.name = replica_name(r.url);
            r.folder = run::replica_series_name(r.url);
            r.folder.resize(r.folder.size() - std::string_view(".series.jsonl").size());
            auto [it, fresh] = folders.emplace(r.folder, r.url);
            if (!fresh)
                throw InputError(it->second == r.url
                                     ? fmt::format("xray: the replica {} is given twice", r.url)
                                     : fmt::format("xray: the replicas {} and {} would share the folder {}", it->second,
                                                   r.url, (plan.out / r.folder).string()));
        }
    }
    if (!(plan.interval_s > 0)) throw InputError("--interval must be more than 0 seconds");
    if (!(plan.ready_timeout_s > 0)) throw InputError("--ready-timeout must be more than 0 seconds");
    if (plan.load_timeout_s && !(*plan.load_timeout_s > 0))
        throw InputError("--load-timeout must be more than 0 seconds");
    if (plan.requested && *plan.requested < 1) throw InputError("--requested must be at least 1");
    std::error_code ec;
    fs::create_directories(plan.out, ec);
    if (ec || !fs::is_directory(plan.out))
        throw InputError(fmt::format("{}: cannot create the output folder ({})", plan.out.string(),
                                     ec ? ec.message() : "a file is in the way"));
    if (::access(plan.out.c_str(), W_OK | X_OK) != 0)
        throw InputError(fmt::format("{}: the output folder is not writable", plan.out.string()));
    return plan;
}

}  // namespace inferlint::xray
