// One xray run's stages and what they gather. Private to src/run/xray*.cpp: xray.cpp
// holds the stages up to the probe, xray_stages.cpp the load, the checks and the page.
#pragma once

#include "inferlint/checks/fleet.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/judge.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/probe.hpp"
#include "inferlint/run/prometheus.hpp"
#include "inferlint/run/xray.hpp"
#include "inferlint/util/error.hpp"
#include "xray_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <csignal>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace inferlint::xray::detail {

inline std::string read_log(const fs::path& p) { return util::read_file(p, util::AllowEmpty::yes); }

// The start the log tells of, with the config.json of the local model folder it names
// (T17 reads the cause of an unasked KV dtype there, as check-log and report do).
inline checks::BootStart boot_start(const std::string& text, const Engine* engine) {
    checks::BootStart start{"boot.log", parse::parse_boot_log(text, engine), parse::classify_failure(text)};
    start.model_config = run::model_config_named_in(start.facts);
    return start;
}

inline std::vector<CheckResult> boot_checks(const std::string& text, const Engine* engine) {
    return checks::check_boots({boot_start(text, engine)}, checks::UnparsedLines::ignore);
}

// The load tool's result and the concurrency asked for: --bench-result, else where the
// tool was asked to save it (`asked`), else the newest JSON its --result-dir got since
// `started`; --requested, else the load's --max-concurrency, else the result's.
struct LoadFound {
    std::optional<BenchResult> bench;
    std::optional<long long> requested;
    std::optional<std::string> source;  // the result file's name, for the page
    std::optional<fs::path> path;       // the result file read
};
LoadFound find_load_result(const Plan& plan, const std::vector<std::string>& argv, const std::optional<fs::path>& asked,
                           fs::file_time_type started, const Say& say);

// The server at `url` read once: the engine its metrics are, or why the run stops there
// (unreadable, or another engine's than `engine`: wrong_engine). `engine_is` begins the
// message ("the engine named is").
struct ServedRead {
    const Engine* found = nullptr;
    std::string problem;  // empty: read
    bool wrong_engine = false;
};
ServedRead read_served(const std::string& url, const Engine* engine, std::string_view engine_is);

// A server's boot log once it is ready: its facts (with the version the server gives over
// HTTP where the log has none), kept in `folder` as boot.log; or why the run stops (another
// engine's log: "<engine_is> X, but <log_words> is Y's").
struct BootRead {
    std::string text;
    std::optional<parse::BootFacts> facts;
    fs::path kept;        // the log in the run's folder
    bool copied = false;  // written there now (the server was running before the run)
    std::string problem;
    bool wrong_engine = false;
};
BootRead read_boot(const fs::path& log, const fs::path& folder, const std::string& url, const Engine* engine,
                   std::string_view engine_is, std::string_view log_words);

// What the load command and its load.log say for the checks: why its prompts are unique
// (T16), and the requests its client left untimed (T15, with a result and both snapshots).
void add_load_evidence(checks::RunEvidence& ev, const Plan& plan, const std::vector<std::string>& argv);

// What one server's run has recorded: the files in its folder, and what only the live
// run knows (run::LiveRecord), from which the run is judged once (run::load_judged).
struct Gathered {
    std::optional<fs::path> boot_log;
    std::optional<parse::BootFacts> facts;  // the log as it stood once the server was ready
    bool before = false, after = false;     // the snapshots written into the folder
    run::LiveRecord live;
    fs::file_time_type load_started{};
    std::optional<fs::path> result_path;  // where the load tool was asked to save its result
    std::vector<std::string> sources;     // the files the run wrote or read, for the page
};

// The probe runs on a thread of its own so a signal need not wait for its requests.
struct ProbeJob {
    std::mutex mu;
    std::optional<CheckResult> result;
    bool done() {
        std::lock_guard g(mu);
        return result.has_value();
    }
};

// Starts the probe of the server at url on a thread that fills in `job` (T7; Can't tell
// when the probe itself throws).
inline std::thread probe_on_thread(const std::shared_ptr<ProbeJob>& job, const std::string& url) {
    return std::thread([job, url] {
        CheckResult r;
        try {
            r = run::probe(url);
        } catch (const std::exception& e) {
            r = {TripwireId::T7, Status::unknown, e.what(), Json::object()};
        }
        std::lock_guard g(job->mu);
        job->result = std::move(r);
    });
}

// A recording on a thread of its own, `body` given the flag that ends it: stopped and
// joined by stop(), or however the scope ends.
class Recorder {
public:
    explicit Recorder(std::function<void(const std::atomic<bool>&)> body)
        : thread_([this, b = std::move(body)] { b(stop_); }) {}
    ~Recorder() { stop(); }
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;
    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// What every run shares, one server's or a fleet's: its plan, callbacks and outcome, the
// stage in progress, the engine, and the signal that cuts it short.
class RunStages {
public:
    RunStages(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o)
        : plan_(plan), cb_(cb), machine_(machine), o_(o) {}
    RunStages(const RunStages&) = delete;
    RunStages& operator=(const RunStages&) = delete;

    // After collect: a run that stopped short says in which stage.
    void mark_stopped() {
        if (!o_.stopped_at && (!o_.problem.empty() || o_.interrupted_by)) o_.stopped_at = current_;
    }

protected:
    void say(const std::string& line) {
        if (cb_.say) cb_.say(line);
    }
    void note(const std::string& line) {
        if (cb_.note) cb_.note(line);
    }
    void stage(Stage s) {
        current_ = s;
        if (cb_.on_stage) cb_.on_stage(s);
    }
    // The tripwires the plan reports (--tripwires).
    bool shown(const CheckResult& r) const {
        return !plan_.only || std::find(plan_.only->begin(), plan_.only->end(), r.tripwire) != plan_.only->end();
    }
    // True (and the outcome says so) once a signal has been caught.
    bool cut() {
        if (!interrupted()) return false;
        if (!o_.interrupted_by) {
            o_.interrupted_by = detail::interrupt_signal();
            o_.problem = fmt::format("interrupted ({})", signal_name(o_.interrupted_by));
            if (!o_.stopped_at) o_.stopped_at = current_;
        }
        return true;
    }
    void set_engine(const Engine* e) {
        engine_ = e;
        if (e) o_.engine = e->key;
    }
    // The engine named, else the one the first --serve starts, said as the run begins.
    void engine_stage(const std::optional<std::string>& serve);
    // How the load command ended, into the outcome; false when the run stops there (it
    // could not start, a signal, --load-timeout).
    bool load_ended(const LoadRun& lr);
    // What limited the run, said and kept; the page written as report.html (a full disk is
    // the outcome's write_error, said once at the end).
    void show_and_write(const report::Report& rep);

    const Plan& plan_;
    const Callbacks& cb_;
    const Machine& machine_;
    Outcome& o_;
    const Engine* engine_ = nullptr;
    Stage current_ = Stage::engine;
};

class Xray : public RunStages {
public:
    using RunStages::RunStages;
    ~Xray() {
        if (probe_thread_.joinable()) probe_thread_.detach();
    }

    void collect();
    void stop_server();
    void finish();

private:
    // A verdict as a stage makes it, said as progress; the run's verdicts are made once,
    // from the folder, by judge().
    void say_verdict(const CheckResult& r) {
        if (shown(r)) say(terminal_line(r));
    }
    // A verdict only the live run can give (T2, T7): said, and kept in the live record.
    void record_live(CheckResult r) {
        say_verdict(r);
        got_.live.verdicts.push_back(std::move(r));
    }

    bool start_server();
    bool read_metrics(std::string& metrics_problem);
    bool read_boot_log();
    bool run_probe();
    bool run_load_stage();
    std::optional<std::string> record_load(const PreparedLoad& load, LoadRun& lr);
    void read_load_result();
    run::RunFileSet folder_files() const;
    void judge();
    void finish_files();

    std::unique_ptr<detail::Server> server_;
    std::shared_ptr<ProbeJob> probe_job_;
    std::thread probe_thread_;
    Gathered got_;
};

// xray on two or more servers (xray_fleet.cpp): each started (or found answering), read,
// probed and recorded into a folder of its own on one schedule around the one load
// command, then checked per replica and as a fleet (checks::check_fleet) once every server
// it started is stopped, so the fleet's T2 is the card's after the last of them.
class FleetXray : public RunStages {
public:
    FleetXray(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o);
    ~FleetXray();

    void collect();
    void stop_server();
    void finish();

private:
    struct Replica {
        const ReplicaPlan* plan = nullptr;
        fs::path dir;
        std::unique_ptr<Server> server;
        std::optional<fs::path> boot_log;  // in its folder
        std::optional<parse::BootFacts> facts;
        std::optional<Snapshot> before, after;
        std::string after_missing;
        std::optional<Series> recorded;
        std::shared_ptr<ProbeJob> probe;
        std::thread probe_thread;
        std::vector<CheckResult> early;  // a start that failed: what its log says
        std::vector<std::string> files;  // written into its folder, as "folder/name"
    };
    bool start_servers();
    bool read_metrics();
    bool read_boot_logs();
    bool run_probes();
    bool run_load_stage();
    void record_load(const PreparedLoad& load, LoadRun& lr);
    LoadLimits load_limits();
    void take_after_snapshots();
    void check_and_show();
    checks::RunEvidence fleet_evidence(const run::FleetWindow& w, const Series& fleet_series,
                                       const std::vector<checks::ReplicaEvidence>& replicas);
    void stopped_early();
    void write_page(checks::RunEvidence fleet_ev, const checks::FleetVerdicts& v, const run::FleetWindow& w,
                    const Series& fleet_series);
    void add_file(Replica& r, const std::string& name) { r.files.push_back(r.plan->folder + "/" + name); }
    std::vector<CheckResult> selected(const std::vector<CheckResult>& all) const;

    std::vector<Replica> reps_;
    std::vector<CheckResult> live_;  // the card's T2, before the starts and after the stop
    std::optional<LoadFound> load_;
    std::optional<PreparedLoad> prepared_;
    fs::file_time_type load_started_{};
    double window_start_ = 0, window_end_ = 0;  // wall clock, around the recording
    bool recorded_ = false;                     // the load ran, with snapshots on both sides
    std::vector<std::string> sources_;          // the run's own files, for the page
};

// Runs a run's stages (Xray or FleetXray): collect, then however that ended, the servers
// stopped and what was got written out. A full disk or another exception ends collect.
template <class Run>
void drive(Run& x, Outcome& o) {
    try {
        x.collect();
    } catch (const util::WriteError& e) {  // a file of the run could not be written (a full disk)
        o.problem = e.what();
        if (o.write_error.empty()) o.write_error = e.what();
        o.completed = false;
    } catch (const std::exception& e) {
        o.problem = e.what();
        o.completed = false;
    }
    x.mark_stopped();
    x.stop_server();
    x.finish();
}

}  // namespace inferlint::xray::detail
