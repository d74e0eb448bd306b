// xray end to end on the simulator: a whole run with the simulator's ground truth as the
// answer key, and every way a run can be cut short. Every server runs on 127.0.0.1 at a
// free port; only processes these tests start are ever signalled.
#include "support.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/run/xray.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/http.hpp"
#include "inferlint/util/process.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <regex>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

const std::string kModel = "sim/Qwen3-8B";

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A port nothing listens on now.
int free_port() {
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
bool alive(int pid) {
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
std::string serve_cmd(const Sandbox& sb, int port, const std::string& extra, const std::string& boot_s = "0.05") {
    return fmt::format("{} serve {} --port {} --sim-boot-s {} --sim-log-interval-s 0.5 {}",
                       util::shell_join({sb.vllm()}), kModel, port, boot_s, extra);
}

std::vector<std::string> bench_cmd(const Sandbox& sb, int port, int prompts, int concurrency, int in_len, int out_len,
                                   const std::string& model = kModel) {
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
xray::Machine quiet_machine() {
    return {[] { return std::vector<long long>{0}; }, [] { return std::vector<int>{}; }};
}

xray::Timings fast() {
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

Ran run_xray(xray::Plan plan, std::function<void(xray::Stage)> on_stage = nullptr) {
    plan.timings = fast();
    plan = xray::checked(std::move(plan));
    Ran r;
    xray::Callbacks cb;
    cb.say = [&r](const std::string& l) { r.lines.push_back(l); };
    cb.on_stage = std::move(on_stage);
    auto t0 = std::chrono::steady_clock::now();
    r.outcome = xray::run(plan, cb, quiet_machine());
    INFO(r.text());
    CHECK(since(t0) < 50);
    r.exit = xray::exit_code(r.outcome, plan.strict);
    r.results = Json::parse(util::read_file(plan.out / "results.json"));
    return r;
}

// The simulator's processes named in its log: the API server and its EngineCore.
std::vector<int> server_pids(const fs::path& boot_log) {
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

void require_all_gone(const fs::path& boot_log) {
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

}  // namespace

TEST_CASE("xray on the simulator: a run set up to preempt fails T1 and T8, matching the ground truth",
          "[xray][sim]") {
    Sandbox sb("full");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    // 65 blocks of 16 (64 usable) for 16 requests of 64 + 200 tokens: the pool, not
    // --max-num-seqs, caps the running requests, and requests are preempted.
    plan.serve = serve_cmd(sb, port,
                           "--num-gpu-blocks 65 --block-size 16 --max-model-len 1024 --max-num-seqs 16 "
                           "--sim-time-scale 4");
    plan.load = bench_cmd(sb, port, 16, 16, 64, 200);
    plan.interval_s = 0.01;
    Json truth, truth_before;  // the simulator's own account, before the load and after it
    auto r = run_xray(plan, [&](xray::Stage s) {
        const std::string state = fmt::format("http://127.0.0.1:{}/sim/state", port);
        if (s == xray::Stage::load) truth_before = Json::parse(util::get_text(state));
        if (s == xray::Stage::checks) truth = Json::parse(util::get_text(state));
    });
    INFO(r.text());
    REQUIRE(truth.is_object());
    REQUIRE(truth_before.is_object());
    const fs::path out = sb.out();
    for (const char* f : {"boot.log", "before.snapshot.json", "after.snapshot.json", "run.series.jsonl", "load.log",
                          "bench.json", "report.html", "results.json"})
        CHECK(fs::is_regular_file(out / f));
    CHECK(r.outcome.problem.empty());
    CHECK(r.outcome.load_exit == 0);
    CHECK(r.outcome.completed);

    REQUIRE(r.find("T1"));
    CHECK(r.find("T1")->status == Status::fail);
    CHECK(truth["preemptions"].get<int>() > 0);
    CHECK(truth_before["preemptions"] == 0);  // the probe's nine requests fit
    CHECK(r.find("T1")->evidence["preemptions"] == truth["preemptions"].get<double>());
    REQUIRE(r.find("T8"));
    CHECK(r.find("T8")->status == Status::fail);
    CHECK(r.find("T8")->evidence["requested"] == 16);
    // The recording samples every 10 ms and can miss a peak that lasted less (under a
    // sanitizer it does): the evidence is the recording's own peak, never above the truth.
    const double peak = r.find("T8")->evidence["peak_running"].get<double>();
    CHECK(peak == read_series(out / "run.series.jsonl").peak_running().value());
    CHECK(peak <= truth["peak_running"].get<double>());
    CHECK(peak >= 4);
    CHECK(truth["peak_running"].get<int>() < 16);
    REQUIRE(r.find("T14"));
    CHECK(r.find("T14")->status == Status::pass);
    CHECK(r.find("T14")->evidence["inferred_usable_blocks"] == truth["usable_blocks"]);
    CHECK(truth["usable_blocks"] == 64);
    REQUIRE(r.find("T10"));
    const double generated = truth["generation_tokens"].get<double>() - truth_before["generation_tokens"].get<double>();
    CHECK(r.find("T10")->evidence["tokens"] == generated);
    CHECK(generated == 17 * 200);  // the untimed test request's included
    // T15: the client's 16 and its test request are the server's 17.
    REQUIRE(r.find("T15"));
    CHECK(r.find("T15")->status == Status::pass);
    CHECK(r.find("T15")->evidence["extra_requests"] == 1);
    CHECK(r.find("T15")->evidence["expected_extra_requests"] == 1);
    REQUIRE(r.find("T7"));
    REQUIRE(r.find("T12"));
    REQUIRE(r.find("T2"));
    CHECK(r.find("T7")->status == Status::pass);
    CHECK(r.find("T12")->status == Status::pass);
    CHECK(r.find("T2")->status == Status::pass);  // the stop's: nothing of the server left
    CHECK(r.exit == 1);

    CHECK_THAT(r.text(), Contains("== engine: vLLM (from the --serve command)"));
    CHECK_THAT(r.text(), Contains("== load: " + util::shell_join(r.outcome.load_argv)));
    CHECK_THAT(r.text(), Contains("Serving Benchmark Result"));  // the load's own output, shown
    CHECK_THAT(r.text(), Contains("== stop the server"));
    CHECK_THAT(util::read_file(out / "load.log"), Contains("Initial test run completed."));
    CHECK_THAT(util::read_file(out / "report.html"), Contains("T15"));
    CHECK(r.results["completed"] == true);
    CHECK(r.results["exit_status"] == 1);
    CHECK(r.results["versions"]["engine"] == "vllm");
    CHECK(r.results["versions"]["server"] == "0.30.0");
    CHECK(r.results["plan"]["serve"] == *plan.serve);
    CHECK(r.results["results"].size() == r.outcome.results.size());
    require_all_gone(out / "boot.log");
}

TEST_CASE("xray on the simulator: a configuration with room for the load passes", "[xray][sim]") {
    Sandbox sb("room");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--num-gpu-blocks 401 --max-model-len 2048 --sim-time-scale 2");
    plan.load = bench_cmd(sb, port, 24, 8, 100, 96);
    plan.interval_s = 0.01;
    auto r = run_xray(plan);
    INFO(r.text());
    for (const auto& res : r.outcome.results) {
        INFO(res.tripwire << ": " << res.message);
        CHECK(res.status != Status::fail);
        CHECK(res.status != Status::unknown);
    }
    REQUIRE(r.find("T8"));
    REQUIRE(r.find("T15"));
    CHECK(r.find("T8")->evidence["peak_running"] == 8);
    CHECK(r.find("T15")->status == Status::pass);
    CHECK(r.exit == 0);
    CHECK(r.results["exit_status"] == 0);
    CHECK(r.results["completed"] == true);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: other traffic during the load fails T15", "[xray][sim]") {
    Sandbox sb("traffic");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 2");
    plan.load = bench_cmd(sb, port, 8, 4, 16, 64);
    plan.probe = false;
    std::thread other;
    int answered = 0;
    auto r = run_xray(plan, [&](xray::Stage s) {
        if (s != xray::Stage::load) return;
        // A second client, once the benchmark runs several requests at once (its test
        // request runs alone): three requests of its own.
        other = std::thread([&] {
            const std::string base = fmt::format("http://127.0.0.1:{}", port);
            try {
                auto t0 = std::chrono::steady_clock::now();
                while (since(t0) < 20 && Json::parse(util::get_text(base + "/sim/state"))["running"] < 2)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                for (int i = 0; i < 3; ++i)
                    answered += util::http_post_json(base + "/v1/completions",
                                                     R"({"model": "sim/Qwen3-8B", "prompt": "a b c", "max_tokens": 4})")
                                    .status == 200;
            } catch (const std::exception&) {
            }
        });
    });
    if (other.joinable()) other.join();
    INFO(r.text());
    REQUIRE(answered == 3);
    REQUIRE(r.find("T15"));
    CHECK(r.find("T15")->status == Status::fail);
    CHECK_THAT(r.find("T15")->message, Contains("the server finished 3 more requests than the load tool sent"));
    CHECK(r.exit == 1);
}

TEST_CASE("xray on the simulator: a server that fails during start", "[xray][sim]") {
    Sandbox sb("bootfail");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-fail-boot oom");
    plan.load = {"true"};
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.problem == "the server exited with code 1 before it was ready");
    REQUIRE(r.find("T12"));
    CHECK(r.find("T12")->status == Status::fail);
    CHECK(r.find("T12")->evidence["kind"] == "out_of_memory");
    CHECK_FALSE(r.outcome.load_exit);  // the load never ran
    CHECK(r.outcome.report);            // the boot log alone still makes a report
    CHECK(fs::is_regular_file(sb.out() / "report.html"));
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    CHECK(r.results["problem"] == r.outcome.problem);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a server that crashes on its first request fails T7", "[xray][sim]") {
    Sandbox sb("crash");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-crash-on-first-request --sim-dead-linger-s 0.2 --sim-time-scale 10");
    plan.load = bench_cmd(sb, port, 4, 2, 8, 8);
    auto r = run_xray(plan);
    INFO(r.text());
    REQUIRE(r.find("T7"));
    CHECK(r.find("T7")->status == Status::fail);
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a server that dies mid-load", "[xray][sim]") {
    Sandbox sb("dies");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-die-after-s 1.0 --sim-time-scale 1");
    plan.load = bench_cmd(sb, port, 64, 4, 16, 400);
    plan.probe = false;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_THAT(r.outcome.problem, Contains("the server stopped answering during the load"));
    CHECK(fs::is_regular_file(sb.out() / "run.series.jsonl"));
    CHECK(fs::is_regular_file(sb.out() / "before.snapshot.json"));
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a load command that fails still stops the server", "[xray][sim]") {
    Sandbox sb("loadfail");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 10");
    plan.load = {"/bin/sh", "-c", "echo the load broke; exit 3"};
    plan.probe = false;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.load_exit == 3);
    CHECK_THAT(r.text(), Contains("the load broke"));
    CHECK_THAT(r.text(), Contains("the load command exited with code 3"));
    CHECK_THAT(util::read_file(sb.out() / "load.log"), Contains("the load broke"));
    REQUIRE(r.find("T2"));
    CHECK(r.find("T2")->status == Status::pass);
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    CHECK(r.results["load_exit"] == 3);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: quotes and spaces in --serve reach the server as one argument each",
          "[xray][sim]") {
    Sandbox sb("quotes");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    // The program's folder has a space; so has the model's served name.
    plan.serve = serve_cmd(sb, port, "--served-model-name 'my model' --sim-time-scale 20");
    plan.load = bench_cmd(sb, port, 2, 2, 8, 8, "my model");
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_THAT(util::read_file(sb.out() / "boot.log"), Contains("'served_model_name': ['my model']"));
    REQUIRE(r.find("T7"));
    CHECK(r.find("T7")->status == Status::pass);
    CHECK(r.find("T7")->evidence["model"] == "my model");
    CHECK(r.outcome.load_exit == 0);
    require_all_gone(sb.out() / "boot.log");
}

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
    auto missing = testsupport::run_cli({"xray", "-o", sb.out().string(), "--url", "http://127.0.0.1:9", "--",
                                         "no-such-load-xyz", "--n", "1"});
    CHECK(missing.rc == 2);
    CHECK(missing.err == "inferlint: the load command no-such-load-xyz: not found\n");
    auto not_server = testsupport::run_cli(
        {"xray", "-o", sb.out().string(), "--serve", "python3 -m http.server 8000", "--", "true"});
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
    std::vector<std::string> argv = {INFERLINT_BINARY, "xray", "-o", sb.out().string(), "--no-probe", "--serve",
                                     serve_cmd(sb, port, "--sim-time-scale 10"), "--", "/bin/sleep", "30"};
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
        loading = util::read_file(stdout_path, util::AllowEmpty::yes).find("== load: /bin/sleep 30") !=
                  std::string::npos;
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
