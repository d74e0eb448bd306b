// The sandbox the xray tests share: a folder with a link to the simulator, the simulator's
// commands on a free port, fast timings, and the checks that every server process is gone.
// Only processes these tests start are ever signalled.
#pragma once

#include "support.hpp"

#include "inferlint/run/xray.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/http.hpp"
#include "inferlint/util/process.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <regex>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace xraytest {

using namespace inferlint;
namespace fs = std::filesystem;

inline const std::string kModel = "sim/Qwen3-8B";

inline double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A port nothing listens on now.
inline int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// Alive and not a zombie.
inline bool alive(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (pid <= 0 || !std::getline(f, line)) return false;
    auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// A folder for one test, with a `vllm` link to the simulator in a sub-folder whose name
// has a space (so every command line here must quote it).
struct Sandbox {
    fs::path dir;
    fs::path bin;
    explicit Sandbox(const std::string& name) {
        dir = fs::temp_directory_path() / ("il-xray-" + std::to_string(::getpid()) + "-" + name);
        fs::remove_all(dir);
        bin = dir / "sim bin";
        fs::create_directories(bin);
        fs::create_symlink(INFERLINT_SIM_BINARY, bin / "vllm");
    }
    ~Sandbox() { fs::remove_all(dir); }
    std::string vllm() const { return (bin / "vllm").string(); }
    fs::path out() const { return dir / "run"; }
};

// The simulator's server command: quoted, on a free port, booting fast.
inline std::string serve_cmd(const Sandbox& sb, int port, const std::string& extra,
                             const std::string& boot_s = "0.05") {
    return fmt::format("{} serve {} --port {} --sim-boot-s {} --sim-log-interval-s 0.5 {}",
                       util::shell_join({sb.vllm()}), kModel, port, boot_s, extra);
}

inline std::vector<std::string> bench_cmd(const Sandbox& sb, int port, int prompts, int concurrency, int in_len,
                                          int out_len, const std::string& model = kModel) {
    return {sb.vllm(),
            "bench",
            "serve",
            "--model",
            model,
            "--base-url",
            fmt::format("http://127.0.0.1:{}", port),
            "--num-prompts",
            std::to_string(prompts),
            "--max-concurrency",
            std::to_string(concurrency),
            "--random-input-len",
            std::to_string(in_len),
            "--random-output-len",
            std::to_string(out_len),
            "--ignore-eos"};
}

// The GPU reads empty and no other server counts: the machine these tests share runs
// other tests' simulators, which are none of this run's business.
inline xray::Machine quiet_machine() {
    return {[] { return std::vector<long long>{0}; }, [] { return std::vector<int>{}; }};
}

inline xray::Timings fast() {
    return {.ready_poll_s = 0.02,
            .ready_progress_s = 10,
            .gpu_gate_timeout_s = 2,
            .clear_interval_s = 0.02,
            .stop_grace_s = 3,
            .clear_timeout_s = 10,
            .load_grace_s = 2};
}

struct Ran {
    xray::Outcome outcome;
    std::vector<std::string> lines;
    int exit = -1;
    Json results;
    std::string text() const {
        std::string t;
        for (const auto& l : lines) t += l + "\n";
        return t;
    }
    const CheckResult* find(const std::string& tripwire) const {
        const CheckResult* last = nullptr;
        for (const auto& r : outcome.results)
            if (r.tripwire == tripwire) last = &r;
        return last;
    }
};

inline Ran run_xray(xray::Plan plan, std::function<void(xray::Stage)> on_stage = nullptr) {
    plan.timings = fast();
    plan = xray::checked(std::move(plan));
    Ran r;
    xray::Callbacks cb;
    cb.say = [&r](const std::string& l) { r.lines.push_back(l); };
    cb.on_stage = std::move(on_stage);
    r.outcome = xray::run(plan, cb, quiet_machine());
    r.exit = xray::exit_code(r.outcome, plan.strict);
    r.results = Json::parse(util::read_file(plan.out / "results.json"));
    return r;
}

// The simulator's processes named in its log: the API server and its EngineCore.
inline std::vector<int> server_pids(const fs::path& boot_log) {
    std::string text = util::read_file(boot_log, util::AllowEmpty::yes);
    std::vector<int> pids;
    static const std::regex core_re(R"(\(EngineCore pid=(\d+)\))");
    static const std::regex api_re(R"(\(APIServer pid=(\d+)\))");
    for (const auto* re : {&core_re, &api_re}) {
        std::smatch m;
        if (std::regex_search(text, m, *re)) pids.push_back(std::stoi(m[1]));
    }
    return pids;
}

inline void require_all_gone(const fs::path& boot_log) {
    auto pids = server_pids(boot_log);
    REQUIRE_FALSE(pids.empty());
    for (int pid : pids) CHECK_FALSE(alive(pid));
}

// Sends SIGINT to this process after a pause, from a thread (xray's handler takes it).
struct LateSignal {
    std::thread t;
    void arm(double after_s) {
        t = std::thread([after_s] {
            std::this_thread::sleep_for(std::chrono::duration<double>(after_s));
            ::kill(::getpid(), SIGINT);
        });
    }
    ~LateSignal() {
        if (t.joinable()) t.join();
    }
};

// One tripwire's verdict as xray gave it (results.json) and as `report RUN --json` gives it
// again from the run folder, the run's server gone: what each trap test holds side by side.
struct TrapVerdicts {
    Ran ran;
    Json xray;    // results.json's verdict; null: none
    Json report;  // `report RUN --json`'s; null: none
};

inline Json verdict_of(const Json& list, const std::string& tripwire) {
    for (const auto& r : list)
        if (r["tripwire"] == tripwire) return r;
    return nullptr;
}

inline TrapVerdicts xray_and_report(const Sandbox& sb, xray::Plan plan, const std::string& tripwire) {
    TrapVerdicts t{run_xray(std::move(plan)), nullptr, nullptr};
    INFO(t.ran.text());
    t.xray = verdict_of(t.ran.results["results"], tripwire);
    auto rep = testsupport::run_cli({"report", sb.out().string(), "--json"},
                                    "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ");
    INFO(rep.err);
    t.report = verdict_of(Json::parse(rep.out), tripwire);
    require_all_gone(sb.out() / "boot.log");
    return t;
}

}  // namespace xraytest
