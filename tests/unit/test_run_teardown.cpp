// Which processes are a server's, what the usual pkill gets wrong, wait-clear and
// teardown. Cases pinned from the Python tool's test_teardown.py, plus real processes
// this test starts itself. Nothing but those processes is ever signalled here.
#include "inferlint/run/teardown.hpp"
#include "inferlint/util/subprocess.hpp"

#include "../support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace inferlint;
using run::Proc;
namespace fs = std::filesystem;

namespace {

Proc P(int pid, int ppid, std::vector<std::string> argv, std::string comm) {
    return Proc{pid, ppid, std::move(argv), std::move(comm)};
}

// pid 400 is "us": a shell one-liner running the teardown (401).
std::vector<Proc> table() {
    return {
        P(1, 0, {"/sbin/init"}, "init"),
        P(100, 1, {"bash", "run_campaign.sh"}, "bash"),
        P(200, 100, {"/opt/venv/bin/python", "/opt/venv/bin/vllm", "serve", "/models/m"}, "vllm"),
        P(201, 200, {"VLLM::EngineCore"}, "VLLM::EngineCor"),
        P(300, 1, {"python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"}, "python"),
        P(301, 300, {"VLLM::Worker_TP0"}, "VLLM::Worker_TP"),
        P(400, 1, {"bash", "-lc", "pkill -f 'vllm serve'; inferlint teardown"}, "bash"),
        P(401, 400, {"python", "-m", "inferlint.cli", "teardown"}, "python"),
        P(500, 1, {"tail", "-f", "logs/vllm serve.log"}, "tail"),
        P(600, 1, {"vllm", "serve", "/models/other"}, "vllm"),
    };
}

std::set<int> pids(const std::vector<Proc>& ps) {
    std::set<int> out;
    for (const auto& p : ps) out.insert(p.pid);
    return out;
}

class TeardownClock final : public run::Clock {
public:
    double t = 0;
    double now_s() override { return t; }
    void sleep_s(double s) override { t += s; }
};

// Readings handed out one per call; nullopt stands for nvidia-smi failing.
run::ClearResult run_wait(std::vector<std::optional<long long>> readings, std::vector<int> live,
                          run::WaitOptions opts) {
    std::size_t ri = 0, li = 0;
    TeardownClock clock;
    auto read = [&]() -> std::vector<long long> {
        auto v = readings.at(ri++);
        return v ? std::vector<long long>{*v} : std::vector<long long>{};
    };
    return run::wait_clear(
        read, [&] { return live.at(li++); }, opts, clock);
}

}  // namespace

TEST_CASE("teardown: structural match finds engines and spares bystanders", "[teardown]") {
    CHECK(pids(run::server_processes(table(), 401)) == std::set<int>{200, 201, 300, 301, 600});
}

TEST_CASE("teardown: the usual pkill misses the engines and hits the shell and a bystander", "[teardown]") {
    auto naive = pids(run::naive_pkill_matches(table()));
    CHECK_FALSE(naive.count(201));  // the engines holding the GPU survive it
    CHECK_FALSE(naive.count(301));
    CHECK(naive.count(400));  // the shell running pkill kills itself
    CHECK(naive.count(500));  // and a bystander whose argv merely mentions the phrase
    CHECK(naive == std::set<int>{200, 400, 500, 600});
    CHECK(run::usual_pkill_pattern(run::server_processes(table(), 401)) == "vllm serve");
}

TEST_CASE("teardown: never the caller or its ancestors, however server-like", "[teardown]") {
    auto t = table();
    t.push_back(P(700, 600, {"vllm", "serve", "x"}, "vllm"));
    auto found = pids(run::server_processes(t, 700));
    CHECK_FALSE(found.count(700));
    CHECK_FALSE(found.count(600));
    CHECK(found == std::set<int>{200, 201, 300, 301});

    // A caller nested several levels below a server-looking shell: the whole chain is
    // protected, but the server's renamed engine beside it is still a target.
    std::vector<Proc> nested = {
        P(1, 0, {"init"}, "init"),
        P(800, 1, {"vllm", "serve", "m"}, "vllm"),
        P(801, 800, {"bash", "bench.sh"}, "bash"),
        P(802, 801, {"bash", "-c", "pkill -f 'vllm serve'; inferlint teardown"}, "bash"),
        P(803, 802, {"inferlint", "teardown"}, "inferlint"),
        P(804, 800, {"VLLM::EngineCore"}, "VLLM::EngineCor"),
        P(805, 804, {"python", "-c", "from multiprocessing.spawn import spawn_main"}, "python"),
    };
    CHECK(pids(run::server_processes(nested, 803)) == std::set<int>{804, 805});
}

TEST_CASE("teardown: an engine re-parented to pid 1 after its server died is still found", "[teardown]") {
    std::vector<Proc> t = {
        P(1, 0, {"init"}, "init"),
        P(201, 1, {"VLLM::EngineCore"}, "VLLM::EngineCor"),
        P(202, 201, {"python", "-c", "from multiprocessing.resource_tracker import main"}, "python"),
        P(400, 1, {"bash"}, "bash"),
    };
    CHECK(pids(run::server_processes(t, 400)) == std::set<int>{201, 202});
    // pkill -f 'vllm serve' finds nothing at all to signal.
    CHECK(run::naive_pkill_matches(t).empty());
}

TEST_CASE("teardown: server processes are told by argv, not by substring", "[teardown]") {
    struct Case {
        std::vector<std::string> argv;
        std::string comm;
        std::optional<EngineId> engine;
    };
    const std::vector<Case> cases = {
        {{"vllm", "serve", "m"}, "vllm", EngineId::vllm},
        {{"/usr/bin/python3.12", "/venv/bin/vllm", "serve", "m"}, "python3", EngineId::vllm},
        {{"python", "-m", "vllm.entrypoints.cli.main", "serve"}, "python", EngineId::vllm},
        {{"VLLM::EngineCore"}, "VLLM::EngineCor", EngineId::vllm},
        {{}, "VLLM::EngineCor", EngineId::vllm},  // argv wiped, comm still tells
        {{"vllm", "bench", "serve"}, "vllm", std::nullopt},
        {{"bash", "-c", "vllm serve m"}, "bash", std::nullopt},  // the wrapper, not the server
        {{"grep", "vllm serve"}, "grep", std::nullopt},
        {{"/opt/tools/vllm", "serve-docs"}, "vllm", std::nullopt},
        {{"bash", "/venv/bin/vllm", "serve", "m"}, "bash", std::nullopt},  // only python runs the script form
        {{"vllm serve m"}, "vllm", std::nullopt},                          // one argument holding spaces
        {{"sglang", "serve", "--model-path", "m"}, "sglang", EngineId::sglang},
        {{"python3", "-m", "sglang.launch_server", "--model-path", "m"}, "python3", EngineId::sglang},
        {{"sglang::scheduler"}, "sglang::schedul", EngineId::sglang},
        {{}, "sglang::detoken", EngineId::sglang},
        {{"/usr/local/bin/trtllm-serve", "serve", "m"}, "trtllm-serve", EngineId::trtllm},
        {{"trtllm-serve", "m"}, "trtllm-serve", std::nullopt},                // no serve subcommand
        {{"python", "-m", "mpi4py.futures.server"}, "python", std::nullopt},  // only as a descendant
        {{"node", "-m", "vllm.entrypoints.openai.api_server"}, "node", std::nullopt},
        {{}, "kthreadd", std::nullopt},
    };
    for (const auto& c : cases) {
        const Proc p{1, 0, c.argv, c.comm};
        INFO("argv: " << p.cmdline() << " comm: " << c.comm);
        CHECK(run::server_engine(p) == c.engine);
    }
}

TEST_CASE("teardown: SGLang and TensorRT-LLM families, and --engine leaves the others", "[teardown]") {
    std::vector<Proc> t = {
        P(1, 0, {"init"}, "init"),
        P(10, 1, {"sglang", "serve", "--model-path", "m"}, "sglang"),
        P(11, 10, {"sglang::scheduler"}, "sglang::schedul"),
        P(12, 10, {"sglang::detokenizer"}, "sglang::detoken"),
        P(20, 1, {"/venv/bin/trtllm-serve", "serve", "m", "--config", "llm_api.yaml"}, "trtllm-serve"),
        P(21, 20, {"prte", "--report-uri", "fd"}, "prte"),
        P(22, 21, {"/venv/bin/python3", "-m", "mpi4py.futures.server"}, "python3"),
        P(30, 1, {"python", "-m", "mpi4py.futures.server"}, "python"),  // no trtllm-serve above it
        P(40, 1, {"vllm", "serve", "m"}, "vllm"),
        P(99, 1, {"inferlint", "teardown"}, "inferlint"),
    };
    CHECK(pids(run::server_processes(t, 99)) == std::set<int>{10, 11, 12, 20, 21, 22, 40});
    auto sg = run::server_processes(t, 99, EngineId::sglang);
    CHECK(pids(sg) == std::set<int>{10, 11, 12});
    CHECK(run::usual_pkill_pattern(sg) == "sglang serve");
    auto trt = run::server_processes(t, 99, EngineId::trtllm);
    CHECK(pids(trt) == std::set<int>{20, 21, 22});
    CHECK(run::usual_pkill_pattern(trt) == "trtllm-serve");
    // trtllm-serve's pattern misses the model process under prte.
    CHECK(pids(run::naive_pkill_matches(t, "trtllm-serve")) == std::set<int>{20});
    CHECK(pids(run::server_processes(t, 99, EngineId::vllm)) == std::set<int>{40});

    std::vector<Proc> module = {P(50, 1, {"python", "-m", "sglang.launch_server", "--model-path", "m"}, "python"),
                                P(51, 50, {"sglang::scheduler_TP0"}, "sglang::schedul")};
    CHECK(run::usual_pkill_pattern(run::server_processes(module, 99)) == "sglang.launch_server");
    // pkill reads a regular expression: its '.' matches any character.
    module.push_back(P(60, 1, {"vim", "sglang-launch_server.md"}, "vim"));
    CHECK(pids(run::naive_pkill_matches(module, "sglang.launch_server")) == std::set<int>{50, 60});
    CHECK(run::usual_pkill_pattern({}) == "vllm serve");
}

TEST_CASE("wait_clear: one low reading is not proof", "[teardown]") {
    // A crashing engine reads low mid-teardown, then the survivor is seen again.
    auto r = run_wait({18900, 300, 18500, 250, 240}, {1, 0, 1, 0, 0}, {.interval_s = 2.0});
    CHECK(r.clear);
    REQUIRE(r.readings.size() == 5);  // needed the 4th and 5th in a row
    CHECK(r.reason == "2 consecutive clear readings");
    CHECK(r.readings[4].elapsed_s == 8.0);
    CHECK(r.readings[0].max_used_mib == 18900);
}

TEST_CASE("wait_clear: low memory with a live engine is not clear", "[teardown]") {
    auto r = run_wait(std::vector<std::optional<long long>>(10, 100), std::vector<int>(10, 1),
                      {.interval_s = 2.0, .timeout_s = 10.0});
    CHECK_FALSE(r.clear);
    CHECK(r.readings.size() == 6);  // at 0, 2, 4, 6, 8 and 10 s
    CHECK(r.reason == "not clear after 10s: last reading 100 MiB used, 1 server processes alive");
}

TEST_CASE("wait_clear: unreadable GPU memory is not clear", "[teardown]") {
    auto r = run_wait(std::vector<std::optional<long long>>(10, std::nullopt), std::vector<int>(10, 0),
                      {.interval_s = 2.0, .timeout_s = 10.0});
    CHECK_FALSE(r.clear);
    CHECK_FALSE(r.readings.back().max_used_mib);
    CHECK(r.reason == "not clear after 10s: last reading None MiB used, 0 server processes alive");

    TeardownClock clock;
    auto empty = run::wait_clear([] { return std::vector<long long>{}; }, [] { return 0; }, {.timeout_s = 4.0}, clock);
    CHECK_FALSE(empty.clear);
    CHECK(empty.readings.size() == 3);
}

TEST_CASE("wait_clear: the busiest GPU decides, the limit is inclusive, timeout 0 reads once", "[teardown]") {
    TeardownClock clock;
    auto two = run::wait_clear(
        [] {
            return std::vector<long long>{10, 801};
        },
        [] { return 0; }, {.timeout_s = 0.0}, clock);
    CHECK_FALSE(two.clear);
    REQUIRE(two.readings.size() == 1);
    CHECK(two.readings[0].max_used_mib == 801);
    CHECK(two.reason == "not clear after 0s: last reading 801 MiB used, 0 server processes alive");
    auto at_limit = run::wait_clear(
        [] {
            return std::vector<long long>{800, 3};
        },
        [] { return 0; }, {.consecutive = 1, .timeout_s = 0.0}, clock);
    CHECK(at_limit.clear);
    CHECK(at_limit.reason == "1 consecutive clear readings");
    CHECK_THROWS_AS(
        run::wait_clear([] { return std::vector<long long>{0}; }, [] { return 0; }, {.consecutive = 0}, clock),
        std::invalid_argument);
}

TEST_CASE("teardown: SIGTERM, then SIGKILL to the survivors, then wait for clear", "[teardown]") {
    auto t = table();
    std::set<int> alive = {201};  // EngineCore ignores SIGTERM
    std::vector<std::pair<int, int>> sent;
    TeardownClock clock;
    auto listing = [&] {
        std::vector<Proc> out;
        for (const auto& p : t)
            if (!run::is_server_process(p) || alive.count(p.pid)) out.push_back(p);
        return out;
    };
    auto kill = [&](const std::vector<Proc>& ps, int sig) {
        std::vector<int> out;
        for (const auto& p : ps) {
            sent.emplace_back(p.pid, sig);
            out.push_back(p.pid);
            if (sig != SIGTERM) alive.erase(p.pid);
        }
        return out;
    };
    auto outcome = run::teardown(
        listing, kill, [] { return std::vector<long long>{120}; }, {.grace_s = 3.0, .self_pid = 401}, clock);
    CHECK(pids(outcome.targets) == std::set<int>{201});
    REQUIRE(sent.size() == 2);
    CHECK(sent[0] == std::pair{201, SIGTERM});
    CHECK(sent[1] == std::pair{201, SIGKILL});
    CHECK(outcome.clear.clear);
    CHECK(clock.t >= 3.0);  // waited out the grace period for the survivor
}

TEST_CASE("teardown: --engine signals one engine, yet the card waits for every engine", "[teardown]") {
    std::vector<Proc> t = {P(10, 1, {"sglang", "serve"}, "sglang"), P(40, 1, {"vllm", "serve", "m"}, "vllm")};
    std::set<int> alive = {10, 40};
    std::vector<int> signalled;
    TeardownClock clock;
    auto listing = [&] {
        std::vector<Proc> out;
        for (const auto& p : t)
            if (alive.count(p.pid)) out.push_back(p);
        return out;
    };
    auto kill = [&](const std::vector<Proc>& ps, int) {
        std::vector<int> out;
        for (const auto& p : ps) signalled.push_back(p.pid), alive.erase(p.pid), out.push_back(p.pid);
        return out;
    };
    auto outcome = run::teardown(
        listing, kill, [] { return std::vector<long long>{0}; },
        {.wait = {.interval_s = 2.0, .timeout_s = 6.0}, .engine = EngineId::sglang, .self_pid = 99}, clock);
    CHECK(signalled == std::vector<int>{10});
    CHECK_FALSE(outcome.clear.clear);
    CHECK(outcome.clear.reason == "not clear after 6s: last reading 0 MiB used, 1 server processes alive");
}

// ---- real processes, all started by this test ----

namespace {

// Starts exe with exactly this argv (argv[0] may be any name) in cwd; output discarded.
pid_t spawn(const std::string& exe, const std::vector<std::string>& argv, const fs::path& cwd) {
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    std::string dir = cwd.string();
    pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(dir.c_str()) != 0) ::_exit(126);
        int fd = ::open("/dev/null", O_RDWR);
        ::dup2(fd, 0), ::dup2(fd, 1), ::dup2(fd, 2);
        ::execv(exe.c_str(), a.data());
        ::_exit(127);
    }
    return pid;
}

template <typename F>
bool eventually(F ok, double within_s = 10.0) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(within_s);
    while (std::chrono::steady_clock::now() < end) {
        if (ok()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return ok();
}

// Alive and not a zombie waiting for a parent to reap it.
bool running(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    auto st = procfs::parse_stat(line);
    return st && st->state != 'Z' && st->state != 'X';
}

struct OwnedTree {
    fs::path dir;
    std::set<int> roots;  // pids this test started (or whose pid a started script reported)

    // The real process table cut down to what this test owns (and its descendants),
    // plus this test process and its ancestors so that protection is exercised.
    std::vector<Proc> listing() const {
        auto all = procfs::list_processes("/proc");
        std::map<int, std::vector<int>> children;
        for (const auto& p : all) children[p.ppid].push_back(p.pid);
        std::set<int> keep(roots.begin(), roots.end());
        std::vector<int> todo(roots.begin(), roots.end());
        while (!todo.empty()) {
            int pid = todo.back();
            todo.pop_back();
            for (int c : children[pid])
                if (keep.insert(c).second) todo.push_back(c);
        }
        std::map<int, int> parent;
        for (const auto& p : all) parent[p.pid] = p.ppid;
        for (int cur = ::getpid(); cur > 0 && keep.insert(cur).second;) cur = parent.count(cur) ? parent[cur] : 0;
        std::vector<Proc> out;
        for (const auto& p : all)
            if (keep.count(p.pid)) out.push_back(p);
        return out;
    }
};

}  // namespace

TEST_CASE("teardown: a real renamed engine that outlived its server is found and gone; lookalikes stay",
          "[teardown][real]") {
    const std::string bash = util::find_program("bash");
    const std::string tail = util::find_program("tail");
    if (bash.empty() || tail.empty() || !fs::is_directory("/proc/self")) {
        WARN("skipped: needs bash, tail and /proc");
        return;
    }
    OwnedTree tree;
    tree.dir = testsupport::scratch_dir("teardown");
    // bash runs the script named by argv[1], so argv reads exactly `vllm serve m`. Its
    // engine ignores SIGTERM and renames itself as vLLM's does.
    std::ofstream(tree.dir / "serve") << "(trap '' TERM; exec -a VLLM::EngineCore sleep 300) &\n"
                                         "echo $! > engine.pid.tmp && mv engine.pid.tmp engine.pid\n"
                                         "wait\n";
    std::ofstream(tree.dir / "vllm serve.log") << "INFO started\n";
    pid_t server = spawn(bash, {"vllm", "serve", "m"}, tree.dir);
    pid_t wrapper = spawn(bash, {"bash", "-c", "sleep 300; : vllm serve m"}, tree.dir);
    pid_t bystander = spawn(tail, {"tail", "-f", "vllm serve.log"}, tree.dir);
    REQUIRE(server > 0);
    tree.roots = {server, wrapper, bystander};

    int engine = 0;
    REQUIRE(eventually([&] {
        std::ifstream in(tree.dir / "engine.pid");
        return static_cast<bool>(in >> engine);
    }));
    REQUIRE(eventually([&] {
        auto p = procfs::read_process("/proc", engine);
        return p && !p->argv.empty() && p->argv[0] == "VLLM::EngineCore";
    }));
    tree.roots.insert(engine);
    // spawn returns after fork: wait until each lookalike has exec'd and shows its own argv
    auto execd = [](pid_t pid, const std::string& argv0) {
        return [=] {
            auto p = procfs::read_process("/proc", pid);
            return p && !p->argv.empty() && p->argv[0] == argv0;
        };
    };
    REQUIRE(eventually(execd(wrapper, "bash")));
    REQUIRE(eventually(execd(bystander, "tail")));
    REQUIRE(eventually(execd(server, "vllm")));
    {
        auto before = tree.listing();
        CHECK(pids(run::server_processes(before, ::getpid())) == std::set<int>{server, engine});
        // The usual pkill would hit the server and both lookalikes, and miss the engine.
        auto naive = pids(run::naive_pkill_matches(before));
        CHECK(naive.count(server));
        CHECK(naive.count(wrapper));
        CHECK(naive.count(bystander));
        CHECK_FALSE(naive.count(engine));
    }

    // The API server dies (as after `pkill -f 'vllm serve'`); its engine lives on, re-parented.
    ::kill(server, SIGKILL);
    ::waitpid(server, nullptr, 0);
    tree.roots.erase(server);  // reaped: its pid may now name someone else's process
    REQUIRE(eventually([&] {
        auto p = procfs::read_process("/proc", engine);
        return p && p->ppid != server;
    }));
    REQUIRE(running(engine));

    std::vector<std::pair<int, int>> sent;
    std::vector<int> foreign;  // must stay empty: anything not started by this test
    auto send = [&](const std::vector<Proc>& ps, int sig) {
        std::vector<Proc> ours;
        for (const auto& p : ps) {
            if (tree.roots.count(p.pid))
                ours.push_back(p);
            else
                foreign.push_back(p.pid);
        }
        auto got = run::signal_processes(ours, sig);
        for (int pid : got) sent.emplace_back(pid, sig);
        return got;
    };
    run::SteadyClock clock;
    auto outcome = run::teardown([&] { return tree.listing(); }, send, [] { return std::vector<long long>{0}; },
                                 {.grace_s = 1.0,
                                  .wait = {.consecutive = 2, .interval_s = 0.1, .timeout_s = 10.0},
                                  .self_pid = static_cast<int>(::getpid())},
                                 clock);
    CHECK(foreign.empty());
    CHECK(pids(outcome.targets) == std::set<int>{engine});
    CHECK(sent == std::vector<std::pair<int, int>>{{engine, SIGTERM}, {engine, SIGKILL}});
    CHECK(outcome.clear.clear);
    CHECK(eventually([&] { return !running(engine); }));
    CHECK(running(wrapper));
    CHECK(running(bystander));

    // The lookalikes and their children (the wrapper's sleep), and only those.
    const std::set<int> lookalikes = {wrapper, bystander};
    for (const auto& p : tree.listing())
        if (lookalikes.count(p.pid) || lookalikes.count(p.ppid)) ::kill(p.pid, SIGKILL);
    for (pid_t p : {wrapper, bystander}) ::waitpid(p, nullptr, 0);
    std::error_code ec;
    fs::remove_all(tree.dir, ec);
}

TEST_CASE("teardown: the real signaller skips gone, reused and protected pids", "[teardown][real]") {
    if (!fs::is_directory("/proc/self")) {
        WARN("skipped: no /proc here");
        return;
    }
    // Signal 0 checks that a signal could be delivered and delivers nothing.
    for (int pid : {-1, 0, 1, static_cast<int>(::getpid())})
        CHECK(run::signal_processes({Proc{pid, 0, {"vllm", "serve"}, "vllm"}}, 0).empty());

    pid_t child = ::fork();
    if (child == 0) {
        ::pause();
        ::_exit(0);
    }
    REQUIRE(child > 0);
    std::optional<Proc> seen;
    REQUIRE(eventually([&] { return (seen = procfs::read_process("/proc", child)).has_value(); }));
    CHECK(run::signal_processes({*seen}, 0) == std::vector<int>{child});
    Proc reused = *seen;
    reused.start_ticks += 1;  // the same pid, started at another time: another process
    CHECK(run::signal_processes({reused}, 0).empty());

    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    // Exited between listing and signalling: skipped, not an error.
    CHECK(run::signal_processes({*seen}, 0).empty());
}
