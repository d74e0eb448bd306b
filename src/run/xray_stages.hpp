// One xray run's pipeline, on one server or a fleet. Private to src/run/xray*.cpp:
// xray.cpp holds the stages up to the probe, xray_stages.cpp the load, xray_judge.cpp the
// verdicts of one server, xray_fleet.cpp a fleet's.
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
#include "inferlint/util/files.hpp"
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
    std::optional<fs::path> path;  // the result file read
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

// Why a stage ends the run: what it says, and whether the server is another engine's.
// `recorded`: the load ran and was recorded; the run stops short after it, and is judged.
struct Halt {
    std::string why;
    bool wrong_engine = false;
    bool recorded = false;
};
// What a stage returns: nullopt to go on, else why the run stops there.
using Step = std::optional<Halt>;

// One server of the run. A run on one server is a fleet of one: its slot's folder is the
// run folder, its name is empty, and its messages name no replica.
struct Slot {
    std::string name;  // "127.0.0.1:8001" in a fleet; empty alone
    std::string url;
    std::optional<std::string> serve;
    std::optional<fs::path> boot_log;  // where its log is; its copy in the folder once read
    fs::path dir;                      // where its files go
    std::string folder;                // its folder's name under the run folder; empty alone
    std::string prefix;                // how the run's file list names its folder: "" or "folder/"
    std::unique_ptr<Server> server;
    std::optional<parse::BootFacts> facts;  // the log as it stood once the server was ready
    std::optional<Snapshot> before, after;
    std::string after_missing;  // why the after snapshot could not be taken
    std::optional<Series> recorded;
    std::shared_ptr<ProbeJob> probe;
    std::thread probe_thread;
    std::vector<CheckResult> early;  // a fleet's replica whose start failed: what its log says
    std::vector<std::string> files;  // written into its folder, as the run lists them
};

// The one pipeline of an xray run, on one server or a fleet: a list of stages over the
// slots, each returning a Step, then the servers stopped and the run judged.
class Pipeline {
public:
    Pipeline(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // The whole run: collect, then however that ended (a full disk or another exception
    // ends it too), the servers stopped and what was got judged and written out.
    void drive();

private:
    void collect();
    void stop_servers();
    void finish();
    // ---- the stages (xray.cpp, xray_stages.cpp) ----
    Step start();
    Step attach();
    Step read_servers();
    Step read_boot_logs();
    Step probe();
    Step load();
    Step load_ended(const LoadRun& lr);
    LoadRun record_load(const PreparedLoad& load);
    LoadLimits load_limits();
    void take_after_snapshots();
    Halt lost_in_load(const LoadRun& lr);
    void read_load_result();
    // ---- the judgement (xray_judge.cpp one server, xray_fleet.cpp a fleet) ----
    run::RunFileSet folder_files() const;
    void judge();
    void judge_fleet();
    void stopped_early();
    void write_fleet_records();
    void write_fleet_page(checks::RunEvidence fleet_ev, const checks::FleetVerdicts& v, const run::FleetWindow& w,
                          const Series& fleet_series);
    void show_and_write(const report::Report& rep);
    void list_files();

    // ---- what every stage shares ----
    void halt(const Halt& h) {
        o_.problem = h.why;
        o_.wrong_engine |= h.wrong_engine;
        if (h.recorded) o_.stopped_at = Stage::load;
    }
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
    std::vector<CheckResult> selected(const std::vector<CheckResult>& all) const;
    // A verdict as a stage makes it, said as progress.
    void say_verdict(const CheckResult& r) {
        if (shown(r)) say(terminal_line(r));
    }
    // A verdict only the live run can give (T2, and T7 on one server): said, and kept.
    void record_live(CheckResult r) {
        say_verdict(r);
        live_.verdicts.push_back(std::move(r));
    }
    // True (and the outcome says so) once a signal has been caught.
    bool cut();
    void set_engine(const Engine* e) {
        engine_ = e;
        if (e) o_.engine = e->key;
    }
    // The engine named, else the one the first --serve starts, said as the run begins.
    void engine_stage();
    // How a message names a slot: "replica NAME: " in a fleet, nothing alone.
    std::string who(const Slot& s) const { return fleet_ ? fmt::format("replica {}: ", s.name) : std::string(); }
    void add_file(Slot& s, const std::string& name) {
        const std::string f = s.prefix + name;
        if (std::find(s.files.begin(), s.files.end(), f) == s.files.end()) s.files.push_back(f);
    }

    const Plan& plan_;
    const Callbacks& cb_;
    const Machine& machine_;
    Outcome& o_;
    const Engine* engine_ = nullptr;
    Stage current_ = Stage::engine;
    bool fleet_ = false;
    std::vector<Slot> slots_;
    run::LiveRecord live_;  // the card's T2 (and, on one server, T7), and the load's facts
    std::optional<PreparedLoad> prepared_;
    std::optional<LoadFound> load_;
    fs::file_time_type load_started_{};
    double window_start_ = 0, window_end_ = 0;  // wall clock, around the recording
    bool recorded_ = false;                     // the load ran, with snapshots on both sides
    std::vector<std::string> sources_;          // the run folder's own files, for the page
};

}  // namespace inferlint::xray::detail
