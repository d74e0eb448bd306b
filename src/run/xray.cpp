// The stages of an xray run. A run cut short (a failed step, a signal) keeps what it has
// recorded, and a server it started is always stopped.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/parse/procfs.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/probe.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/process.hpp"
#include "xray_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace inferlint::xray {

std::string_view stage_name(Stage s) {
    switch (s) {
        case Stage::engine: return "engine";
        case Stage::gpu: return "gpu";
        case Stage::start: return "start";
        case Stage::metrics: return "metrics";
        case Stage::boot_log: return "boot_log";
        case Stage::probe: return "probe";
        case Stage::load: return "load";
        case Stage::checks: return "checks";
        case Stage::stop: return "stop";
        case Stage::report: return "report";
    }
    return "";
}

Machine real_machine() {
    const std::string exe = run::nvidia_smi_path();
    const auto runner = run::system_runner();
    return {[exe, runner] { return run::read_gpu_used_mib(runner, exe); },
            [] {
                std::vector<int> pids;
                for (const auto& p : run::server_processes(procfs::list_processes(run::proc_root()),
                                                           static_cast<int>(::getpid())))
                    pids.push_back(p.pid);
                return pids;
            }};
}

namespace {

using detail::interrupted;

std::string read_log(const fs::path& p) { return util::read_file(p, util::AllowEmpty::yes); }

checks::BootStart boot_start(const std::string& text, const Engine* engine) {
    return {"boot.log", parse::parse_boot_log(text, engine), parse::classify_failure(text)};
}

std::vector<CheckResult> boot_checks(const std::string& text, const Engine* engine) {
    return checks::check_boots({boot_start(text, engine)}, checks::UnparsedLines::ignore);
}

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
        if (cb_.on_stage) cb_.on_stage(s);
    }
    void record(CheckResult r) {
        say(terminal_line(r));
        o_.results.push_back(std::move(r));
    }
    // True (and the outcome says so) once a signal has been caught.
    bool cut() {
        if (!interrupted()) return false;
        if (!o_.interrupted_by) {
            o_.interrupted_by = detail::interrupt_signal();
            o_.problem = fmt::format("interrupted ({})", sigabbrev(o_.interrupted_by));
        }
        return true;
    }
    static std::string sigabbrev(int sig) {
        if (sig == SIGINT) return "SIGINT";
        if (sig == SIGTERM) return "SIGTERM";
        if (sig == SIGHUP) return "SIGHUP";
        return fmt::format("signal {}", sig);
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
    void run_checks();
    checks::RunEvidence evidence() const;
    checks::RunVerdicts verdicts() const;

    const Plan& plan_;
    const Callbacks& cb_;
    const Machine& machine_;
    Outcome& o_;

    std::unique_ptr<detail::Server> server_;
    std::shared_ptr<ProbeJob> probe_job_;
    std::thread probe_thread_;
    const Engine* engine_ = nullptr;
    std::optional<fs::path> boot_log_;
    std::optional<parse::BootFacts> facts_;
    std::optional<Snapshot> before_, after_;
    std::optional<Series> recorded_;
    std::optional<BenchResult> bench_;
    std::optional<long long> requested_;
    std::optional<checks::BootStart> final_boot_;  // the log re-read after the load
    std::optional<double> boot_s_;
    std::optional<long long> usable_blocks_;
    std::optional<fs::path> result_path_;
    fs::file_time_type load_started_{};
    std::vector<std::string> sources_;
};

bool Xray::start_server() {
    stage(Stage::gpu);
    say("== is the GPU free?");
    CheckResult gate = detail::gpu_free(machine_, plan_.timings);
    const bool free = gate.status == Status::pass;
    record(std::move(gate));
    if (!free) {
        o_.problem = "the GPU is not free; start no server on it";
        return false;
    }
    if (cut()) return false;
    stage(Stage::start);
    boot_log_ = plan_.out / "boot.log";
    say(fmt::format("== start the server (output in {})", boot_log_->string()));
    server_ = std::make_unique<detail::Server>(shell_split(*plan_.serve).value_or(std::vector<std::string>{}),
                                               *boot_log_);
    if (!server_->started()) {
        o_.problem = "the server could not start: " + server_->error();
        return false;
    }
    auto wait = server_->wait_ready(*boot_log_, plan_.url, plan_.ready_timeout_s, plan_.timings,
                                    [this](const std::string& l) { say(l); });
    if (wait.state == detail::Server::Ready::ready) return true;
    if (cut()) return false;
    o_.problem = wait.why;
    for (auto& r : boot_checks(read_log(*boot_log_), engine_)) record(std::move(r));
    sources_.push_back(boot_log_->filename().string());
    return false;
}

bool Xray::read_metrics(std::string& metrics_problem) {
    stage(Stage::metrics);
    auto served = run::served_snapshot(plan_.url, engine_);
    if (!served.snapshot) {
        metrics_problem = served.error;
    } else if (engine_ && served.found != engine_) {
        metrics_problem =
            fmt::format("the engine named is {}, but the server at {} is {}'s", engine_->name, plan_.url,
                        served.found->name);
        o_.wrong_engine = true;
    } else if (!engine_) {
        set_engine(served.found);
        say(fmt::format("== engine: {} (from its metrics)", engine_->name));
    }
    return metrics_problem.empty();
}

bool Xray::read_boot_log() {
    stage(Stage::boot_log);
    say("== boot log");
    const std::string text = read_log(*boot_log_);
    const Engine* found = from_log(text);
    if (engine_ && found && found != engine_) {
        o_.problem = fmt::format("the engine named is {}, but the boot log is {}'s", engine_->name, found->name);
        o_.wrong_engine = true;
        return false;
    }
    facts_ = parse::parse_boot_log(text, engine_);
    if (!facts_->vllm_version) facts_->server_version = detail::server_version(plan_.url);  // SGLang prints none
    o_.server_version = facts_->version();
    if (auto n = parse::untested_version(*facts_)) say("note: " + *n);
    for (auto& r : boot_checks(text, engine_)) record(std::move(r));
    // Attached to a running server: the run folder keeps a copy of the log it was checked
    // on, as boot.log, so `inferlint report DIR` finds it later.
    const fs::path kept = plan_.out / "boot.log";
    std::error_code ec;
    if (!fs::equivalent(*boot_log_, kept, ec)) {
        util::write_file(kept, text);
        boot_log_ = kept;
    }
    sources_.push_back(boot_log_->filename().string());
    return true;
}

bool Xray::run_probe() {
    stage(Stage::probe);
    say("== probe: one request, then 8 at once");
    probe_job_ = std::make_shared<ProbeJob>();
    probe_thread_ = std::thread([job = probe_job_, url = plan_.url] {
        CheckResult r;
        try {
            r = run::probe(url);
        } catch (const std::exception& e) {
            r = {"T7", Status::unknown, e.what(), Json::object()};
        }
        std::lock_guard g(job->mu);
        job->result = std::move(r);
    });
    for (;;) {
        {
            std::lock_guard g(probe_job_->mu);
            if (probe_job_->result) break;
        }
        if (cut()) return false;  // the thread is joined once the server is stopped
        detail::nap(0.02);
    }
    probe_thread_.join();
    record(std::move(*probe_job_->result));
    return true;
}

bool Xray::run_load_stage() {
    stage(Stage::load);
    const fs::path& out = plan_.out;
    try {
        before_ = run::default_scraper().scrape(plan_.url);
    } catch (const std::exception& e) {
        o_.problem = fmt::format("cannot read the server's metrics: {}", e.what());
        return false;
    }
    before_->save(out / "before.snapshot.json");
    sources_.push_back("before.snapshot.json");
    PreparedLoad load = prepare_load(plan_.load, out);
    o_.load_argv = load.argv;
    result_path_ = load.result;

    const fs::path series_path = out / "run.series.jsonl";
    std::ofstream series_file(series_path, std::ios::out | std::ios::trunc | std::ios::binary);
    std::atomic<bool> stop_watch{false};
    std::thread watcher;
    // The recording ends with the load, however the load ends.
    struct StopWatch {
        std::atomic<bool>& stop;
        std::thread& t;
        ~StopWatch() {
            stop = true;
            if (t.joinable()) t.join();
        }
    } stop_watch_on_exit{stop_watch, watcher};
    watcher = std::thread([&] {
        try {
            run::watch(plan_.url, series_file, {.interval_s = plan_.interval_s}, stop_watch,
                       [](const std::string& url) { return run::default_scraper().scrape(url); },
                       [this](const std::string& l) { note(l); }, engine_);
        } catch (const std::exception& e) {
            note(fmt::format("the recording stopped: {}", e.what()));
        }
    });
    say("== load: " + util::shell_join(load.argv));
    load_started_ = fs::file_time_type::clock::now();
    detail::LoadRun lr = detail::run_load(load.argv, out / "load.log", [this](const std::string& l) { say(l); },
                                          plan_.timings.load_grace_s);
    std::string after_error;
    try {
        after_ = run::default_scraper().scrape(plan_.url);
        after_->save(out / "after.snapshot.json");
        sources_.push_back("after.snapshot.json");
    } catch (const std::exception& e) {
        after_error = e.what();
    }
    stop_watch = true;
    watcher.join();
    series_file.close();
    sources_.push_back(series_path.filename().string());
    try {
        recorded_ = read_series(series_path);
    } catch (const std::exception& e) {
        note(fmt::format("the recording cannot be read: {}", e.what()));
    }
    if (!lr.error.empty()) {
        o_.problem = "the load command could not start: " + lr.error;
        return false;
    }
    o_.load_exit = lr.exit_status;
    if (o_.load_exit && *o_.load_exit != 0) say(fmt::format("the load command exited with code {}", *o_.load_exit));
    if (cut()) return false;
    if (!after_error.empty()) {
        o_.problem = fmt::format("the server stopped answering during the load: {}", after_error);
        // A server that died serving says why in its log (T7), unless it was killed outright.
        if (boot_log_) {
            auto failure = parse::classify_failure(read_log(*boot_log_));
            if (failure) record(checks::check_boot_failure(failure));
        }
    }
    return true;
}

void Xray::run_checks() {
    const auto& argv = o_.load_argv;
    std::optional<fs::path> path = plan_.bench_result ? plan_.bench_result : result_path_;
    if (!path && load_client(argv))
        path = newest_json(flag_value(argv, "--result-dir").value_or("."), load_started_);
    std::error_code ec;
    if (path && fs::is_regular_file(*path, ec)) {
        try {
            bench_ = load_bench_result(*path);
            sources_.push_back(path->filename().string());
        } catch (const InputError& e) {
            say(fmt::format("note: the load tool's result is not used: {}", e.what()));
        }
    }
    requested_ = plan_.requested ? plan_.requested : load_concurrency(argv);
    if (!requested_ && bench_) requested_ = bench_->max_concurrency;

    checks::RunEvidence ev = evidence();
    if (boot_log_ && facts_) {
        // The server's log now covers the run too (TensorRT-LLM logs its pauses there).
        try {
            final_boot_ = run::read_boot_start(*boot_log_, "boot.log", engine_, {}, &boot_s_);
        } catch (const InputError&) {
            // Emptied or cut since the boot (a rotated log): what the text now says.
            final_boot_ = boot_start(read_log(*boot_log_), engine_);
        }
        final_boot_->facts.server_version = facts_->server_version;
        ev.boots = {*final_boot_};
    }
    if (cut()) return;
    stage(Stage::checks);
    say("== checks");
    checks::RunVerdicts load = checks::check_load(ev);
    usable_blocks_ = load.usable_blocks;
    for (auto& r : load.results) {
        if (cut()) return;
        record(r.tripwire == "T10" ? checks::with_timer_comparison(std::move(r)) : std::move(r));
    }
    if (auto t15 = checks::check_client_server(ev)) record(std::move(*t15));
    cut();
}

checks::RunEvidence Xray::evidence() const {
    checks::RunEvidence ev;
    ev.named_engine = engine_;
    ev.before = before_;
    ev.after = after_;
    if (recorded_) ev.series = summarize(*recorded_);
    ev.bench = bench_;
    if (requested_) ev.requested = checks::Requested::of(*requested_);
    if (bench_ && before_ && after_ && load_client(o_.load_argv)) {
        try {
            ev.untimed_requests = untimed_requests_in(plan_.out / "load.log");
        } catch (const InputError&) {
        }
    }
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
    v.usable_blocks = usable_blocks_;
    return v;
}

void Xray::collect() {
    o_.load_argv = plan_.load;
    stage(Stage::engine);
    const Engine* started = plan_.serve ? from_command(*plan_.serve) : nullptr;
    set_engine(plan_.engine);
    if (!engine_ && started) {
        set_engine(started);
        say(fmt::format("== engine: {} (from the --serve command)", engine_->name));
    } else if (engine_) {
        say(fmt::format("== engine: {}", engine_->name));
    }
    if (plan_.serve) {
        if (!start_server()) return;
    } else {
        boot_log_ = plan_.boot_log;
        if (!detail::healthy(plan_.url)) {
            o_.problem = fmt::format("no server answers at {}/health", plan_.url);
            return;
        }
    }
    if (cut()) return;
    std::string metrics_problem;
    read_metrics(metrics_problem);
    if (boot_log_ && !read_boot_log()) return;
    if (!metrics_problem.empty()) {
        o_.problem = metrics_problem;
        return;
    }
    if (!o_.server_version) o_.server_version = detail::server_version(plan_.url);
    if (cut()) return;
    if (plan_.probe && !run_probe()) return;
    if (cut()) return;
    if (!run_load_stage()) return;
    run_checks();
    o_.completed = o_.problem.empty() && !o_.interrupted_by && o_.load_exit == 0;
}

void Xray::stop_server() {
    if (server_) {
        stage(Stage::stop);
        say("== stop the server");
        record(server_->stop(machine_, plan_.timings));
    }
    // A probe cut short: its requests end once the server is gone; against a server this
    // run did not start, they are left to their time limits.
    if (probe_thread_.joinable()) {
        if (server_) {
            probe_thread_.join();
        } else {
            probe_thread_.detach();
        }
    }
    if (cut()) o_.completed = false;
}

void Xray::finish() {
    if (!o_.problem.empty()) say(o_.problem);
    if (boot_log_ || (before_ && after_)) {
        stage(Stage::report);
        try {
            checks::RunEvidence ev = evidence();
            if (final_boot_) {
                ev.boots = {*final_boot_};
            } else if (boot_log_) {
                auto start = run::read_boot_start(*boot_log_, "boot.log", engine_, {}, &boot_s_);
                if (facts_ && !start->facts.vllm_version) start->facts.server_version = facts_->server_version;
                ev.boots = {std::move(*start)};
            }
            report::PageInfo page{plan_.title, util::local_time_text(), sources_};
            report::Report rep =
                report::build_report(std::move(ev), verdicts(), recorded_, boot_s_, std::move(page));

            o_.limits = report::limits(rep);
            if (!o_.limits.empty()) {
                say("== what limited this run");
                for (const auto& i : o_.limits) say(fmt::format("- {}. {}", i.title, i.text));
            }
            const fs::path html = plan_.out / "report.html";
            util::write_file(html, report::render_report_html(rep));
            o_.report = html;
        } catch (const std::exception& e) {
            note(fmt::format("inferlint: no report: {}", e.what()));
        }
    }
    o_.files = sources_;
    std::error_code ec;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) o_.files.push_back("load.log");
    if (o_.report) o_.files.push_back("report.html");
    o_.files.push_back("results.json");
}

}  // namespace

Outcome run(const Plan& plan, const Callbacks& callbacks, const Machine& machine) {
    Outcome o;
    {
        detail::SignalGuard guard;
        Xray x(plan, callbacks, machine, o);
        try {
            x.collect();
        } catch (const std::exception& e) {
            o.problem = e.what();
            o.completed = false;
        }
        x.stop_server();
        x.finish();
    }
    write_results(plan, o);
    return o;
}

int exit_code(const Outcome& o, Strict strict) {
    bool fail = false, warn = false, unknown = false;
    for (const auto& r : o.results) {
        fail |= r.status == Status::fail;
        warn |= r.status == Status::warn;
        unknown |= r.status == Status::unknown;
    }
    if (o.interrupted_by) return 1;
    if (o.wrong_engine) return 2;
    if (!o.problem.empty() || (o.load_exit && *o.load_exit != 0) || fail) return 1;
    if (strict == Strict::yes && warn) return 1;
    if (unknown) return 2;
    return o.completed ? 0 : 1;
}

}  // namespace inferlint::xray
