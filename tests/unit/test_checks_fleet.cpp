// A fleet's verdicts (checks/fleet) on the project's own simulator recordings: a healthy
// replica beside one that preempted, and the fleet's T8 held against the summed running
// requests (run::fleet_sum) of two replicas.
#include "support.hpp"

#include "inferlint/checks/fleet.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/run/prometheus.hpp"

#include <fmt/format.h>

using namespace inferlint;
using Catch::Matchers::Contains;

namespace {

checks::RunEvidence replica_of(const std::string& which) {
    const auto dir = testsupport::own_fixtures() / "vllm-sim" / which;
    checks::RunEvidence ev;
    ev.before = load_snapshot(dir / "before.snapshot.json");
    ev.after = load_snapshot(dir / "after.snapshot.json");
    ev.series = summarize_series_file(dir / "run.series.jsonl");
    return ev;
}

const CheckResult& of(const checks::RunVerdicts& v, TripwireId t) {
    const CheckResult* r = v.result(t);
    REQUIRE(r != nullptr);
    return *r;
}

}  // namespace

TEST_CASE("fleet: a replica that preempted fails the fleet's T1, naming it", "[fleet]") {
    std::vector<checks::ReplicaEvidence> replicas{{"a:8000", replica_of("healthy"), 0},
                                                  {"b:8000", replica_of("preempted"), 0}};
    checks::RunEvidence fleet;  // no union snapshots: each replica's T1 decides
    auto v = checks::check_fleet(replicas, fleet, 0.25);
    REQUIRE(v.replicas.size() == 2);
    CHECK(of(v.replicas[0].second, TripwireId::T1).status == Status::pass);
    CHECK(of(v.replicas[1].second, TripwireId::T1).status == Status::fail);
    const auto& t1 = of(v.fleet, TripwireId::T1);
    CHECK(t1.status == Status::fail);
    CHECK_THAT(t1.message, Contains("replica b:8000: "));
    CHECK(t1.evidence["replicas"].contains("a:8000"));
    // T14 is each replica's: the fleet's row carries both.
    const auto& t14 = of(v.fleet, TripwireId::T14);
    CHECK(t14.evidence["replicas"].size() == 2);
    CHECK(t14.status == of(v.replicas[0].second, TripwireId::T14).status);
}

TEST_CASE("fleet: a replica's counter resets fail its T1 as a restart", "[fleet]") {
    std::vector<checks::ReplicaEvidence> replicas{{"a:8000", replica_of("healthy"), 3}};
    auto v = checks::check_fleet(replicas, replicas[0].evidence, 1.0);
    const auto& t1 = of(v.replicas[0].second, TripwireId::T1);
    CHECK(t1.status == Status::fail);
    CHECK(t1.evidence["restarted"] == true);
    CHECK(t1.evidence["resets"] == 3);
    CHECK(of(v.fleet, TripwireId::T1).status == Status::fail);
}

TEST_CASE("fleet: T8 holds the requested concurrency against the sum over replicas", "[fleet]") {
    const auto series = read_series(testsupport::own_fixtures() / "vllm-sim" / "healthy" / "run.series.jsonl");
    const double peak = *series.peak_running();
    run::FleetWindow w;
    w.url = "http://p:9090";
    w.engine = &vllm();
    w.step_s = 0.25;
    for (const char* name : {"a:8000", "b:8000"}) {
        run::ReplicaWindow r;
        r.name = name;
        r.series = series;
        w.replicas.push_back(r);
    }
    const Series sum = run::fleet_sum(w);
    REQUIRE(sum.samples.size() == series.samples.size());
    CHECK(*sum.peak_running() == 2 * peak);
    CHECK_FALSE(sum.samples.front().kv_usage);  // a per-replica fraction is not summed

    std::vector<checks::ReplicaEvidence> replicas;
    for (const auto& r : w.replicas) {
        checks::RunEvidence ev;
        ev.series = summarize(r.series);
        replicas.push_back({r.name, ev, 0});
    }
    for (long long asked : {static_cast<long long>(2 * peak), static_cast<long long>(2 * peak) + 1}) {
        checks::RunEvidence fleet;
        fleet.series = summarize(sum);
        fleet.requested = checks::Requested::of(asked);
        auto v = checks::check_fleet(replicas, fleet, 0.25);
        const auto& t8 = of(v.fleet, TripwireId::T8);
        CHECK(t8.status == (asked == 2 * peak ? Status::pass : Status::fail));
        CHECK_THAT(t8.message, Contains("sampled every 0.25 s") && Contains("lower bound"));
        CHECK(t8.evidence["sampling_interval_s"] == 0.25);
        for (const auto& [name, rv] : v.replicas) CHECK(rv.result(TripwireId::T8) == nullptr);
    }
}

TEST_CASE("fleet: readings a scrape's latency after each tick are summed in the tick they were taken for", "[fleet]") {
    // Two replicas read every 0.1 s from t = 1000: a's readings 1 to 9 ms late, b's 40 to
    // 90 ms late (a slow scrape), b missing tick 3 (a gap: never read as zero).
    run::FleetWindow w;
    w.url = "xray";
    w.engine = &vllm();
    w.step_s = 0.1;
    w.window = {1000.0, 1001.0};
    auto replica = [&](const char* name, std::vector<double> late, std::vector<double> running, int missing) {
        run::ReplicaWindow r;
        r.name = name;
        for (int k = 0; k < 10; ++k) {
            if (k == missing) continue;
            SeriesSample x;
            x.t_wall = 1000.0 + 0.1 * k + late[k % late.size()];
            x.running = running[k % running.size()];
            r.series.samples.push_back(x);
        }
        return r;
    };
    w.replicas.push_back(replica("a:1", {0.001, 0.009, 0.005}, {4}, -1));
    w.replicas.push_back(replica("b:1", {0.04, 0.09, 0.06}, {3}, 3));
    const Series sum = run::fleet_sum(w);
    REQUIRE(sum.samples.size() == 10);
    for (std::size_t k = 0; k < 10; ++k) {
        INFO("tick " << k);
        CHECK(*sum.samples[k].running == (k == 3 ? 4.0 : 7.0));
        CHECK(sum.samples[k].t_wall >= 1000.0 + 0.1 * static_cast<double>(k));
        CHECK(sum.samples[k].t_wall < 1000.0 + 0.1 * static_cast<double>(k) + 0.01);
    }
    CHECK(*sum.peak_running() == 7.0);
}

TEST_CASE("fleet: across_replicas", "[fleet]") {
    CheckResult pass{TripwireId::T9, Status::pass, "steady", Json::object()};
    CheckResult warn{TripwireId::T9, Status::warn, "moved", Json::object()};
    CheckResult unknown{TripwireId::T9, Status::unknown, "no readings", Json::object()};
    auto r = checks::across_replicas(TripwireId::T9, {{"a", &pass}, {"b", &warn}, {"c", &unknown}, {"d", &unknown}});
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "replica c: no readings, and 1 more replica");
    r = checks::across_replicas(TripwireId::T9, {{"a", &pass}, {"b", &pass}});
    CHECK(r.status == Status::pass);
    CHECK_THAT(r.message, Contains("all 2 replicas pass"));
    // A replica without the verdict (its snapshot missing) is Can't tell, never left out.
    r = checks::across_replicas(TripwireId::T9, {{"a", &pass}, {"b", nullptr}});
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Contains("replica b: no verdict from this replica"));
}

TEST_CASE("fleet: T20 from the load tool's result and the union counters; the accepted share is every replica's",
          "[fleet][T20]") {
    // Two vLLM replicas: one aborted 1 of its 10 requests; the load tool counted 1 of 20 failed.
    auto vllm = [](double stop, double abort) {
        return snapshot_from_text(fmt::format("vllm:request_success_total{{finished_reason=\"stop\"}} {}\n"
                                              "vllm:request_success_total{{finished_reason=\"abort\"}} {}\n"
                                              "vllm:generation_tokens_total {}\n",
                                              stop, abort, stop * 10),
                                  "replica.prom");
    };
    checks::RunEvidence a, b;
    a.before = vllm(0, 0), a.after = vllm(9, 1);
    b.before = vllm(0, 0), b.after = vllm(10, 0);
    std::vector<checks::ReplicaEvidence> replicas{{"a:8000", a, 0}, {"b:8000", b, 0}};
    checks::RunEvidence fleet;
    fleet.bench = parse_bench_result(R"({"completed": 19, "failed": 1, "num_prompts": 20})", "bench.json");
    auto v = checks::check_fleet(replicas, fleet, 0.25);
    CHECK(of(v.replicas[0].second, TripwireId::T20).status == Status::fail);
    CHECK(of(v.replicas[1].second, TripwireId::T20).status == Status::pass);
    const auto& failed = of(v.fleet, TripwireId::T20);
    INFO(failed.message);
    CHECK(failed.status == Status::fail);
    // --max-failed-share 15: the fleet's 5% and replica a's 10% are both at or under it, so
    // no replica's verdict overrides the fleet's warning.
    fleet.max_failed_share = 0.15;
    v = checks::check_fleet(replicas, fleet, 0.25);
    CHECK(of(v.replicas[0].second, TripwireId::T20).status == Status::warn);
    const auto& warned = of(v.fleet, TripwireId::T20);
    INFO(warned.message);
    CHECK(warned.status == Status::warn);
    CHECK_THAT(warned.message, Contains("1 of 20 requests did not complete"));
}
