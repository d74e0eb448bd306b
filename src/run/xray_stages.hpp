// One xray run's stages and what they gather. Private to src/run/xray*.cpp: xray.cpp
// holds the stages up to the probe, xray_stages.cpp the load, the checks and the page.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/xray.hpp"
#include "xray_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// What the run has gathered: the evidence its verdicts and its page are made of.
struct Gathered {
    std::optional<fs::path> boot_log;
    std::optional<parse::BootFacts> facts;        // the log as it stood once the server was ready
    std::optional<checks::RunEvidence> evidence;   // what the run's checks ran on (the log re-read after the load)
    std::optional<double> boot_s;
    std::optional<Snapshot> before, after;
    std::optional<Series> recorded;
    std::optional<BenchResult> bench;
    std::optional<long long> requested;
    std::optional<long long> usable_blocks;  // from a passing T14
    std::optional<fs::path> result_path;     // where the load tool was asked to save its result
    fs::file_time_type load_started{};
    std::vector<std::string> sources;  // the files the run wrote or read, for the page
};

// The probe runs on a thread of its own so a signal need not wait for its requests.
struct ProbeJob {
    std::mutex mu;
    std::optional<CheckResult> result;
};

class Xray {
public:
    Xray(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o)
        : plan_(plan), cb_(cb), machine_(machine), o_(o) {}
    ~Xray() {
        if (probe_thread_.joinable()) probe_thread_.detach();
    }
    Xray(const Xray&) = delete;
    Xray& operator=(const Xray&) = delete;

    void collect();
    // After collect: a run that stopped short says in which stage.
    void mark_stopped() {
        if (!o_.stopped_at && (!o_.problem.empty() || o_.interrupted_by)) o_.stopped_at = current_;
    }
    void stop_server();
    void finish();

private:
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
    void record(CheckResult r) {
        if (plan_.only && std::find(plan_.only->begin(), plan_.only->end(), r.tripwire) == plan_.only->end()) return;
        say(terminal_line(r));
        o_.results.push_back(std::move(r));
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

    bool start_server();
    bool read_metrics(std::string& metrics_problem);
    bool read_boot_log();
    bool run_probe();
    bool run_load_stage();
    std::optional<std::string> record_load(const PreparedLoad& load, LoadRun& lr);
    void read_load_result();
    void run_checks();
    checks::RunEvidence evidence() const;
    checks::RunVerdicts verdicts() const;
    void finish_files();

    const Plan& plan_;
    const Callbacks& cb_;
    const Machine& machine_;
    Outcome& o_;

    std::unique_ptr<detail::Server> server_;
    std::shared_ptr<ProbeJob> probe_job_;
    std::thread probe_thread_;
    const Engine* engine_ = nullptr;
    Stage current_ = Stage::engine;
    Gathered got_;
};

}  // namespace inferlint::xray::detail
