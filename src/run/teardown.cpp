#include "inferlint/run/teardown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace inferlint::run {

namespace {

// Path(x).name: the last component, ignoring trailing slashes.
std::string_view base_name(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool starts_with_python(std::string_view arg0) { return base_name(arg0).starts_with("python"); }

// Children renamed by setproctitle carry the engine's prefix in comm and argv[0]:
// vLLM's VLLM::EngineCore and VLLM::Worker_TP0, SGLang's sglang::scheduler.
struct Renamed {
    std::string_view prefix;
    EngineId engine;
};
constexpr Renamed kRenamed[] = {{"VLLM::", EngineId::vllm}, {"sglang::", EngineId::sglang}};

// Command-line programs, each followed by a `serve` subcommand.
struct Cli {
    std::string_view name;
    EngineId engine;
};
constexpr Cli kClis[] = {{"vllm", EngineId::vllm}, {"sglang", EngineId::sglang}, {"trtllm-serve", EngineId::trtllm}};

// Modules that start a server when run with `python -m`.
struct Module {
    std::string_view name;
    EngineId engine;
};
constexpr Module kModules[] = {
    {"vllm.entrypoints.openai.api_server", EngineId::vllm},
    {"vllm.entrypoints.cli.main", EngineId::vllm},
    {"sglang.launch_server", EngineId::sglang},
};

std::set<int> self_and_ancestors(int pid, const std::vector<Proc>& procs) {
    std::map<int, int> parent;
    for (const auto& p : procs) parent.emplace(p.pid, p.ppid);
    std::set<int> seen{pid};
    int cur = pid;
    for (;;) {
        auto it = parent.find(cur);
        if (it == parent.end() || seen.count(it->second) || it->second <= 0) break;
        cur = it->second;
        seen.insert(cur);
    }
    return seen;
}

// Length of the UTF-8 sequence that starts with this byte (1 for anything malformed),
// so '.' in a pattern matches one character as Python's re does.
std::size_t utf8_len(unsigned char c) {
    if (c >= 0xF0) return 4;
    if (c >= 0xE0) return 3;
    if (c >= 0xC0) return 2;
    return 1;
}

// Does `pattern`, where '.' is any character but a newline, match `text` at `at`?
bool matches_at(std::string_view text, std::size_t at, std::string_view pattern) {
    std::size_t i = at;
    for (char pc : pattern) {
        if (i >= text.size()) return false;
        if (pc == '.') {
            if (text[i] == '\n') return false;
            i += std::min(utf8_len(static_cast<unsigned char>(text[i])), text.size() - i);
        } else {
            if (text[i] != pc) return false;
            ++i;
        }
    }
    return true;
}

}  // namespace

std::optional<EngineId> server_engine(const Proc& p) {
    for (const auto& r : kRenamed)
        if (p.comm.starts_with(r.prefix) || (!p.argv.empty() && p.argv[0].starts_with(r.prefix))) return r.engine;
    const auto& argv = p.argv;
    if (argv.empty()) return std::nullopt;
    // `vllm serve ...`, or the same script run as `python /venv/bin/vllm serve ...`.
    for (std::size_t i = 0; i < 2; ++i) {
        if (i + 1 >= argv.size() || argv[i + 1] != "serve") continue;
        auto name = base_name(argv[i]);
        if (i == 1 && !starts_with_python(argv[0])) continue;
        for (const auto& c : kClis)
            if (name == c.name) return c.engine;
    }
    if (starts_with_python(argv[0])) {
        for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
            if (argv[i] != "-m") continue;
            for (const auto& m : kModules)
                if (argv[i + 1] == m.name) return m.engine;
        }
    }
    return std::nullopt;
}

std::vector<Proc> server_processes(const std::vector<Proc>& procs, int self_pid, std::optional<EngineId> engine) {
    const std::set<int> protected_pids = self_and_ancestors(self_pid, procs);
    std::set<int> found;
    for (const auto& p : procs) {
        if (protected_pids.count(p.pid)) continue;
        auto e = server_engine(p);
        if (e && (!engine || *e == *engine)) found.insert(p.pid);
    }
    // TensorRT-LLM's model runs in `python -m mpi4py.futures.server` under `prte`, both
    // started by trtllm-serve: a server's descendants hold the GPU too.
    std::map<int, std::vector<int>> children;
    for (const auto& p : procs) children[p.ppid].push_back(p.pid);
    std::vector<int> todo(found.begin(), found.end());
    while (!todo.empty()) {
        int pid = todo.back();
        todo.pop_back();
        auto it = children.find(pid);
        if (it == children.end()) continue;
        for (int child : it->second) {
            if (found.count(child) || protected_pids.count(child)) continue;
            found.insert(child);
            todo.push_back(child);
        }
    }
    std::vector<Proc> out;
    for (const auto& p : procs)
        if (found.count(p.pid)) out.push_back(p);
    return out;
}

std::string usual_pkill_pattern(const std::vector<Proc>& targets) {
    auto any_of_engine = [&](EngineId id) {
        return std::any_of(targets.begin(), targets.end(), [&](const Proc& p) { return server_engine(p) == id; });
    };
    if (any_of_engine(EngineId::trtllm)) return "trtllm-serve";
    if (any_of_engine(EngineId::sglang)) {
        bool as_module = std::any_of(targets.begin(), targets.end(), [](const Proc& p) {
            return std::find(p.argv.begin(), p.argv.end(), "sglang.launch_server") != p.argv.end();
        });
        return as_module ? "sglang.launch_server" : "sglang serve";
    }
    return "vllm serve";
}

std::vector<Proc> naive_pkill_matches(const std::vector<Proc>& procs, std::string_view pattern) {
    std::vector<Proc> out;
    for (const auto& p : procs) {
        std::string cmd = p.cmdline();
        for (std::size_t at = 0; at + pattern.size() <= cmd.size() || (pattern.empty() && at == 0); ++at) {
            if (matches_at(cmd, at, pattern)) {
                out.push_back(p);
                break;
            }
        }
    }
    return out;
}

double SteadyClock::now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void SteadyClock::sleep_s(double s) {
    if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

ClearResult wait_clear(const UsedReader& read_used, const LiveCounter& live_servers, const WaitOptions& opts,
                       Clock& clock) {
    if (opts.consecutive < 1) throw std::invalid_argument("consecutive must be >= 1");
    ClearResult res;
    const double t0 = clock.now_s();
    int run = 0;
    for (;;) {
        int live = live_servers();
        std::vector<long long> used_per_gpu = read_used();
        // No reading is not a clear reading.
        std::optional<long long> used;
        if (!used_per_gpu.empty()) used = *std::max_element(used_per_gpu.begin(), used_per_gpu.end());
        double elapsed = std::round((clock.now_s() - t0) * 1000.0) / 1000.0;
        res.readings.push_back({elapsed, used, live});
        if (live == 0 && used && *used <= opts.max_used_mib) {
            if (++run >= opts.consecutive) {
                res.clear = true;
                res.reason = fmt::format("{} consecutive clear readings", opts.consecutive);
                return res;
            }
        } else {
            run = 0;
        }
        if (clock.now_s() - t0 >= opts.timeout_s) {
            // "None" as the Python tool words an unreadable GPU.
            res.reason = fmt::format("not clear after {:g}s: last reading {} MiB used, {} server processes alive",
                                     opts.timeout_s, used ? std::to_string(*used) : std::string("None"), live);
            return res;
        }
        clock.sleep_s(opts.interval_s);
    }
}

TeardownOutcome teardown(const Lister& list_procs, const Signaller& send, const UsedReader& read_used,
                         const TeardownOptions& opts, Clock& clock) {
    TeardownOutcome outcome;
    outcome.targets = server_processes(list_procs(), opts.self_pid, opts.engine);
    send(outcome.targets, SIGTERM);
    const double deadline = clock.now_s() + opts.grace_s;
    while (clock.now_s() < deadline && !server_processes(list_procs(), opts.self_pid, opts.engine).empty())
        clock.sleep_s(0.5);
    auto survivors = server_processes(list_procs(), opts.self_pid, opts.engine);
    if (!survivors.empty()) send(survivors, SIGKILL);
    auto live = [&] { return static_cast<int>(server_processes(list_procs(), opts.self_pid).size()); };
    outcome.clear = wait_clear(read_used, live, opts.wait, clock);
    return outcome;
}

std::vector<int> signal_processes(const std::vector<Proc>& procs, int sig, const std::filesystem::path& proc_root,
                                  std::vector<std::string>* refused) {
    std::vector<int> sent;
    const int me = static_cast<int>(::getpid());
    for (const auto& p : procs) {
        // kill() with 0, -1 or a negative pid reaches whole groups: never.
        if (p.pid <= 1 || p.pid == me) continue;
        auto now = procfs::read_process(proc_root, p.pid);
        if (!now) continue;                                                     // exited since it was listed
        if (p.start_ticks != 0 && now->start_ticks != p.start_ticks) continue;  // pid reused
        if (::kill(p.pid, sig) == 0) {
            sent.push_back(p.pid);
        } else if (errno != ESRCH && refused) {
            refused->push_back(fmt::format("pid {}: {}", p.pid, std::strerror(errno)));
        }
    }
    return sent;
}

}  // namespace inferlint::run
