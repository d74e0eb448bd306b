// xray under signals and a load that goes wrong: SIGINT, SIGTERM and SIGHUP in the middle of
// every stage (the GPU check, the boot wait, the probe, the load, the checks, the
// teardown); --load-timeout; a load that fails or is killed; a server killed mid-load.
// Every process a run starts carries a marker in its environment (set in this process's
// before the run, inherited by the server, its engine and the load), so what is left is
// counted among the processes this test started, and only those. Servers run on 127.0.0.1.
#include "xray_sandbox.hpp"

#include "inferlint/util/signals.hpp"

#include <atomic>
#include <cstdlib>
#include <iostream>

namespace xraysig {

using namespace xraytest;

// The processes alive (not zombies) whose environment holds `marker`, this one aside.
std::vector<std::string> marked_processes(const std::string& marker) {
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int pid = std::stoi(name);
        if (pid == ::getpid() || !alive(pid)) continue;
        std::ifstream env(it->path() / "environ", std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
        if (text.find(marker) == std::string::npos) continue;
        std::ifstream cmd(it->path() / "cmdline", std::ios::binary);
        std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
        std::replace(line.begin(), line.end(), '\0', ' ');
        found.push_back(name + ": " + line);
    }
    return found;
}

// Sets the marker for the processes a run starts; counts those left once it is over
// (those already killed get up to 30 s to be gone).
struct Marked {
    std::string value;
    explicit Marked(const std::string& name)
        : value(fmt::format("INFERLINT_TEST_RUN=signals-{}-{}", ::getpid(), name)) {
        ::setenv("INFERLINT_TEST_RUN", value.substr(value.find('=') + 1).c_str(), 1);
    }
    ~Marked() { ::unsetenv("INFERLINT_TEST_RUN"); }
    std::vector<std::string> left() const {
        auto t0 = std::chrono::steady_clock::now();
        auto procs = marked_processes(value);
        while (!procs.empty() && since(t0) < 30.0) {  // a generous ceiling: the loop ends when they are gone
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            procs = marked_processes(value);
        }
        return procs;
    }
};

xray::Timings signal_timings() {
    auto t = fast();
    t.ready_progress_s = 0.1;  // a "still starting" line while the boot is waited for
    t.load_grace_s = 0.3;
    t.stop_grace_s = 0.5;  // the simulator takes seconds over a SIGTERM while it boots or serves: then SIGKILL
    t.server_gone_grace_s = 0.3;
    return t;
}

xray::Outcome run_plain(xray::Plan plan, xray::Callbacks cb, const xray::Machine& machine) {
    auto timings = plan.timings;
    plan = xray::checked(std::move(plan));
    plan.timings = timings;
    return xray::run(plan, cb, machine);
}

enum class Where { gpu, boot, probe, load, checks, teardown };

struct SignalCase {
    Where where;
    const char* name;
    const char* stopped_at;  // results.json's stopped_at
};

}  // namespace xraysig

using namespace xraytest;
using namespace xraysig;
using Catch::Matchers::Contains;

namespace xraysig {

// One signal in the middle of one stage, on one server or (fleet) on two replicas started
// by --serve: the run stops there, says where and why, and leaves no process of its own.
// Returns how many processes were left.
int signal_case(const SignalCase& c, int sig, const char* sig_name, bool fleet) {
    INFO("case: " << c.name << " / " << sig_name << (fleet ? " / fleet" : ""));
    Sandbox sb(fmt::format("sig-{}-{}{}", c.name, sig, fleet ? "-fleet" : ""));
    Marked mark(fmt::format("{}-{}{}", c.name, sig, fleet ? "-fleet" : ""));
    xray::Plan plan;
    plan.out = sb.out();
    plan.timings = signal_timings();
    // The boot is slow where the signal comes during it; the probe's requests take seconds
    // at 1/20 speed.
    const std::string boot_s = c.where == Where::boot ? "30" : "0.05";
    const std::string extra = c.where == Where::probe ? "--sim-time-scale 0.05" : "--sim-time-scale 10";
    std::vector<fs::path> boot_logs;
    if (fleet) {
        for (int i = 0; i < 2; ++i) {
            const int port = free_port();
            plan.replicas.push_back({.serve = serve_cmd(sb, port, extra, boot_s)});
            boot_logs.push_back(sb.out() / fmt::format("127.0.0.1_{}", port) / "boot.log");
        }
    } else {
        plan.serve = serve_cmd(sb, free_port(), extra, boot_s);
        boot_logs.push_back(sb.out() / "boot.log");
    }
    plan.probe = c.where == Where::probe;
    // The load signals xray itself while its own child runs on, deaf to SIGINT (a
    // background job of a script): only the escalation to SIGTERM ends it.
    plan.load = c.where == Where::load ? std::vector<std::string>{"/bin/sh", "-c",
                                                                  fmt::format("sleep 30 & kill -s {} $PPID; wait",
                                                                              std::string(sig_name).substr(3))}
                                       : std::vector<std::string>{"/bin/true"};
    std::atomic<bool> in_stage{false};
    bool sent = false;
    auto send = [&] {
        if (!sent && in_stage) sent = true, ::raise(sig);
    };
    int gpu_reads = 0;
    // The card reads busy before the start (the gate would wait its 2 s) and free after.
    xray::Machine machine{[&]() -> std::vector<long long> {
                              if (c.where == Where::gpu && ++gpu_reads == 2) send();
                              if (c.where == Where::teardown) send();
                              return {c.where == Where::gpu ? 50000LL : 0LL};
                          },
                          [] { return std::vector<int>{}; }};
    std::vector<std::string> lines;
    const auto t_start = std::chrono::steady_clock::now();
    xray::Callbacks cb;
    cb.on_stage = [&](xray::Stage s) {
        const xray::Stage want[] = {xray::Stage::gpu,  xray::Stage::start,  xray::Stage::probe,
                                    xray::Stage::load, xray::Stage::checks, xray::Stage::stop};
        in_stage = s == want[static_cast<int>(c.where)];
        // The checks stage prints nothing of its own: the signal comes as it begins.
        if (c.where == Where::checks) send();
    };
    cb.say = [&](const std::string& l) {
        lines.push_back(l);
        // Mid-boot, once the log names the API server's process: a signal before the
        // simulator has written a line (a loaded machine's slow exec) leaves no pid to
        // check. The environment marker counts every process either way.
        if (c.where == Where::boot && l.starts_with("   still starting") &&
            (!server_pids(boot_logs.front()).empty() || since(t_start) > 2))
            send();
    };
    std::thread late;
    if (c.where == Where::probe) {
        // The probe's first request is on its way for seconds: the signal comes meanwhile.
        late = std::thread([&] {
            auto t0 = std::chrono::steady_clock::now();
            while (!in_stage && since(t0) < 60) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            if (in_stage) ::kill(::getpid(), sig);
        });
    }
    const auto t_case = std::chrono::steady_clock::now();
    auto o = run_plain(plan, cb, machine);
    if (late.joinable()) late.join();
    INFO("took " << since(t_case) << " s");
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    INFO(text);
    const auto left = mark.left();
    for (const auto& p : left) UNSCOPED_INFO("left: " << p);
    CHECK(left.empty());
    CHECK(o.interrupted_by == sig);
    CHECK(o.problem == fmt::format("interrupted ({})", sig_name));
    CHECK(xray::exit_code(o, Strict::no) == 1);
    Json results = Json::parse(util::read_file(sb.out() / "results.json"));
    CHECK(results["completed"] == false);
    CHECK(results["interrupted"] == true);
    CHECK(results["signal"] == sig_name);
    CHECK(results["stopped_at"] == c.stopped_at);
    CHECK(results["exit_status"] == 1);
    if (c.where != Where::gpu) {
        // The teardown ran: its T2 said after the stop, and the run's T2 is there.
        auto stop_line = std::find(lines.begin(), lines.end(), fleet ? "== stop the 2 servers" : "== stop the server");
        REQUIRE(stop_line != lines.end());
        CHECK(std::any_of(stop_line, lines.end(), [](const std::string& l) { return l.starts_with("[ T2]"); }));
        CHECK(std::any_of(o.results.begin(), o.results.end(),
                          [](const CheckResult& r) { return r.tripwire == TripwireId::T2; }));
        for (const auto& log : boot_logs) require_all_gone(log);
    } else {
        for (const auto& log : boot_logs) CHECK_FALSE(fs::exists(log));  // nothing was started
    }
    if (c.where == Where::load) {
        CHECK(o.load_signal != 0);
        CHECK(results["load_signal"].is_string());
    }
    return static_cast<int>(left.size());
}

// Every stage x SIGINT, SIGTERM, SIGHUP, on one server or a fleet.
void every_stage_and_signal(bool fleet) {
    // A signal that lands after a run has restored its handlers is caught here, not fatal.
    util::SignalGuard outer({SIGINT, SIGTERM, SIGHUP}, util::BrokenPipe::keep);
    const std::vector<SignalCase> cases = {
        {Where::gpu, "gpu", "gpu"},    {Where::boot, "boot", "start"},      {Where::probe, "probe", "probe"},
        {Where::load, "load", "load"}, {Where::checks, "checks", "checks"}, {Where::teardown, "teardown", "stop"},
    };
    const std::pair<int, const char*> signals[] = {{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}};
    int tried = 0, left_total = 0;
    const auto t_all = std::chrono::steady_clock::now();
    for (const auto& c : cases)
        for (const auto& [sig, sig_name] : signals) {
            left_total += signal_case(c, sig, sig_name, fleet);
            ++tried;
        }
    CHECK(tried == 18);
    CHECK(left_total == 0);
    std::cout << fmt::format("signals{}: {} case(s) here, {} process(es) left, {:.1f} s\n", fleet ? " (fleet)" : "",
                             tried, left_total, since(t_all));
}

}  // namespace xraysig

TEST_CASE("xray: SIGINT, SIGTERM and SIGHUP in the middle of every stage leave no process and say where",
          "[xray][sim][signals]") {
    every_stage_and_signal(false);
}

// The fleet's matrix runs in the plain build only ([plain], tests/shard.sh): one server is
// a fleet of one, so the sanitized build runs the same stages and stop path in the matrix
// above, and the fleet's own stop in "xray on a fleet: SIGINT during the load ...".
TEST_CASE("xray on a fleet: SIGINT, SIGTERM and SIGHUP in the middle of every stage stop every replica's server",
          "[xray][sim][signals][fleet][plain]") {
    every_stage_and_signal(true);
}

TEST_CASE("xray --load-timeout: a load that hangs has its process group stopped, and the run says so",
          "[xray][sim][signals]") {
    Sandbox sb("load-timeout");
    Marked mark("load-timeout");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.timings = signal_timings();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 10");
    plan.probe = false;
    plan.load_timeout_s = 0.5;
    // A leader deaf to SIGTERM, its child a background job: only SIGKILL, to the group, ends both.
    plan.load = {"/bin/sh", "-c", "trap '' TERM; sleep 30 & echo hanging; wait; wait"};
    std::vector<std::string> lines;
    xray::Callbacks cb;
    cb.say = [&](const std::string& l) { lines.push_back(l); };
    auto o = run_plain(plan, cb, quiet_machine());
    const auto left = mark.left();
    for (const auto& p : left) UNSCOPED_INFO("left: " << p);
    CHECK(left.empty());
    CHECK(o.problem == "the load command ran past --load-timeout 0.5 s; its process group was stopped");
    CHECK(std::find(lines.begin(), lines.end(), o.problem) != lines.end());  // said, in one line
    CHECK(o.load_signal == SIGKILL);
    CHECK(o.load_exit == 128 + SIGKILL);
    CHECK(xray::exit_code(o, Strict::no) == 1);
    Json results = Json::parse(util::read_file(sb.out() / "results.json"));
    CHECK(results["completed"] == false);
    CHECK(results["interrupted"] == false);
    CHECK(results["stopped_at"] == "load");
    CHECK(results["load_signal"] == "SIGKILL");
    CHECK(results["plan"]["load_timeout_s"] == 0.5);
    REQUIRE(results["load_stopped"].is_object());
    CHECK(results["load_stopped"]["reason"] == "load_timeout");
    CHECK(results["load_stopped"]["signals"] == Json::array({"SIGTERM", "SIGKILL"}));
    CHECK(results["load_stopped"]["after_s"].get<double>() >= 0.5);
    CHECK_THAT(util::read_file(sb.out() / "load.log"), Contains("hanging"));
    // The teardown ran (its T2 said after the stop), and the run was judged from its folder.
    auto stop_line = std::find(lines.begin(), lines.end(), "== stop the server");
    REQUIRE(stop_line != lines.end());
    CHECK(std::any_of(stop_line, lines.end(), [](const std::string& l) { return l.starts_with("[ T2]"); }));
    CHECK(std::any_of(o.results.begin(), o.results.end(),
                      [](const CheckResult& r) { return r.tripwire == TripwireId::T2; }));
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray: a load killed by a signal is recorded as killed, with the shell's status", "[xray][sim][signals]") {
    Sandbox sb("load-killed");
    Marked mark("load-killed");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.timings = signal_timings();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 10");
    plan.probe = false;
    plan.load = {"/bin/sh", "-c", "kill -s KILL $$"};
    std::vector<std::string> lines;
    xray::Callbacks cb;
    cb.say = [&](const std::string& l) { lines.push_back(l); };
    auto o = run_plain(plan, cb, quiet_machine());
    CHECK(mark.left().empty());
    CHECK(o.load_exit == 128 + SIGKILL);
    CHECK(o.load_signal == SIGKILL);
    CHECK(std::find(lines.begin(), lines.end(), "the load command was killed by SIGKILL") != lines.end());
    CHECK(xray::exit_code(o, Strict::no) == 1);
    Json results = Json::parse(util::read_file(sb.out() / "results.json"));
    CHECK(results["completed"] == false);
    CHECK(results["load_exit"] == 137);
    CHECK(results["load_signal"] == "SIGKILL");
    CHECK(results["load_stopped"].is_null());  // it was not xray that stopped it
    CHECK(results["stopped_at"].is_null());    // every stage ran
    // a load that exits 3 by itself: no signal
    Sandbox sb3("load-exit3");
    plan.out = sb3.out();
    plan.serve = serve_cmd(sb3, free_port(), "--sim-time-scale 10");
    plan.load = {"/bin/sh", "-c", "exit 3"};
    auto o3 = run_plain(plan, cb, quiet_machine());
    CHECK(o3.load_exit == 3);
    CHECK(o3.load_signal == 0);
    Json r3 = Json::parse(util::read_file(sb3.out() / "results.json"));
    CHECK(r3["load_exit"] == 3);
    CHECK(r3["load_signal"].is_null());
    CHECK(r3["exit_status"] == 1);
    CHECK(mark.left().empty());
}

TEST_CASE("xray: the simulator killed mid-load is said in one line, the load is stopped, nothing is left",
          "[xray][sim][signals]") {
    Sandbox sb("server-killed");
    Marked mark("server-killed");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.timings = signal_timings();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 10");
    plan.probe = false;
    plan.load = {"/bin/sleep", "600"};  // a load that would not notice: waiting for it would meet the test's ceiling
    std::thread killer;
    xray::Callbacks cb;
    std::vector<std::string> lines;
    cb.say = [&](const std::string& l) { lines.push_back(l); };
    cb.on_stage = [&](xray::Stage s) {
        if (s != xray::Stage::load) return;
        // The server's processes, as its log names them (this test started them): killed outright.
        killer = std::thread([log = sb.out() / "boot.log", started = sb.out() / "load.log"] {
            // Once the load runs (its output file is made as it starts), not before the first snapshot.
            const auto t0 = std::chrono::steady_clock::now();
            while (!fs::exists(started) && since(t0) < 60) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            for (int pid : server_pids(log)) ::kill(pid, SIGKILL);
        });
    };
    auto o = run_plain(plan, cb, quiet_machine());
    if (killer.joinable()) killer.join();
    CHECK(mark.left().empty());
    CHECK(o.problem == "the server stopped answering during the load: it exited with status 137");
    CHECK(std::find(lines.begin(), lines.end(), o.problem) != lines.end());
    CHECK(xray::exit_code(o, Strict::no) == 1);
    Json results = Json::parse(util::read_file(sb.out() / "results.json"));
    CHECK(results["completed"] == false);
    CHECK(results["problem"] == o.problem);
    CHECK(results["stopped_at"] == "load");
    REQUIRE(results["load_stopped"].is_object());
    CHECK(results["load_stopped"]["reason"] == "server_exited");
    require_all_gone(sb.out() / "boot.log");
}
