// xray on a fleet, the load stage's recording: every replica's gauges on one schedule, the
// fleet's GPUs beside them, the load, and each replica's after snapshot.
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

// The load's limits: the plan's, and the load stopped once every server this run started
// has exited (a fleet that lost one replica still serves).
LoadLimits FleetXray::load_limits() {
    LoadLimits limits{.grace_s = plan_.timings.load_grace_s,
                      .timeout_s = plan_.load_timeout_s,
                      .server_exit = nullptr,
                      .server_gone_grace_s = plan_.timings.server_gone_grace_s};
    if (reps_.front().server)
        limits.server_exit = [this]() -> std::optional<int> {
            std::optional<int> last;
            for (auto& r : reps_) {
                auto st = r.server->exit_status();
                if (!st) return std::nullopt;
                last = st;
            }
            return last;
        };
    return limits;
}

// Each replica's after snapshot, into its folder; one that cannot be read says why (a full
// disk ends the run).
void FleetXray::take_after_snapshots() {
    for (auto& r : reps_) {
        try {
            r.after = run::default_scraper().scrape(r.plan->url);
            r.after->save(r.dir / "after.snapshot.json");
            add_file(r, "after.snapshot.json");
        } catch (const util::WriteError&) {
            throw;
        } catch (const std::exception& e) {
            r.after.reset();
            r.after_missing = e.what();
        }
    }
}

// The load with every replica's gauges recorded on one schedule, then each replica's after
// snapshot and its recording read back.
void FleetXray::record_load(const PreparedLoad& load, LoadRun& lr) {
    std::vector<std::unique_ptr<util::RecordFile>> files;
    std::vector<run::WatchTarget> targets;
    for (auto& r : reps_) {
        files.push_back(std::make_unique<util::RecordFile>(r.dir / "run.series.jsonl"));
        targets.push_back({.base_url = r.plan->url, .out = files.back().get(), .engine = engine_});
    }
    // Tick 0 of the schedule is now, on both clocks: the fleet's sum counts each reading in
    // the tick it was taken for.
    const run::WatchClock clock = run::system_watch_clock();
    const long long tick0 = clock.mono_ns();
    window_start_ = util::epoch_now();
    Recorder recorder([&](const std::atomic<bool>& stop) {
        try {
            run::watch_all(
                targets, {.interval_s = plan_.interval_s, .start_mono_ns = tick0}, stop,
                [](const std::string& url) { return run::default_scraper().scrape(url); },
                [this](const std::string& l) { note(l); });
        } catch (const std::exception& e) {
            note(fmt::format("the recording stopped: {}", e.what()));
        }
    });
    // T19: nvidia-smi on the fleet's GPUs, as xray on one server records it, with every
    // replica's process tree as the server's.
    const std::string smi = run::nvidia_smi_path();
    std::optional<util::RecordFile> gpu_file;
    if (util::is_executable_file(smi)) gpu_file.emplace(plan_.out / "gpu.jsonl");
    std::vector<int> roots;
    for (auto& r : reps_)
        if (r.server) roots.push_back(r.server->pid());
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
    lr = run_load(
        load.argv, plan_.out / "load.log", [this](const std::string& l) { say(l); }, load_limits());
    take_after_snapshots();
    window_end_ = util::epoch_now();
    recorder.stop();
    gpus.stop();
    if (gpu_file) {
        gpu_file->close();
        if (!*gpu_file && o_.write_error.empty()) o_.write_error = gpu_file->error();
        sources_.push_back("gpu.jsonl");
    }
    for (std::size_t i = 0; i < reps_.size(); ++i) {
        Replica& r = reps_[i];
        files[i]->close();
        if (!*files[i] && o_.write_error.empty()) o_.write_error = files[i]->error();
        add_file(r, "run.series.jsonl");
        try {
            r.recorded = read_series(r.dir / "run.series.jsonl");
        } catch (const std::exception& e) {
            note(fmt::format("the recording of replica {} cannot be read: {}", r.plan->name, e.what()));
        }
    }
}

}  // namespace inferlint::xray::detail
