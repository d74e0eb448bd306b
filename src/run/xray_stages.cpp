// xray's load stage: the snapshots, the load with its recording, and the load's result.
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

// Each server's before snapshot, the load with every server's gauges recorded, each
// server's after snapshot. A server lost during the load stops the run after it; what was
// recorded is judged all the same.
Step Pipeline::load() {
    stage(Stage::load);
    for (auto& s : slots_) {
        try {
            s.before = run::default_scraper().scrape(s.url);
        } catch (const std::exception& e) {
            return Halt{fleet_ ? fmt::format("cannot read the metrics of replica {}: {}", s.name, e.what())
                               : fmt::format("cannot read the server's metrics: {}", e.what())};
        }
        s.before->save(s.dir / "before.snapshot.json");
        add_file(s, "before.snapshot.json");
    }
    prepared_ = prepare_load(plan_.load, plan_.out);
    o_.load_argv = prepared_->argv;
    const LoadRun lr = record_load(*prepared_);
    if (Step ended = load_ended(lr)) return ended;
    if (cut()) return std::nullopt;
    recorded_ = true;
    const bool lost = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.after; });
    if (!lost && !lr.server_exit) return std::nullopt;
    // A server that died serving says why in its log (T7), unless it was killed outright; on
    // one server the judge reads it there again, a fleet's replica keeps it.
    for (auto& s : slots_) {
        if (s.after || !s.boot_log) continue;
        if (auto failure = parse::classify_failure(read_log(*s.boot_log))) {
            if (fleet_) {
                s.early.push_back(checks::check_boot_failure(failure));
            } else {
                say_verdict(checks::check_boot_failure(failure));
            }
        }
    }
    return lost_in_load(lr);
}

// Why the run stopped after the load: the server that exited (one server), else each
// server whose after snapshot could not be taken.
Halt Pipeline::lost_in_load(const LoadRun& lr) {
    Halt h{.recorded = true};
    if (!fleet_) {
        h.why =
            lr.server_exit
                ? fmt::format("the server stopped answering during the load: it exited with status {}", *lr.server_exit)
                : fmt::format("the server stopped answering during the load: {}", slots_.front().after_missing);
        return h;
    }
    std::string gone;
    for (const auto& s : slots_)
        if (!s.after) gone += fmt::format("{}{} ({})", gone.empty() ? "" : "; ", s.name, s.after_missing);
    h.why = "a replica stopped answering during the load: " + gone;
    return h;
}

Step Pipeline::load_ended(const LoadRun& lr) {
    if (!lr.error.empty()) return Halt{"the load command could not start: " + lr.error};
    o_.load_exit = lr.exit_status;
    o_.load_signal = lr.signal;
    o_.load_stop = lr.stopped;
    if (lr.signal) {
        say(fmt::format("the load command was killed by {}", signal_name(lr.signal)));
    } else if (o_.load_exit && *o_.load_exit != 0) {
        say(fmt::format("the load command exited with code {}", *o_.load_exit));
    }
    if (cut()) return std::nullopt;
    if (lr.stopped && lr.stopped->why == LoadStop::Why::timeout) {
        Halt h{fmt::format("the load command ran past --load-timeout {:g} s; its process group was stopped",
                           *plan_.load_timeout_s)};
        o_.stopped_at = Stage::load;
        return h;
    }
    return std::nullopt;
}

// The load's limits: the plan's, and the load stopped once every server this run started
// has exited (a fleet that lost one replica still serves).
LoadLimits Pipeline::load_limits() {
    LoadLimits limits{.grace_s = plan_.timings.load_grace_s,
                      .timeout_s = plan_.load_timeout_s,
                      .server_exit = nullptr,
                      .server_gone_grace_s = plan_.timings.server_gone_grace_s};
    if (slots_.front().server)
        limits.server_exit = [this]() -> std::optional<int> {
            std::optional<int> last;
            for (auto& s : slots_) {
                auto st = s.server->exit_status();
                if (!st) return std::nullopt;
                last = st;
            }
            return last;
        };
    return limits;
}

// Each server's after snapshot, into its folder; one that cannot be read says why (a full
// disk ends the run).
void Pipeline::take_after_snapshots() {
    for (auto& s : slots_) {
        try {
            s.after = run::default_scraper().scrape(s.url);
            s.after->save(s.dir / "after.snapshot.json");
            add_file(s, "after.snapshot.json");
        } catch (const util::WriteError&) {
            throw;
        } catch (const std::exception& e) {
            s.after.reset();
            s.after_missing = e.what();
        }
    }
}

// Runs the load while every server's gauges are recorded on one schedule, and the GPUs
// beside them; then the after snapshots, and (a fleet's) each recording read back.
LoadRun Pipeline::record_load(const PreparedLoad& load) {
    std::vector<std::unique_ptr<util::RecordFile>> files;
    std::vector<run::WatchTarget> targets;
    for (auto& s : slots_) {
        files.push_back(std::make_unique<util::RecordFile>(s.dir / "run.series.jsonl"));
        targets.push_back({.base_url = s.url, .out = files.back().get(), .engine = engine_});
    }
    // Tick 0 of the schedule is now, on both clocks: a fleet's sum counts each reading in
    // the tick it was taken for.
    const run::WatchClock clock = run::system_watch_clock();
    const long long tick0 = clock.mono_ns();
    window_start_ = util::epoch_now();
    const auto scrape = [](const std::string& url) { return run::default_scraper().scrape(url); };
    // The recording ends with the load, however the load ends.
    Recorder recorder([&](const std::atomic<bool>& stop) {
        try {
            if (fleet_) {
                run::watch_all(targets, {.interval_s = plan_.interval_s, .start_mono_ns = tick0}, stop, scrape,
                               [this](const std::string& l) { note(l); });
            } else {
                run::watch(
                    targets.front().base_url, *files.front(), {.interval_s = plan_.interval_s}, stop, scrape,
                    [this](const std::string& l) { note(l); }, engine_);
            }
        } catch (const std::exception& e) {
            note(fmt::format("the recording stopped: {}", e.what()));
        }
    });
    // T19: the GPUs' memory and compute processes, slowly, beside the gauges, with every
    // server's process tree as the servers'; on a machine with no nvidia-smi there is no
    // NVIDIA GPU to share, and no recording (T19 is not here).
    const std::string smi = run::nvidia_smi_path();
    std::optional<util::RecordFile> gpu_file;
    if (util::is_executable_file(smi)) gpu_file.emplace(plan_.out / "gpu.jsonl");
    std::vector<int> roots;
    for (auto& s : slots_)
        if (s.server && s.server->pid() > 0) roots.push_back(s.server->pid());
    Recorder gpus([&, roots](const std::atomic<bool>& stop) {
        try {
            if (gpu_file)
                run::record_gpus(*gpu_file, {}, stop, run::system_runner(5.0), smi,
                                 [roots] { return run::process_trees(run::proc_root(), roots); });
        } catch (const std::exception& e) {
            note(fmt::format("the GPU recording stopped: {}", e.what()));
        }
    });
    say("== load: " + util::shell_join(load.argv));
    load_started_ = fs::file_time_type::clock::now();
    LoadRun lr = run_load(
        load.argv, plan_.out / "load.log", [this](const std::string& l) { say(l); }, load_limits());
    take_after_snapshots();
    window_end_ = util::epoch_now();
    recorder.stop();
    gpus.stop();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        Slot& s = slots_[i];
        files[i]->close();
        if (!*files[i] && o_.write_error.empty()) o_.write_error = files[i]->error();
        add_file(s, "run.series.jsonl");
        if (!fleet_) continue;  // one server's run is judged from its folder
        try {
            s.recorded = read_series(s.dir / "run.series.jsonl");
        } catch (const std::exception& e) {
            note(fmt::format("the recording of replica {} cannot be read: {}", s.name, e.what()));
        }
    }
    if (gpu_file) {
        gpu_file->close();
        if (!*gpu_file && o_.write_error.empty()) o_.write_error = gpu_file->error();
        sources_.push_back("gpu.jsonl");
    }
    return lr;
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
            found.path = *path;
        } catch (const InputError& e) {
            say(fmt::format("note: the load tool's result is not used: {}", e.what()));
        }
    }
    found.requested = plan.requested ? plan.requested : load_concurrency(argv);
    if (!found.requested && found.bench) found.requested = found.bench->max_concurrency;
    return found;
}

// The load tool's result, kept in the run folder (copied there when the tool wrote it
// elsewhere), and what the load command asked for, into the live record.
void Pipeline::read_load_result() {
    stage(Stage::checks);
    load_ = find_load_result(plan_, o_.load_argv, prepared_ ? prepared_->result : std::nullopt, load_started_,
                             [this](const std::string& l) { say(l); });
    live_.requested = load_->requested;
    live_.unique_prompts = load_unique_prompts(o_.load_argv);
    live_.max_failed_share = plan_.max_failed_share;
    if (!load_->path) return;
    fs::path kept = plan_.out / load_->path->filename();
    std::error_code ec;
    if (!fs::equivalent(*load_->path, kept, ec)) {
        if (fs::exists(kept, ec)) kept = plan_.out / ("load-result-" + load_->path->filename().string());
        if (fs::is_directory(*load_->path, ec)) {  // a tool's report folder, kept whole
            fs::copy(*load_->path, kept, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
            if (ec)
                throw util::WriteError(
                    fmt::format("{}: cannot copy the load tool's result here: {}", kept.string(), ec.message()));
        } else {
            util::write_file(kept, util::read_file(*load_->path, util::AllowEmpty::yes));
        }
    }
    live_.bench_result = kept.filename().string();
    sources_.push_back(kept.filename().string());
}

}  // namespace inferlint::xray::detail
