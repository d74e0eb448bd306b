// xray on several servers: simulated replicas this test starts (through xray's --serve, or
// itself), each recorded into a folder of its own, checked per replica and as a fleet.
#include "xray_sandbox.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/signals.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

using namespace xraytest;
using Catch::Matchers::Contains;

namespace {

// The load: one benchmark client per replica, side by side, as a load balancer would spread it.
std::vector<std::string> spread_load(const Sandbox& sb, const std::vector<int>& ports, int prompts, int concurrency,
                                     const std::string& before_wait = "") {
    std::string script;
    for (int p : ports) script += util::shell_join(bench_cmd(sb, p, prompts, concurrency, 100, 96)) + " >/dev/null & ";
    script += before_wait + "wait";
    return {"sh", "-c", script};
}

// A fleet plan: one simulated server started per port, with room for the load.
xray::Plan served_by(const Sandbox& sb, const std::vector<int>& ports) {
    xray::Plan plan;
    plan.out = sb.out();
    for (int p : ports)
        plan.replicas.push_back(
            {.serve = serve_cmd(sb, p, "--num-gpu-blocks 401 --max-model-len 2048 --sim-time-scale 2")});
    return plan;
}

const CheckResult* find_in(const std::vector<CheckResult>& rs, TripwireId t) {
    for (const auto& r : rs)
        if (r.tripwire == t) return &r;
    return nullptr;
}

struct FakeServer {
    httplib::Server svr;
    int port = 0;
    std::thread th;
    explicit FakeServer(std::string metrics) {
        svr.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.set_content("", "text/plain"); });
        svr.Get("/metrics", [metrics](const httplib::Request&, httplib::Response& res) {
            res.set_content(metrics, "text/plain; version=0.0.4");
        });
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
    ~FakeServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

}  // namespace

TEST_CASE("xray on two replicas started by --serve: a folder each, verdicts each, and the fleet's T8 on the sum",
          "[xray][sim][fleet]") {
    Sandbox sb("fleet");
    const std::vector<int> ports{free_port(), free_port()};
    REQUIRE(ports[0] != ports[1]);
    xray::Plan plan = served_by(sb, ports);
    plan.load = spread_load(sb, ports, 16, 4);
    plan.requested = 8;  // four on each replica
    plan.interval_s = 0.01;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.completed);
    CHECK(r.outcome.problem.empty());
    REQUIRE(r.outcome.replicas.size() == 2);

    std::vector<Series> recorded;
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& rep = r.outcome.replicas[i];
        CHECK(rep.name == fmt::format("127.0.0.1:{}", ports[i]));
        CHECK(rep.folder == fmt::format("127.0.0.1_{}", ports[i]));
        const fs::path dir = plan.out / rep.folder;
        // Each folder is an ordinary run folder, as `report DIR` finds its files.
        auto files = run::find_run_files(dir);
        CHECK(files.boot_log == dir / "boot.log");
        CHECK(files.before == dir / "before.snapshot.json");
        CHECK(files.after == dir / "after.snapshot.json");
        REQUIRE(files.series == dir / "run.series.jsonl");
        recorded.push_back(read_series(*files.series));
        CHECK(recorded.back().samples.size() > 20);
        // Its own verdicts: its boot log's, its probe's, its load's.
        for (TripwireId t : {TripwireId::T12, TripwireId::T7, TripwireId::T1, TripwireId::T10}) {
            const CheckResult* x = find_in(rep.results, t);
            REQUIRE(x);
            INFO(rep.name << " " << code(t) << ": " << x->message);
            CHECK(x->status == Status::pass);
        }
        // T8 is the fleet's: a replica's share of the requested concurrency is not known.
        const CheckResult* t8 = find_in(rep.results, TripwireId::T8);
        CHECK((t8 == nullptr || t8->status == Status::not_applicable));
        require_all_gone(dir / "boot.log");
    }

    // The fleet's T8 holds 8 against the replicas' running requests summed at each tick:
    // four on each at once, where either alone never ran more than its client's four.
    const CheckResult* t8 = r.find("T8");
    REQUIRE(t8);
    CHECK(t8->status == Status::pass);
    CHECK(t8->evidence["sampling_interval_s"] == 0.01);
    CHECK(t8->evidence["peak_is_lower_bound"] == true);
    CHECK(t8->evidence["peak_running"] == 8);
    for (const auto& s : recorded) {
        CHECK(*s.peak_running() == 4);
        for (const auto& x : s.samples) CHECK(x.running.value_or(0) <= 4);
    }

    // The fleet's T7 and T12 come from its replicas; its T2 is the card's after the last stop.
    REQUIRE(r.find("T7"));
    CHECK(r.find("T7")->status == Status::pass);
    CHECK_THAT(r.find("T7")->message, Contains("all 2 replicas pass"));
    REQUIRE(r.find("T2"));
    CHECK(r.find("T2")->status == Status::pass);

    // results.json: the fleet's verdicts, each replica's, the plan's replicas, every file.
    CHECK(r.results["completed"] == true);
    REQUIRE(r.results["replicas"].size() == 2);
    CHECK(r.results["plan"]["replicas"][1]["url"] == fmt::format("http://127.0.0.1:{}", ports[1]));
    CHECK(r.results["replicas"][0]["folder"] == fmt::format("127.0.0.1_{}", ports[0]));
    const Json files = r.results["files"];
    CHECK(std::find(files.begin(), files.end(), fmt::format("127.0.0.1_{}/run.series.jsonl", ports[1])) != files.end());
    CHECK(std::find(files.begin(), files.end(), "load.log") != files.end());
    // The page: one file, a row and a chart per replica.
    const std::string page = util::read_file(plan.out / "report.html");
    for (int p : ports) CHECK_THAT(page, Contains(fmt::format("127.0.0.1:{}", p)));
    CHECK_THAT(page, Contains("Fleet of 2 replicas"));

    // `report` on one replica's folder checks it again; on the fleet's folder it gives the
    // verdicts xray gave, the fleet's and each replica's, in the same order, with the same
    // words: both judge the folders by one path (run::load_fleet_run, check_fleet).
    REQUIRE(run::fleet_replica_folders(plan.out).size() == 2);
    auto one = testsupport::run_cli(
        {"report", (plan.out / r.outcome.replicas[0].folder).string(), "-o", (sb.dir / "one.html").string()});
    CHECK(one.rc == 0);
    CHECK_THAT(one.out, Contains("[ T1] PASS"));
    auto whole = testsupport::run_cli({"report", plan.out.string(), "-o", (sb.dir / "whole.html").string(), "--json"});
    INFO(whole.err);
    REQUIRE(whole.rc == 0);
    const Json again = Json::parse(whole.out);
    auto same = [](const Json& got, const std::vector<CheckResult>& want) {
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            CHECK(got[i]["tripwire"] == std::string(code(want[i].tripwire)));
            CHECK(got[i]["status"] == std::string(status_value(want[i].status)));
            CHECK(got[i]["message"] == want[i].message);
        }
    };
    same(again["fleet"]["results"], r.outcome.results);
    REQUIRE(again["replicas"].size() == 2);
    for (std::size_t i = 0; i < 2; ++i) same(again["replicas"][i]["results"], r.outcome.replicas[i].results);
    CHECK_THAT(util::read_file(sb.dir / "whole.html"), Contains("Fleet of 2 replicas"));
}

TEST_CASE("xray on a fleet: a replica killed during the load is a gap and a Can't tell, never zeros",
          "[xray][sim][fleet]") {
    Sandbox sb("fleet-kill");
    const std::vector<int> ports{free_port(), free_port()};
    xray::Plan plan = served_by(sb, ports);
    // Half a second into the load, the second replica's API server is killed outright (a
    // process this run started; its pid is in its own boot log).
    const fs::path log2 = plan.out / fmt::format("127.0.0.1_{}", ports[1]) / "boot.log";
    const std::string kill =
        fmt::format("sleep 0.5; kill -9 $(grep -o 'APIServer pid=[0-9]*' {} | head -1 | cut -d= -f2); ",
                    util::shell_join({log2.string()}));
    plan.load = spread_load(sb, ports, 40, 4, kill);
    plan.interval_s = 0.02;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_FALSE(r.outcome.completed);
    CHECK_THAT(r.outcome.problem, Contains("a replica stopped answering during the load"));
    CHECK_THAT(r.outcome.problem, Contains(fmt::format("127.0.0.1:{}", ports[1])));
    CHECK(r.exit == 1);
    REQUIRE(r.outcome.replicas.size() == 2);
    // The survivor has both snapshots and its verdicts.
    const auto& alive_rep = r.outcome.replicas[0];
    REQUIRE(find_in(alive_rep.results, TripwireId::T1));
    CHECK(find_in(alive_rep.results, TripwireId::T1)->status == Status::pass);
    // The one killed has no after snapshot: its T1 could not be told, and so neither can the fleet's.
    const auto& dead = r.outcome.replicas[1];
    const fs::path dead_dir = plan.out / dead.folder;
    CHECK(fs::exists(dead_dir / "before.snapshot.json"));
    CHECK_FALSE(fs::exists(dead_dir / "after.snapshot.json"));
    const CheckResult* dead_t1 = find_in(dead.results, TripwireId::T1);
    CHECK((dead_t1 == nullptr || dead_t1->status == Status::unknown));
    REQUIRE(r.find("T1"));
    CHECK(r.find("T1")->status == Status::unknown);
    CHECK_THAT(r.find("T1")->message, Contains(fmt::format("127.0.0.1:{}", ports[1])));
    // Its recording stops where the server did: no reading after the kill, and none made up.
    const Series dead_s = read_series(dead_dir / "run.series.jsonl");
    const Series live_s = read_series(plan.out / alive_rep.folder / "run.series.jsonl");
    REQUIRE_FALSE(dead_s.samples.empty());
    CHECK(dead_s.samples.size() + 10 < live_s.samples.size());
    CHECK(dead_s.samples.back().t_wall + 0.5 < live_s.samples.back().t_wall);
    // The page names the gap.
    const std::string page = util::read_file(plan.out / "report.html");
    CHECK_THAT(page, Contains("first at +"));
    for (const auto& rep : r.outcome.replicas) require_all_gone(plan.out / rep.folder / "boot.log");
}

TEST_CASE("xray on a fleet: servers of two engines are refused, and bad replica lists are one line each",
          "[xray][fleet]") {
    Sandbox sb("fleet-bad");
    FakeServer v("vllm:num_requests_running{model_name=\"m\"} 0\nvllm:num_requests_waiting{model_name=\"m\"} 0\n");
    FakeServer s("sglang:num_running_reqs{model_name=\"m\"} 0\nsglang:num_queue_reqs{model_name=\"m\"} 0\n");
    xray::Plan plan;
    plan.out = sb.out();
    plan.load = {"true"};
    plan.probe = false;
    plan.replicas = {{.url = v.url()}, {.url = s.url()}};
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.wrong_engine);
    CHECK(r.exit == 2);
    CHECK_THAT(r.outcome.problem, Contains("SGLang"));
    CHECK_THAT(r.outcome.problem, Contains(s.url()));
    CHECK(r.results["completed"] == false);

    // The same server twice, and two addresses that would share a folder.
    xray::Plan twice = plan;
    twice.replicas = {{.url = v.url()}, {.url = v.url() + "/"}};
    CHECK_THROWS_WITH(xray::checked(twice), Contains("is given twice"));
    xray::Plan clash = plan;
    clash.replicas = {{.url = "http://h:1/a/b"}, {.url = "http://h:1/a_b"}};
    CHECK_THROWS_WITH(xray::checked(clash), Contains("would share the folder"));
    // Nothing answers at the second address: one line naming it, nothing started.
    xray::Plan down = plan;
    down.replicas = {{.url = v.url()}, {.url = fmt::format("http://127.0.0.1:{}", free_port())}};
    auto d = run_xray(down);
    CHECK_THAT(d.outcome.problem, Contains("no server answers at " + down.replicas[1].url));
    CHECK(d.exit == 1);

    // On the command line: --serve and --url counts that do not pair up.
    auto cli = testsupport::run_cli({"xray", "-o", (sb.dir / "x").string(), "--serve", "vllm serve m --port 1", "--url",
                                     "http://127.0.0.1:1", "--url", "http://127.0.0.1:2", "--", "true"});
    CHECK(cli.rc == 2);
    CHECK_THAT(cli.err, Contains("give --serve once per replica"));
    auto logs = testsupport::run_cli({"xray", "-o", (sb.dir / "y").string(), "--url", v.url(), "--url", s.url(),
                                      "--boot-log", "/nonexistent", "--", "true"});
    CHECK(logs.rc == 2);
    CHECK_THAT(logs.err, Contains("give --boot-log once per --url"));
}

TEST_CASE("xray on a fleet: SIGINT during the load stops every replica's server and says where", "[xray][sim][fleet]") {
    // A signal that lands after the run has restored its handlers is caught here, not fatal.
    util::SignalGuard outer({SIGINT, SIGTERM, SIGHUP}, util::BrokenPipe::keep);
    Sandbox sb("fleet-sigint");
    const std::vector<int> ports{free_port(), free_port()};
    xray::Plan plan = served_by(sb, ports);
    plan.probe = false;
    // The load signals xray itself while its own child runs on (a background job).
    // Its child would run 10 minutes: a run that waited for it, rather than stopping the
    // load's group, would meet the test's ceiling.
    plan.load = {"/bin/sh", "-c", "sleep 600 & kill -s INT $PPID; wait"};
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.interrupted_by == SIGINT);
    REQUIRE(r.outcome.stopped_at);
    CHECK(*r.outcome.stopped_at == xray::Stage::load);
    CHECK_FALSE(r.outcome.completed);
    CHECK(r.exit == 1);
    CHECK(r.results["signal"] == "SIGINT");
    CHECK(r.results["completed"] == false);
    // Nothing was checked on a load cut short; every server this run started is gone.
    CHECK(r.find("T1") == nullptr);
    for (int p : ports) require_all_gone(plan.out / fmt::format("127.0.0.1_{}", p) / "boot.log");
}
