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

namespace {

double steady_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

FleetXray::FleetXray(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o)
    : RunStages(plan, cb, machine, o) {
    for (const auto& p : plan.replicas) {
        Replica r;
        r.plan = &p;
        r.dir = plan.out / p.folder;
        reps_.push_back(std::move(r));
    }
}

FleetXray::~FleetXray() {
    for (auto& r : reps_)
        if (r.probe_thread.joinable()) r.probe_thread.detach();
}

std::vector<CheckResult> FleetXray::selected(const std::vector<CheckResult>& all) const {
    std::vector<CheckResult> out;
    for (const auto& r : all)
        if (shown(r)) out.push_back(r);
    return out;
}

void FleetXray::collect() {
    engine_stage(reps_.front().plan->serve);
    say(fmt::format("== fleet: {} replicas, each recorded into its own folder under {}", reps_.size(),
                    plan_.out.string()));
    for (auto& r : reps_) {
        std::error_code ec;
        fs::create_directories(r.dir, ec);
        if (ec || !fs::is_directory(r.dir))
            throw util::WriteError(fmt::format("{}: cannot create the replica's folder", r.dir.string()));
    }
    if (reps_.front().plan->serve) {
        if (!start_servers()) return;
    } else {
        for (auto& r : reps_) {
            r.boot_log = r.plan->boot_log;
            if (!detail::healthy(r.plan->url)) {
                o_.problem = fmt::format("replica {}: no server answers at {}/health", r.plan->name, r.plan->url);
                return;
            }
        }
    }
    if (cut() || !read_metrics() || !read_boot_logs() || cut()) return;
    if (!o_.server_version) o_.server_version = detail::server_version(reps_.front().plan->url);
    if (plan_.probe && !run_probes()) return;
    if (cut() || !run_load_stage()) return;
    o_.completed = o_.problem.empty() && !o_.interrupted_by && o_.load_exit == 0;
}

bool FleetXray::start_servers() {
    stage(Stage::gpu);
    say("== is the GPU free?");
    CheckResult gate = detail::gpu_free(machine_, plan_.timings);
    if (cut()) return false;
    const bool free = gate.status == Status::pass;
    if (shown(gate)) say(terminal_line(gate));
    live_.push_back(std::move(gate));
    if (!free) {
        o_.problem = "the GPU is not free; start no server on it";
        return false;
    }
    stage(Stage::start);
    // Every server is started before any is waited for: they boot side by side.
    for (auto& r : reps_) {
        r.boot_log = r.dir / "boot.log";
        say(fmt::format("== start replica {} (output in {})", r.plan->name, r.boot_log->string()));
        r.server =
            std::make_unique<Server>(shell_split(*r.plan->serve).value_or(std::vector<std::string>{}), *r.boot_log);
        add_file(r, "boot.log");
        if (!r.server->started()) {
            o_.problem = fmt::format("replica {}: the server could not start: {}", r.plan->name, r.server->error());
            return false;
        }
    }
    const double deadline = steady_s() + plan_.ready_timeout_s;
    for (auto& r : reps_) {
        auto wait = r.server->wait_ready(*r.boot_log, r.plan->url, std::max(0.001, deadline - steady_s()),
                                         plan_.timings, [this](const std::string& l) { say(l); });
        if (wait.state == Server::Ready::ready) continue;
        if (cut()) return false;
        o_.problem = fmt::format("replica {}: {}", r.plan->name, wait.why);
        r.early = boot_checks(read_log(*r.boot_log), engine_);
        return false;
    }
    return true;
}

bool FleetXray::read_metrics() {
    stage(Stage::metrics);
    for (auto& r : reps_) {
        ServedRead served = read_served(r.plan->url, engine_,
                                        plan_.engine ? "the engine named is" : "the engine of the first replica is");
        if (!served.problem.empty()) {
            o_.problem =
                served.wrong_engine ? served.problem : fmt::format("replica {}: {}", r.plan->name, served.problem);
            o_.wrong_engine |= served.wrong_engine;
            return false;
        }
        if (!engine_) {
            set_engine(served.found);
            say(fmt::format("== engine: {} (from its metrics)", engine_->name));
        }
    }
    return true;
}

bool FleetXray::read_boot_logs() {
    stage(Stage::boot_log);
    for (auto& r : reps_) {
        if (!r.boot_log) continue;
        BootRead boot = read_boot(*r.boot_log, r.dir, r.plan->url, engine_, "the engine is",
                                  fmt::format("the boot log of replica {}", r.plan->name));
        if (!boot.problem.empty()) {
            o_.problem = boot.problem;
            o_.wrong_engine |= boot.wrong_engine;
            return false;
        }
        r.facts = std::move(boot.facts);
        if (!o_.server_version) o_.server_version = r.facts->version();
        r.boot_log = boot.kept;
        if (boot.copied) add_file(r, "boot.log");
    }
    if (reps_.front().facts)
        if (auto n = parse::untested_version(*reps_.front().facts)) say("note: " + *n);
    return true;
}

bool FleetXray::run_probes() {
    stage(Stage::probe);
    say("== probe: one request, then 8 at once, on each replica");
    for (auto& r : reps_) {
        r.probe = std::make_shared<ProbeJob>();
        r.probe_thread = probe_on_thread(r.probe, r.plan->url);
    }
    for (auto& r : reps_) {
        while (!r.probe->done()) {
            if (cut()) return false;  // the threads are joined once the servers are stopped
            detail::nap(0.02);
        }
        r.probe_thread.join();
    }
    return true;
}

bool FleetXray::run_load_stage() {
    stage(Stage::load);
    for (auto& r : reps_) {
        try {
            r.before = run::default_scraper().scrape(r.plan->url);
        } catch (const std::exception& e) {
            o_.problem = fmt::format("cannot read the metrics of replica {}: {}", r.plan->name, e.what());
            return false;
        }
        r.before->save(r.dir / "before.snapshot.json");
        add_file(r, "before.snapshot.json");
    }
    prepared_ = prepare_load(plan_.load, plan_.out);
    o_.load_argv = prepared_->argv;
    LoadRun lr;
    record_load(*prepared_, lr);
    if (!load_ended(lr)) return false;
    recorded_ = true;
    // A replica whose server stopped answering: the run did not complete, and the rest of
    // the fleet is still checked (its missing snapshot is that replica's Can't tell).
    std::string gone;
    for (auto& r : reps_)
        if (!r.after) gone += fmt::format("{}{} ({})", gone.empty() ? "" : "; ", r.plan->name, r.after_missing);
    if (!gone.empty()) {
        o_.problem = "a replica stopped answering during the load: " + gone;
        o_.stopped_at = Stage::load;
        for (auto& r : reps_)
            if (!r.after && r.boot_log)
                if (auto failure = parse::classify_failure(read_log(*r.boot_log)))
                    r.early.push_back(checks::check_boot_failure(failure));
    }
    return true;
}

void FleetXray::stop_server() {
    std::vector<Server*> started;
    for (auto& r : reps_)
        if (r.server) started.push_back(r.server.get());
    if (!started.empty()) {
        stage(Stage::stop);
        say(started.size() == 1 ? "== stop the server" : fmt::format("== stop the {} servers", started.size()));
        std::vector<int> left;
        for (Server* s : started) {
            auto l = s->terminate(plan_.timings);
            left.insert(left.end(), l.begin(), l.end());
        }
        CheckResult clear = gpu_clear_after_stop(machine_, plan_.timings, left, started);
        if (shown(clear)) say(terminal_line(clear));
        live_.push_back(std::move(clear));
    }
    for (auto& r : reps_) {
        if (!r.probe_thread.joinable()) continue;
        if (r.server) {
            r.probe_thread.join();
        } else {
            r.probe_thread.detach();
        }
    }
    if (cut()) o_.completed = false;
}

void FleetXray::finish() {
    if (!o_.problem.empty()) say(o_.problem);
    if (recorded_) {
        try {
            check_and_show();
        } catch (const util::WriteError& e) {
            if (o_.write_error.empty()) o_.write_error = e.what();
        } catch (const std::exception& e) {
            note(fmt::format("inferlint: the fleet could not be checked: {}", e.what()));
            stopped_early();
        }
    } else {
        stopped_early();
    }
    o_.files.clear();
    for (auto& r : reps_) o_.files.insert(o_.files.end(), r.files.begin(), r.files.end());
    o_.files.insert(o_.files.end(), sources_.begin(), sources_.end());
    std::error_code ec;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) o_.files.push_back("load.log");
    if (o_.report) o_.files.push_back("report.html");
    o_.files.push_back("results.json");
    o_.files.insert(o_.files.end(), plan_.later_files.begin(), plan_.later_files.end());
}

// A run stopped before its load was recorded: the card's T2 and what each replica's start
// said (a failed boot), each replica's under its name and, across them, the fleet's.
void FleetXray::stopped_early() {
    o_.results.clear();
    o_.replicas.clear();
    for (const auto& r : selected(live_)) o_.results.push_back(r);
    std::vector<TripwireId> seen;
    for (auto& r : reps_) {
        o_.replicas.push_back({r.plan->name, r.plan->url, r.plan->folder, selected(r.early), r.files});
        for (const auto& x : r.early)
            if (std::find(seen.begin(), seen.end(), x.tripwire) == seen.end()) seen.push_back(x.tripwire);
    }
    for (TripwireId t : seen) {
        std::vector<std::pair<std::string, const CheckResult*>> each;
        for (auto& r : reps_) {
            auto it =
                std::find_if(r.early.begin(), r.early.end(), [&](const CheckResult& x) { return x.tripwire == t; });
            if (it != r.early.end()) each.emplace_back(r.plan->name, &*it);
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
checks::RunEvidence FleetXray::fleet_evidence(const run::FleetWindow& w, const Series& fleet_series,
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
    fleet.live = live_;
    if (auto gpu = run::read_gpu_recording(plan_.out)) {
        std::vector<long long> pids;
        for (const auto& e : replicas)
            for (const auto& b : e.evidence.boots)
                for (long long p : checks::server_pids_of(b.facts.processes)) pids.push_back(p);
        fleet.live.push_back(checks::check_gpu_shared(*gpu, pids));
    }
    return fleet;
}

void FleetXray::check_and_show() {
    stage(Stage::checks);
    load_ = find_load_result(plan_, o_.load_argv, prepared_ ? prepared_->result : std::nullopt, load_started_,
                             [this](const std::string& l) { say(l); });
    if (load_->source) sources_.push_back(*load_->source);

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
    for (auto& r : reps_) {
        run::ReplicaWindow rw;
        rw.label = "instance";
        rw.name = r.plan->name;
        rw.before = r.before;
        rw.after = r.after;
        if (!r.after) rw.after_missing = "its metrics could not be read after the load: " + r.after_missing;
        if (r.recorded) rw.series = *r.recorded;
        rw.gaps = run::series_gaps(rw.series, w.window, w.step_s);
        checks::ReplicaEvidence e;
        e.name = r.plan->name;
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
    for (std::size_t i = 0; i < reps_.size(); ++i) {
        Replica& r = reps_[i];
        ReplicaOutcome ro{r.plan->name, r.plan->url, r.plan->folder, selected(v.replicas[i].second.results), r.files};
        say(fmt::format("-- replica {}", r.plan->name));
        for (const auto& x : ro.results) say(terminal_line(x));
        o_.replicas.push_back(std::move(ro));
    }
    say(fmt::format("-- the fleet ({} replicas)", reps_.size()));
    o_.results = selected(v.fleet.results);
    for (const auto& x : o_.results) say(terminal_line(x));
    cut();
    write_page(std::move(fleet), v, w, fleet_series);
}

void FleetXray::write_page(checks::RunEvidence fleet_ev, const checks::FleetVerdicts& v, const run::FleetWindow& w,
                           const Series& fleet_series) {
    stage(Stage::report);
    checks::RunVerdicts shown_v = v.fleet;
    shown_v.results = o_.results;
    report::PageInfo page;
    page.title = plan_.title ? *plan_.title : fmt::format("Fleet of {} replicas", reps_.size());
    page.generated = util::local_time_text();
    for (const auto& r : reps_) page.sources.push_back(r.plan->folder + "/");
    page.sources.insert(page.sources.end(), sources_.begin(), sources_.end());
    report::Report rep =
        report::build_report(std::move(fleet_ev), std::move(shown_v), fleet_series, std::nullopt, std::move(page));
    rep.fleet = run::fleet_page(
        w, v, fmt::format("xray: {} servers recorded every {:g} s on one schedule", reps_.size(), plan_.interval_s),
        [this](std::vector<CheckResult> r) { return selected(r); });
    show_and_write(rep);
}

}  // namespace inferlint::xray::detail
