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
#include "xray_stages.hpp"

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
        case Stage::engine:
            return "engine";
        case Stage::gpu:
            return "gpu";
        case Stage::start:
            return "start";
        case Stage::metrics:
            return "metrics";
        case Stage::boot_log:
            return "boot_log";
        case Stage::probe:
            return "probe";
        case Stage::load:
            return "load";
        case Stage::checks:
            return "checks";
        case Stage::stop:
            return "stop";
        case Stage::report:
            return "report";
    }
    return "";
}

Machine real_machine() {
    const std::string exe = run::nvidia_smi_path();
    const auto runner = run::system_runner();
    return {[exe, runner] { return run::read_gpu_used_mib(runner, exe); },
            [] {
                std::vector<int> pids;
                for (const auto& p :
                     run::server_processes(procfs::list_processes(run::proc_root()), static_cast<int>(::getpid())))
                    pids.push_back(p.pid);
                return pids;
            }};
}

namespace detail {

bool Xray::start_server() {
    stage(Stage::gpu);
    say("== is the GPU free?");
    CheckResult gate = detail::gpu_free(machine_, plan_.timings);
    if (cut()) return false;  // the gate was cut short: it decided nothing
    const bool free = gate.status == Status::pass;
    record_live(std::move(gate));
    if (!free) {
        o_.problem = "the GPU is not free; start no server on it";
        return false;
    }
    if (cut()) return false;
    stage(Stage::start);
    got_.boot_log = plan_.out / "boot.log";
    say(fmt::format("== start the server (output in {})", got_.boot_log->string()));
    server_ = std::make_unique<detail::Server>(shell_split(*plan_.serve).value_or(std::vector<std::string>{}),
                                               *got_.boot_log);
    if (!server_->started()) {
        o_.problem = "the server could not start: " + server_->error();
        return false;
    }
    auto wait = server_->wait_ready(*got_.boot_log, plan_.url, plan_.ready_timeout_s, plan_.timings,
                                    [this](const std::string& l) { say(l); });
    if (wait.state == detail::Server::Ready::ready) return true;
    if (cut()) return false;
    o_.problem = wait.why;
    for (const auto& r : boot_checks(read_log(*got_.boot_log), engine_)) say_verdict(r);
    got_.sources.push_back(got_.boot_log->filename().string());
    return false;
}

bool Xray::read_metrics(std::string& metrics_problem) {
    stage(Stage::metrics);
    ServedRead served = read_served(plan_.url, engine_, "the engine named is");
    metrics_problem = served.problem;
    o_.wrong_engine |= served.wrong_engine;
    if (served.found && !engine_) {
        set_engine(served.found);
        say(fmt::format("== engine: {} (from its metrics)", engine_->name));
    }
    return metrics_problem.empty();
}

bool Xray::read_boot_log() {
    stage(Stage::boot_log);
    say("== boot log");
    BootRead boot = read_boot(*got_.boot_log, plan_.out, plan_.url, engine_, "the engine named is", "the boot log");
    if (!boot.problem.empty()) {
        o_.problem = boot.problem;
        o_.wrong_engine |= boot.wrong_engine;
        return false;
    }
    got_.facts = std::move(boot.facts);
    o_.server_version = got_.facts->version();
    if (auto n = parse::untested_version(*got_.facts)) say("note: " + *n);
    for (const auto& r : boot_checks(boot.text, engine_)) say_verdict(r);
    got_.boot_log = boot.kept;
    got_.sources.push_back(got_.boot_log->filename().string());
    return true;
}

bool Xray::run_probe() {
    stage(Stage::probe);
    say("== probe: one request, then 8 at once");
    probe_job_ = std::make_shared<ProbeJob>();
    probe_thread_ = probe_on_thread(probe_job_, plan_.url);
    while (!probe_job_->done()) {
        if (cut()) return false;  // the thread is joined once the server is stopped
        detail::nap(0.02);
    }
    probe_thread_.join();
    record_live(std::move(*probe_job_->result));
    return true;
}

void RunStages::engine_stage(const std::optional<std::string>& serve) {
    o_.load_argv = plan_.load;
    stage(Stage::engine);
    const Engine* started = serve ? from_command(*serve) : nullptr;
    set_engine(plan_.engine);
    if (!engine_ && started) {
        set_engine(started);
        say(fmt::format("== engine: {} (from the --serve command)", engine_->name));
    } else if (engine_) {
        say(fmt::format("== engine: {}", engine_->name));
    }
}

void Xray::collect() {
    engine_stage(plan_.serve);
    if (plan_.serve) {
        if (!start_server()) return;
    } else {
        got_.boot_log = plan_.boot_log;
        if (!detail::healthy(plan_.url)) {
            o_.problem = fmt::format("no server answers at {}/health", plan_.url);
            return;
        }
    }
    if (cut()) return;
    std::string metrics_problem;
    read_metrics(metrics_problem);
    if (got_.boot_log && !read_boot_log()) return;
    if (!metrics_problem.empty()) {
        o_.problem = metrics_problem;
        return;
    }
    if (!o_.server_version) o_.server_version = detail::server_version(plan_.url);
    got_.live.server_version = got_.facts ? got_.facts->server_version : o_.server_version;
    if (cut()) return;
    if (plan_.probe && !run_probe()) return;
    if (cut()) return;
    if (!run_load_stage()) return;
    read_load_result();
    if (cut()) return;
    o_.completed = o_.problem.empty() && !o_.interrupted_by && o_.load_exit == 0;
}

void Xray::stop_server() {
    if (server_) {
        stage(Stage::stop);
        say("== stop the server");
        record_live(server_->stop(machine_, plan_.timings));
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

}  // namespace detail

Outcome run(const Plan& plan, const Callbacks& callbacks, const Machine& machine) {
    Outcome o;
    {
        detail::SignalGuard guard;
        if (plan.replicas.empty()) {
            detail::Xray x(plan, callbacks, machine, o);
            detail::drive(x, o);
        } else {
            detail::FleetXray x(plan, callbacks, machine, o);
            detail::drive(x, o);
        }
    }
    try {
        write_results(plan, o);
    } catch (const util::WriteError& e) {
        if (o.write_error.empty()) o.write_error = e.what();
    }
    return o;
}

int exit_code(const Outcome& o, Strict strict) {
    bool fail = false, warn = false, unknown = false;
    for (const auto& r : o.results) {
        fail |= r.status == Status::fail;
        warn |= r.status == Status::warn;
        unknown |= r.status == Status::unknown;
    }
    if (!o.write_error.empty()) return 2;
    if (o.interrupted_by) return 1;
    if (o.wrong_engine) return 2;
    if (!o.problem.empty() || (o.load_exit && *o.load_exit != 0) || fail) return 1;
    if (strict == Strict::yes && warn) return 1;
    if (unknown) return 2;
    return o.completed ? 0 : 1;
}

}  // namespace inferlint::xray
