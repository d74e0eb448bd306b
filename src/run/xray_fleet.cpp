// xray on a fleet: two or more servers, given as --url (running) or started by --serve
// once per replica, recorded around one load command, each into a folder of its own that
// reads as an ordinary run folder (boot.log, before/after snapshots, run.series.jsonl);
// the load's files, results.json and the page sit in the run folder above them.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/fleet.hpp"
#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/fleet_page.hpp"
#include "inferlint/run/gpu_record.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/probe.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/process.hpp"
#include "xray_stages.hpp"

#include <atomic>
#include <chrono>
#include <set>

namespace inferlint::xray::detail {

// A run stopped before its load was recorded: the card's T2 and what each replica's start
// said (a failed boot), each replica's under its name and, across them, the fleet's.
void Pipeline::stopped_early() {
    o_.results.clear();
    o_.replicas.clear();
    for (const auto& r : selected(live_.verdicts)) o_.results.push_back(r);
    std::vector<TripwireId> seen;
    for (auto& r : slots_) {
        o_.replicas.push_back({r.name, r.url, r.folder, selected(r.early), r.files});
        for (const auto& x : r.early)
            if (std::find(seen.begin(), seen.end(), x.tripwire) == seen.end()) seen.push_back(x.tripwire);
    }
    for (TripwireId t : seen) {
        std::vector<std::pair<std::string, const CheckResult*>> each;
        for (auto& r : slots_) {
            auto it =
                std::find_if(r.early.begin(), r.early.end(), [&](const CheckResult& x) { return x.tripwire == t; });
            if (it != r.early.end()) each.emplace_back(r.name, &*it);
        }
        CheckResult across = checks::across_replicas(t, each);
        if (shown(across)) {
            say(terminal_line(across));
            o_.results.push_back(std::move(across));
        }
    }
}

// The fleet's own evidence: the window's summed snapshots and gauges, the load's result,
// the card's T2 readings, and T19 from the fleet's GPU recording (the boot logs' pids are
// the servers' too).
checks::RunEvidence Pipeline::fleet_evidence(const run::FleetWindow& w, const Series& fleet_series,
                                              const std::vector<checks::ReplicaEvidence>& replicas) {
    checks::RunEvidence fleet;
    fleet.named_engine = engine_;
    std::string missing;
    fleet.before = run::fleet_snapshot(w, false, missing);
    fleet.after = run::fleet_snapshot(w, true, missing);
    fleet.series = summarize(fleet_series);
    fleet.bench = load_->bench;
    if (load_->requested) fleet.requested = checks::Requested::of(*load_->requested);
    add_load_evidence(fleet, plan_, o_.load_argv);
    fleet.live = live_.verdicts;
    if (auto gpu = run::read_gpu_recording(plan_.out)) {
        std::vector<long long> pids;
        for (const auto& e : replicas)
            for (const auto& b : e.evidence.boots)
                for (long long p : checks::server_pids_of(b.facts.processes)) pids.push_back(p);
        fleet.live.push_back(checks::check_gpu_shared(*gpu, pids));
    }
    return fleet;
}

void Pipeline::judge_fleet() {
    if (!load_) read_load_result();  // a run cut short after its load
    stage(Stage::checks);

    // The live recording as a window: the same shape a fleet read from Prometheus has.
    run::FleetWindow w;
    w.url = "xray";
    w.selector = "{}";
    w.window = {window_start_, window_end_};
    w.step_s = plan_.interval_s;
    w.step_from = "--interval";
    w.engine = engine_;
    w.replica_key = "instance";
    std::vector<checks::ReplicaEvidence> replicas;
    for (auto& r : slots_) {
        run::ReplicaWindow rw;
        rw.label = "instance";
        rw.name = r.name;
        rw.before = r.before;
        rw.after = r.after;
        if (!r.after) rw.after_missing = "its metrics could not be read after the load: " + r.after_missing;
        if (r.recorded) rw.series = *r.recorded;
        rw.gaps = run::series_gaps(rw.series, w.window, w.step_s);
        checks::ReplicaEvidence e;
        e.name = r.name;
        checks::RunEvidence& ev = e.evidence;
        ev.named_engine = engine_;
        ev.before = r.before;
        ev.after = r.after;
        if (r.recorded) ev.series = summarize(*r.recorded);
        if (r.boot_log && r.facts) {
            std::optional<checks::BootStart> start;
            try {
                start = run::read_boot_start(*r.boot_log, "boot.log", engine_, {});
            } catch (const InputError&) {
                start = boot_start(read_log(*r.boot_log), engine_);
            }
            start->facts.server_version = r.facts->server_version;
            ev.boots = {std::move(*start)};
        }
        if (r.probe && r.probe->result) ev.live.push_back(*r.probe->result);
        for (const auto& x : r.early) ev.live.push_back(x);
        replicas.push_back(std::move(e));
        w.replicas.push_back(std::move(rw));
    }
    const Series fleet_series = run::fleet_sum(w);
    checks::RunEvidence fleet = fleet_evidence(w, fleet_series, replicas);
    const checks::FleetVerdicts v = checks::check_fleet(replicas, fleet, w.step_s);

    say("== checks");
    o_.replicas.clear();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        Slot& r = slots_[i];
        ReplicaOutcome ro{r.name, r.url, r.folder, selected(v.replicas[i].second.results), r.files};
        say(fmt::format("-- replica {}", r.name));
        for (const auto& x : ro.results) say(terminal_line(x));
        o_.replicas.push_back(std::move(ro));
    }
    say(fmt::format("-- the fleet ({} replicas)", slots_.size()));
    o_.results = selected(v.fleet.results);
    for (const auto& x : o_.results) say(terminal_line(x));
    cut();
    write_fleet_page(std::move(fleet), v, w, fleet_series);
}

void Pipeline::write_fleet_page(checks::RunEvidence fleet_ev, const checks::FleetVerdicts& v, const run::FleetWindow& w,
                           const Series& fleet_series) {
    stage(Stage::report);
    checks::RunVerdicts shown_v = v.fleet;
    shown_v.results = o_.results;
    report::PageInfo page;
    page.title = plan_.title ? *plan_.title : fmt::format("Fleet of {} replicas", slots_.size());
    page.generated = util::local_time_text();
    for (const auto& r : slots_) page.sources.push_back(r.prefix);
    page.sources.insert(page.sources.end(), sources_.begin(), sources_.end());
    report::Report rep =
        report::build_report(std::move(fleet_ev), std::move(shown_v), fleet_series, std::nullopt, std::move(page));
    rep.fleet = run::fleet_page(
        w, v, fmt::format("xray: {} servers recorded every {:g} s on one schedule", slots_.size(), plan_.interval_s),
        [this](std::vector<CheckResult> r) { return selected(r); });
    show_and_write(rep);
}

}  // namespace inferlint::xray::detail
