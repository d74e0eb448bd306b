// xray cut short and attached: SIGINT in each stage, --url to a server it did not start,
// and the command line's bad input. Every server runs on 127.0.0.1 at a free port; only
// processes these tests start are ever signalled.
#include "xray_sandbox.hpp"

#include <fcntl.h>

using namespace xraytest;
using Catch::Matchers::Contains;

TEST_CASE("xray on the simulator: SIGINT in any stage stops the server and says the run did not complete",
          "[xray][sim]") {
    struct Case {
        const char* name;
        xray::Stage stage;
        double after_s;  // < 0: at once, from the stage's start
        std::string serve_extra;
        std::string boot_s;
        bool probe;
    };
    const std::vector<Case> cases = {
        {"ready", xray::Stage::start, 0.4, "", "30", false},
        // 16 tokens at 1/20 speed: the probe's first request takes seconds.
        {"probe", xray::Stage::probe, 0.3, "--sim-time-scale 0.05", "0.002", true},
        {"load", xray::Stage::load, 0.5, "--sim-time-scale 10", "0.05", false},
        {"checks", xray::Stage::checks, -1, "--sim-time-scale 10", "0.05", false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION("during " << c.name) {
            Sandbox sb(std::string("sigint-") + c.name);
            const int port = free_port();
            xray::Plan plan;
            plan.out = sb.out();
            plan.serve = serve_cmd(sb, port, c.serve_extra, c.boot_s);
            plan.load = c.stage == xray::Stage::load ? std::vector<std::string>{"/bin/sleep", "30"}
                                                     : bench_cmd(sb, port, 2, 2, 8, 8);
            plan.probe = c.probe;
            LateSignal late;
            auto r = run_xray(plan, [&](xray::Stage s) {
                if (s != c.stage) return;
                if (c.after_s < 0) {
                    ::raise(SIGINT);
                } else {
                    late.arm(c.after_s);
                }
            });
            INFO(r.text());
            CHECK(r.outcome.interrupted_by == SIGINT);
            CHECK(r.outcome.problem == "interrupted (SIGINT)");
            CHECK(r.exit == 1);
            CHECK(r.results["completed"] == false);
            CHECK(r.results["interrupted"] == true);
            CHECK(r.find("T2"));  // the stop ran
            CHECK_THAT(r.text(), Contains("== stop the server"));
            CHECK(fs::is_regular_file(sb.out() / "boot.log"));
            if (c.stage == xray::Stage::load || c.stage == xray::Stage::checks) {
                CHECK(fs::is_regular_file(sb.out() / "before.snapshot.json"));
                CHECK(fs::is_regular_file(sb.out() / "after.snapshot.json"));
                CHECK(fs::is_regular_file(sb.out() / "run.series.jsonl"));
                CHECK(fs::is_regular_file(sb.out() / "load.log"));
            }
            if (c.stage == xray::Stage::load) CHECK(r.outcome.load_exit == 128 + SIGINT);
            require_all_gone(sb.out() / "boot.log");
        }
    }
}

namespace {

bool answers(const std::string& url) {
    try {
        return util::http_get(url + "/health").status == 200;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

TEST_CASE("xray --url: attached to a running server, it starts and stops nothing", "[xray][sim]") {
    Sandbox sb("attach");
    const int port = free_port();
    auto argv = shell_split(serve_cmd(sb, port, "--sim-time-scale 10")).value();
    auto child = util::spawn_process(argv, {.group = util::ProcessGroup::new_session,
                                            .output = util::OutputTo::file,
                                            .output_file = sb.dir / "own-boot.log"});
    REQUIRE(child.started());
    // Stopped however the test ends.
    struct KillOnExit {
        int pid;
        ~KillOnExit() {
            if (!util::poll_exit(pid)) ::killpg(pid, SIGKILL), util::wait_exit(pid, 5);
        }
    } guard{child.pid};
    const std::string url = fmt::format("http://127.0.0.1:{}", port);
    auto t0 = std::chrono::steady_clock::now();
    while (since(t0) < 20 && !answers(url)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(answers(url));

    xray::Plan plan;
    plan.out = sb.out();
    plan.url = url;
    plan.boot_log = sb.dir / "own-boot.log";
    plan.load = bench_cmd(sb, port, 4, 4, 8, 16);
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_FALSE(r.find("T2"));
    CHECK_THAT(r.text(), !Contains("== stop the server"));
    CHECK_THAT(r.text(), Contains("== engine: vLLM (from its metrics)"));
    REQUIRE(r.find("T12"));
    REQUIRE(r.find("T15"));
    CHECK(r.find("T12")->status == Status::pass);  // the boot log given was checked
    CHECK(r.find("T15")->status == Status::pass);
    CHECK(r.outcome.completed);
    // the log it was checked on is kept in the run folder, so `report DIR` finds it again
    // (as it was then: the server's own log has grown since)
    const std::string kept = util::read_file(sb.out() / "boot.log");
    CHECK_THAT(kept, Contains("Application startup complete"));
    CHECK(util::read_file(sb.dir / "own-boot.log").starts_with(kept));
    CHECK(r.results["files"][0] == "boot.log");
    CHECK(answers(url));  // still serving
    CHECK_FALSE(util::poll_exit(child.pid));
    ::killpg(child.pid, SIGTERM);
    CHECK(util::wait_exit(child.pid, 10) == 0);
}

TEST_CASE("xray --url: no server there is a problem, not a crash", "[xray]") {
    Sandbox sb("noserver");
    xray::Plan plan;
    plan.out = sb.out();
    plan.url = fmt::format("http://127.0.0.1:{}", free_port());
    plan.load = {"true"};
    auto r = run_xray(plan);
    CHECK_THAT(r.outcome.problem, Contains("no server answers at http://127.0.0.1:"));
    CHECK(r.exit == 1);
    CHECK_FALSE(r.outcome.report);
    CHECK(r.results["results"].empty());
    CHECK(r.results["completed"] == false);
}

TEST_CASE("inferlint xray: bad input is one line and exit 2", "[xray][cli]") {
    Sandbox sb("cli-bad");
    auto none = testsupport::run_cli({"xray", "-o", sb.out().string()});
    CHECK(none.rc == 2);
    CHECK_THAT(none.err, Contains("xray needs the load command after --"));
    auto missing = testsupport::run_cli(
        {"xray", "-o", sb.out().string(), "--url", "http://127.0.0.1:9", "--", "no-such-load-xyz", "--n", "1"});
    CHECK(missing.rc == 2);
    CHECK(missing.err == "inferlint: the load command no-such-load-xyz: not found\n");
    auto not_server =
        testsupport::run_cli({"xray", "-o", sb.out().string(), "--serve", "python3 -m http.server 8000", "--", "true"});
    CHECK(not_server.rc == 2);
    CHECK_THAT(not_server.err, Contains("not an inference server command"));
    CHECK_FALSE(fs::exists(sb.out() / "boot.log"));
}

TEST_CASE("inferlint xray: SIGINT to the command during the load", "[xray][cli][sim]") {
    Sandbox sb("cli-sigint");
    const int port = free_port();
    // No GPU here: an nvidia-smi that reads an empty card, and an empty process table for
    // "other servers", so only this run's own processes count.
    util::write_file(sb.dir / "nvidia-smi", "#!/bin/sh\necho 0\n");
    fs::permissions(sb.dir / "nvidia-smi", fs::perms::owner_all);
    fs::create_directories(sb.dir / "proc");
    const fs::path stdout_path = sb.dir / "stdout.txt";
    std::vector<std::string> argv = {INFERLINT_BINARY,
                                     "xray",
                                     "-o",
                                     sb.out().string(),
                                     "--no-probe",
                                     "--serve",
                                     serve_cmd(sb, port, "--sim-time-scale 10"),
                                     "--",
                                     "/bin/sleep",
                                     "30"};
    std::vector<std::string> env = {"INFERLINT_NVIDIA_SMI=" + (sb.dir / "nvidia-smi").string(),
                                    "INFERLINT_PROC_ROOT=" + (sb.dir / "proc").string()};
    for (char** e = environ; *e; ++e)
        if (!std::string_view(*e).starts_with("INFERLINT_")) env.emplace_back(*e);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    int fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    int pid = ::fork();
    if (pid == 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execve(INFERLINT_BINARY, cargv.data(), cenv.data());
        _exit(127);
    }
    ::close(fd);
    auto t0 = std::chrono::steady_clock::now();
    bool loading = false;
    while (since(t0) < 30 && !loading) {
        loading =
            util::read_file(stdout_path, util::AllowEmpty::yes).find("== load: /bin/sleep 30") != std::string::npos;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(loading);
    ::kill(pid, SIGINT);
    auto rc = util::wait_exit(pid, 40);
    if (!rc) ::kill(pid, SIGKILL), util::wait_exit(pid, 5);
    std::string out = util::read_file(stdout_path, util::AllowEmpty::yes);
    INFO(out);
    CHECK(rc == 1);
    CHECK_THAT(out, Contains("== stop the server"));
    CHECK_THAT(out, Contains("interrupted (SIGINT)"));
    CHECK_THAT(out, Contains("files:  " + sb.out().string()));
    Json results = Json::parse(util::read_file(sb.out() / "results.json"));
    CHECK(results["completed"] == false);
    CHECK(results["interrupted"] == true);
    CHECK(results["exit_status"] == 1);
    require_all_gone(sb.out() / "boot.log");
}
