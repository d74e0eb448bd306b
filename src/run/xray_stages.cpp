// xray after the probe: the load with its recording, the run's checks, and the page.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/process.hpp"
#include "xray_stages.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>

namespace inferlint::xray::detail {

bool Xray::run_load_stage() {
    stage(Stage::load);
    const fs::path& out = plan_.out;
    try {
        got_.before = run::default_scraper().scrape(plan_.url);
    } catch (const std::exception& e) {
        o_.problem = fmt::format("cannot read the server's metrics: {}", e.what());
        return false;
    }
    got_.before->save(out / "before.snapshot.json");
    got_.sources.push_back("before.snapshot.json");
    PreparedLoad load = prepare_load(plan_.load, out);
    o_.load_argv = load.argv;
    got_.result_path = load.result;

    LoadRun lr;
    std::optional<std::string> after_error = record_load(load, lr);
    if (!load_ended(lr)) return false;
    if (after_error || lr.server_exit) {
        o_.problem = lr.server_exit ? fmt::format("the server stopped answering during the load: it exited with "
                                                  "status {}",
                                                  *lr.server_exit)
                                    : fmt::format("the server stopped answering during the load: {}", *after_error);
        o_.stopped_at = Stage::load;
        // A server that died serving says why in its log (T7), unless it was killed outright.
        if (got_.boot_log) {
            auto failure = parse::classify_failure(read_log(*got_.boot_log));
            if (failure) record(checks::check_boot_failure(failure));
        }
    }
    return true;
}

bool RunStages::load_ended(const LoadRun& lr) {
    if (!lr.error.empty()) {
        o_.problem = "the load command could not start: " + lr.error;
        return false;
    }
    o_.load_exit = lr.exit_status;
    o_.load_signal = lr.signal;
    o_.load_stop = lr.stopped;
    if (lr.signal) {
        say(fmt::format("the load command was killed by {}", signal_name(lr.signal)));
    } else if (o_.load_exit && *o_.load_exit != 0) {
        say(fmt::format("the load command exited with code {}", *o_.load_exit));
    }
    if (cut()) return false;
    if (lr.stopped && lr.stopped->why == LoadStop::Why::timeout) {
        o_.problem = fmt::format("the load command ran past --load-timeout {:g} s; its process group was stopped",
                                 *plan_.load_timeout_s);
        o_.stopped_at = Stage::load;
        return false;
    }
    return true;
}

// Runs the load while the gauges are recorded, then takes the after snapshot and reads the
// recording back. Says why the after snapshot could not be taken, if it could not.
std::optional<std::string> Xray::record_load(const PreparedLoad& load, LoadRun& lr) {
    const fs::path& out = plan_.out;
    const fs::path series_path = out / "run.series.jsonl";
    util::RecordFile series_file(series_path);
    // The recording ends with the load, however the load ends.
    Recorder recorder([&](const std::atomic<bool>& stop) {
        try {
            run::watch(plan_.url, series_file, {.interval_s = plan_.interval_s}, stop,
                       [](const std::string& url) { return run::default_scraper().scrape(url); },
                       [this](const std::string& l) { note(l); }, engine_);
        } catch (const std::exception& e) {
            note(fmt::format("the recording stopped: {}", e.what()));
        }
    });
    say("== load: " + util::shell_join(load.argv));
    got_.load_started = fs::file_time_type::clock::now();
    LoadLimits limits{.grace_s = plan_.timings.load_grace_s,
                      .timeout_s = plan_.load_timeout_s,
                      .server_exit = nullptr,
                      .server_gone_grace_s = plan_.timings.server_gone_grace_s};
    if (server_) limits.server_exit = [this] { return server_->exit_status(); };
    lr = run_load(load.argv, out / "load.log", [this](const std::string& l) { say(l); }, limits);
    std::optional<std::string> after_error;
    try {
        got_.after = run::default_scraper().scrape(plan_.url);
        got_.after->save(out / "after.snapshot.json");
        got_.sources.push_back("after.snapshot.json");
    } catch (const std::exception& e) {
        after_error = e.what();
    }
    recorder.stop();
    series_file.close();
    if (!series_file && o_.write_error.empty()) o_.write_error = series_file.error();
    got_.sources.push_back(series_path.filename().string());
    try {
        got_.recorded = read_series(series_path);
    } catch (const std::exception& e) {
        note(fmt::format("the recording cannot be read: {}", e.what()));
    }
    return after_error;
}

// The load tool's result: the file named, else where the tool was asked to save it, else
// the newest JSON its --result-dir got during the load.
LoadFound find_load_result(const Plan& plan, const std::vector<std::string>& argv,
                           const std::optional<fs::path>& asked, fs::file_time_type started, const Say& say) {
    LoadFound found;
    std::optional<fs::path> path = plan.bench_result ? plan.bench_result : asked;
    if (!path && load_client(argv)) path = newest_json(flag_value(argv, "--result-dir").value_or("."), started);
    std::error_code ec;
    if (path && fs::is_regular_file(*path, ec)) {
        try {
            found.bench = load_bench_result(*path);
            found.source = path->filename().string();
        } catch (const InputError& e) {
            say(fmt::format("note: the load tool's result is not used: {}", e.what()));
        }
    }
    found.requested = plan.requested ? plan.requested : load_concurrency(argv);
    if (!found.requested && found.bench) found.requested = found.bench->max_concurrency;
    return found;
}

void add_load_evidence(checks::RunEvidence& ev, const Plan& plan, const std::vector<std::string>& argv) {
    ev.unique_prompts = load_unique_prompts(argv);
    // The client's own account of its arguments, when the command line leaves the dataset
    // to its default (vllm bench serve's is random), as `report` reads it from load.log.
    if (!ev.unique_prompts && load_client(argv)) ev.unique_prompts = unique_prompts_in(plan.out / "load.log");
    if (ev.bench && ev.before && ev.after && load_client(argv)) {
        try {
            ev.untimed_requests = untimed_requests_in(plan.out / "load.log");
        } catch (const InputError&) {
        }
    }
}

void Xray::read_load_result() {
    LoadFound found = find_load_result(plan_, o_.load_argv, got_.result_path, got_.load_started,
                                       [this](const std::string& l) { say(l); });
    got_.bench = std::move(found.bench);
    if (found.source) got_.sources.push_back(*found.source);
    got_.requested = found.requested;
}

void Xray::run_checks() {
    read_load_result();
    got_.evidence = evidence();
    checks::RunEvidence& ev = *got_.evidence;
    if (got_.boot_log && got_.facts) {
        // The server's log now covers the run too (TensorRT-LLM logs its pauses there).
        std::optional<checks::BootStart> start;
        try {
            start = run::read_boot_start(*got_.boot_log, "boot.log", engine_, {}, &got_.boot_s);
        } catch (const InputError&) {
            // Emptied or cut since the boot (a rotated log): what the text now says.
            start = boot_start(read_log(*got_.boot_log), engine_);
        }
        start->facts.server_version = got_.facts->server_version;
        ev.boots = {std::move(*start)};
    }
    if (cut()) return;
    stage(Stage::checks);
    say("== checks");
    checks::RunVerdicts load = checks::check_load(ev);
    got_.usable_blocks = load.usable_blocks;
    for (auto& r : load.results) {
        if (cut()) return;
        record(r.tripwire == TripwireId::T10 ? checks::with_timer_comparison(std::move(r)) : std::move(r));
    }
    checks::ClientCountVerdicts counts = checks::check_client_counts(ev);
    if (counts.t15) record(std::move(*counts.t15));
    if (counts.t18 && !cut()) record(std::move(*counts.t18));
    cut();
}

checks::RunEvidence Xray::evidence() const {
    checks::RunEvidence ev;
    ev.named_engine = engine_;
    ev.before = got_.before;
    ev.after = got_.after;
    if (got_.recorded) ev.series = summarize(*got_.recorded);
    ev.bench = got_.bench;
    if (got_.requested) ev.requested = checks::Requested::of(*got_.requested);
    add_load_evidence(ev, plan_, o_.load_argv);
    return ev;
}

// The verdicts as the run gave them, the last per tripwire (the teardown's T2, not the
// start-of-run gate's) in the order each first appeared: the page shows what the
// terminal and results.json said, computed once.
checks::RunVerdicts Xray::verdicts() const {
    checks::RunVerdicts v;
    for (const auto& r : o_.results) {
        auto same = std::find_if(v.results.begin(), v.results.end(),
                                 [&](const CheckResult& k) { return k.tripwire == r.tripwire; });
        if (same == v.results.end()) {
            v.results.push_back(r);
        } else {
            *same = r;
        }
    }
    v.usable_blocks = got_.usable_blocks;
    return v;
}

void Xray::finish() {
    if (!o_.problem.empty()) say(o_.problem);
    if (got_.boot_log || (got_.before && got_.after)) {
        stage(Stage::report);
        try {
            // The evidence the checks ran on; a run stopped before them has only its boot log.
            const bool checked = got_.evidence.has_value();
            checks::RunEvidence ev = checked ? std::move(*got_.evidence) : evidence();
            if (!checked && got_.boot_log) {
                auto start = run::read_boot_start(*got_.boot_log, "boot.log", engine_, {}, &got_.boot_s);
                if (got_.facts && !start->facts.vllm_version) start->facts.server_version = got_.facts->server_version;
                ev.boots = {std::move(*start)};
            }
            report::PageInfo page{plan_.title, util::local_time_text(), got_.sources};
            report::Report rep =
                report::build_report(std::move(ev), verdicts(), got_.recorded, got_.boot_s, std::move(page));

            show_and_write(rep);
        } catch (const std::exception& e) {
            note(fmt::format("inferlint: no report: {}", e.what()));
        }
    }
    finish_files();
}

void RunStages::show_and_write(const report::Report& rep) {
    o_.limits = report::limits(rep);
    if (!o_.limits.empty()) {
        say("== what limited this run");
        for (const auto& i : o_.limits) say(fmt::format("- {}. {}", i.title, i.text));
    }
    const fs::path html = plan_.out / "report.html";
    try {
        util::write_file(html, report::render_report_html(rep));
        o_.report = html;
    } catch (const util::WriteError& e) {  // a full disk: said once, at the end
        if (o_.write_error.empty()) o_.write_error = e.what();
    }
}

void Xray::finish_files() {
    o_.files = got_.sources;
    std::error_code ec;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) o_.files.push_back("load.log");
    if (o_.report) o_.files.push_back("report.html");
    o_.files.push_back("results.json");
    o_.files.insert(o_.files.end(), plan_.later_files.begin(), plan_.later_files.end());
}

}  // namespace inferlint::xray::detail
