// xray on a fleet: two or more servers, given as --url (running) or started by --serve
// once per replica, recorded around one load command, each into a folder of its own that
// reads as an ordinary run folder (boot.log, before/after snapshots, run.series.jsonl);
// the load's files, results.json and the page sit in the run folder above them.
#include "inferlint/checks/fleet.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/fleet_page.hpp"
#include "inferlint/run/judge_fleet.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/clock.hpp"
#include "xray_stages.hpp"

#include <algorithm>

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

// What only the live run knows, into the folders: each replica's record (its probe's T7,
// what a failed start said, the version its server reported, why it had no after snapshot)
// and the run's (the card's T2, the load's facts, the replicas and the recording's window).
void Pipeline::write_fleet_records() {
    run::FleetRecord fleet{.start_s = window_start_, .end_s = window_end_, .step_s = plan_.interval_s};
    for (const auto& s : slots_) {
        run::LiveRecord rec;
        if (s.probe && s.probe->result) rec.verdicts.push_back(*s.probe->result);
        rec.verdicts.insert(rec.verdicts.end(), s.early.begin(), s.early.end());
        if (s.facts) rec.server_version = s.facts->server_version;
        if (!s.after) rec.after_missing = s.after_missing;
        run::write_live_record(s.dir, rec);
        fleet.replicas.push_back({s.name, s.url, s.folder});
    }
    live_.fleet = std::move(fleet);
    run::write_live_record(plan_.out, live_);
}

// The fleet's verdicts, made from its folders as `inferlint report DIR` makes them
// (run::load_fleet_run, then check_fleet); said per replica and for the fleet, and drawn.
void Pipeline::judge_fleet() {
    if (!load_) read_load_result();  // a run cut short after its load
    stage(Stage::checks);
    write_fleet_records();
    run::JudgeInput in{.named = engine_, .live = live_};
    if (live_.bench_result) in.files.bench = plan_.out / *live_.bench_result;
    std::error_code ec;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) in.files.load_log = plan_.out / "load.log";
    in.files.gpu = run::gpu_recording_in(plan_.out);
    std::optional<run::FleetRun> fleet_run = run::load_fleet_run(plan_.out, in);
    if (!fleet_run) throw InputError(fmt::format("{}: the fleet's files were refused", plan_.out.string()));
    for (const auto& n : fleet_run->notes) note(n);
    const checks::FleetVerdicts v =
        checks::check_fleet(fleet_run->replicas, fleet_run->fleet, fleet_run->window.step_s);

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
    write_fleet_page(std::move(fleet_run->fleet), v, fleet_run->window, fleet_run->fleet_series);
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
