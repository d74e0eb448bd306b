// xray after the probe: the load with its recording, the run's checks, and the page.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/gpu_record.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/run_folder.hpp"
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
    std::optional<Snapshot> before;
    try {
        before = run::default_scraper().scrape(plan_.url);
    } catch (const std::exception& e) {
        o_.problem = fmt::format("cannot read the server's metrics: {}", e.what());
        return false;
    }
    before->save(out / "before.snapshot.json");
    got_.before = true;
    got_.sources.push_back("before.snapshot.json");
    PreparedLoad load = prepare_load(plan_.load, out);
    o_.load_argv = load.argv;
    got_.result_path = load.result;

    LoadRun lr;
    std::optional<std::string> after_error = record_load(load, lr);
    if (!load_ended(lr)) return false;
    if (after_error || lr.server_exit) {
        o_.problem = lr.server_exit ? fmt::format(
                                          "the server stopped answering during the load: it exited with "
                                          "status {}",
                                          *lr.server_exit)
                                    : fmt::format("the server stopped answering during the load: {}", *after_error);
        o_.stopped_at = Stage::load;
        // A server that died serving says why in its log (T7), unless it was killed outright;
        // the run's judge reads it there again.
        if (got_.boot_log) {
            auto failure = parse::classify_failure(read_log(*got_.boot_log));
            if (failure) say_verdict(checks::check_boot_failure(failure));
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
            run::watch(
                plan_.url, series_file, {.interval_s = plan_.interval_s}, stop,
                [](const std::string& url) { return run::default_scraper().scrape(url); },
                [this](const std::string& l) { note(l); }, engine_);
        } catch (const std::exception& e) {
            note(fmt::format("the recording stopped: {}", e.what()));
        }
    });
    // T19: the GPUs' memory and compute processes, slowly, beside the gauges; on a machine
    // with no nvidia-smi there is no NVIDIA GPU to share, and no recording (T19 is not here).
    const std::string smi = run::nvidia_smi_path();
    std::optional<util::RecordFile> gpu_file;
    if (util::is_executable_file(smi)) gpu_file.emplace(out / "gpu.jsonl");
    const int server_pid = server_ ? server_->pid() : 0;
    Recorder gpus([&, server_pid](const std::atomic<bool>& stop) {
        if (!gpu_file) return;
        try {
            run::record_gpus(*gpu_file, {}, stop, run::system_runner(5.0), smi, [server_pid] {
                return server_pid > 0 ? run::process_tree(run::proc_root(), server_pid) : std::vector<long long>{};
            });
        } catch (const std::exception& e) {
            note(fmt::format("the GPU recording stopped: {}", e.what()));
        }
    });
    say("== load: " + util::shell_join(load.argv));
    got_.load_started = fs::file_time_type::clock::now();
    LoadLimits limits{.grace_s = plan_.timings.load_grace_s,
                      .timeout_s = plan_.load_timeout_s,
                      .server_exit = nullptr,
                      .server_gone_grace_s = plan_.timings.server_gone_grace_s};
    if (server_) limits.server_exit = [this] { return server_->exit_status(); };
    lr = run_load(
        load.argv, out / "load.log", [this](const std::string& l) { say(l); }, limits);
    std::optional<std::string> after_error;
    try {
        run::default_scraper().scrape(plan_.url).save(out / "after.snapshot.json");
        got_.after = true;
        got_.sources.push_back("after.snapshot.json");
    } catch (const std::exception& e) {
        after_error = e.what();
    }
    recorder.stop();
    gpus.stop();
    series_file.close();
    if (!series_file && o_.write_error.empty()) o_.write_error = series_file.error();
    got_.sources.push_back(series_path.filename().string());
    if (gpu_file) {
        gpu_file->close();
        if (!*gpu_file && o_.write_error.empty()) o_.write_error = gpu_file->error();
        got_.sources.push_back("gpu.jsonl");
    }
    return after_error;
}

namespace {

// The newest file under `folder` (at any depth) written at or after `since` whose name ends
// with `suffix`; nullopt when there is none.
std::optional<fs::path> newest_named(const fs::path& folder, std::string_view suffix, fs::file_time_type since) {
    std::optional<fs::path> best;
    fs::file_time_type best_t{};
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || !it->path().filename().string().ends_with(suffix)) continue;
        const auto t = it->last_write_time(ec);
        if (!ec && t >= since && (!best || t > best_t)) best = it->path(), best_t = t;
    }
    return best;
}

// Where a load tool that names its own file left its result: the engines' clients the newest
// JSON in --result-dir; LLMPerf its *_individual_responses.json under --results-dir;
// genai-perf the folder of its profile_export_genai_perf.json under --artifact-dir.
std::optional<fs::path> result_left_by(const std::vector<std::string>& argv, fs::file_time_type started) {
    if (load_client(argv)) return newest_json(flag_value(argv, "--result-dir").value_or("."), started);
    const auto tool = load_tool(argv);
    if (tool == "llmperf")
        return newest_named(flag_value(argv, "--results-dir").value_or("."), "_individual_responses.json", started);
    if (tool == "genai-perf") {
        auto file = newest_named(flag_value(argv, "--artifact-dir").value_or("artifacts"),
                                 "profile_export_genai_perf.json", started);
        if (file) return file->parent_path();
    }
    return std::nullopt;
}

}  // namespace

// The load tool's result (a file, or a tool's report folder): the one named, else where the
// tool was asked to save it, else where the tool left it during the load (result_left_by).
LoadFound find_load_result(const Plan& plan, const std::vector<std::string>& argv, const std::optional<fs::path>& asked,
                           fs::file_time_type started, const Say& say) {
    LoadFound found;
    std::optional<fs::path> path = plan.bench_result ? plan.bench_result : asked;
    if (!path) path = result_left_by(argv, started);
    std::error_code ec;
    if (path && fs::exists(*path, ec)) {
        try {
            found.bench = load_bench_result(*path);
            found.source = path->filename().string();
            found.path = *path;
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
        } catch (const InputError&) {}
    }
}

// The load tool's result, kept in the run folder (copied there when the tool wrote it
// elsewhere), and what the load command asked for, into the live record.
void Xray::read_load_result() {
    stage(Stage::checks);
    LoadFound found = find_load_result(plan_, o_.load_argv, got_.result_path, got_.load_started,
                                       [this](const std::string& l) { say(l); });
    got_.live.requested = found.requested;
    got_.live.unique_prompts = load_unique_prompts(o_.load_argv);
    got_.live.max_failed_share = plan_.max_failed_share;
    if (!found.path) return;
    fs::path kept = plan_.out / found.path->filename();
    std::error_code ec;
    if (!fs::equivalent(*found.path, kept, ec)) {
        if (fs::exists(kept, ec)) kept = plan_.out / ("load-result-" + found.path->filename().string());
        if (fs::is_directory(*found.path, ec)) {  // a tool's report folder, kept whole
            fs::copy(*found.path, kept, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
            if (ec)
                throw util::WriteError(
                    fmt::format("{}: cannot copy the load tool's result here: {}", kept.string(), ec.message()));
        } else {
            util::write_file(kept, util::read_file(*found.path, util::AllowEmpty::yes));
        }
    }
    got_.live.bench_result = kept.filename().string();
    got_.sources.push_back(kept.filename().string());
}

run::RunFileSet Xray::folder_files() const {
    run::RunFileSet files;
    const fs::path& out = plan_.out;
    std::error_code ec;
    if (got_.boot_log) files.boot_logs.push_back(*got_.boot_log);
    if (got_.before) files.before = out / "before.snapshot.json";
    if (got_.after) files.after = out / "after.snapshot.json";
    if (fs::is_regular_file(out / "run.series.jsonl", ec)) files.series = out / "run.series.jsonl";
    if (got_.live.bench_result) files.bench = out / *got_.live.bench_result;
    if (fs::is_regular_file(out / "load.log", ec)) files.load_log = out / "load.log";
    files.gpu = run::gpu_recording_in(out);
    return files;
}

// The run's verdicts, made once from its folder and live record, as `inferlint report DIR`
// makes them; said, kept for results.json, and the page written from them.
void Xray::judge() {
    run::write_live_record(plan_.out, got_.live);
    run::JudgeInput in{.files = folder_files(), .named = engine_, .accept = {}, .live = got_.live};
    checks::RunVerdicts verdicts;
    std::optional<run::LoadedRun> loaded;
    try {
        loaded = run::load_judged(in, verdicts);
    } catch (const InputError& e) {
        // A file of the run that cannot be read again (a log emptied since, a cut snapshot):
        // said, and only the live verdicts given.
        note(fmt::format("inferlint: the run's files cannot be read: {}", e.what()));
    }
    if (!loaded) loaded = run::load_judged({.named = engine_, .live = got_.live}, verdicts);
    verdicts.results.erase(std::remove_if(verdicts.results.begin(), verdicts.results.end(),
                                          [this](const CheckResult& r) { return !shown(r); }),
                           verdicts.results.end());
    o_.results = verdicts.results;
    stage(Stage::report);
    report::PageInfo page{plan_.title, util::local_time_text(), got_.sources, plan_.only};
    report::Report rep = report::build_report(std::move(loaded->evidence), std::move(verdicts),
                                              std::move(loaded->series), loaded->boot_s, std::move(page));
    say("== verdicts (as `inferlint report` gives them from the run folder)");
    for (const auto& r : rep.results) say(terminal_line(r));
    if (got_.boot_log || (got_.before && got_.after)) show_and_write(rep);
}

void Xray::finish() {
    if (!o_.problem.empty()) say(o_.problem);
    try {
        judge();
    } catch (const util::WriteError& e) {  // a full disk: said once, at the end
        if (o_.write_error.empty()) o_.write_error = e.what();
    } catch (const std::exception& e) {
        note(fmt::format("inferlint: no report: {}", e.what()));
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
