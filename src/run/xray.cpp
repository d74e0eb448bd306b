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
#include <chrono>
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

Pipeline::Pipeline(const Plan& plan, const Callbacks& cb, const Machine& machine, Outcome& o)
    : plan_(plan), cb_(cb), machine_(machine), o_(o), fleet_(!plan.replicas.empty()) {
    if (!fleet_) {
        Slot s;
        s.url = plan.url;
        s.serve = plan.serve;
        s.boot_log = plan.boot_log;
        s.dir = plan.out;
        slots_.push_back(std::move(s));
    }
    for (const auto& p : plan.replicas) {
        Slot s;
        s.name = p.name;
        s.url = p.url;
        s.serve = p.serve;
        s.boot_log = p.boot_log;
        s.dir = plan.out / p.folder;
        s.folder = p.folder;
        s.prefix = p.folder + "/";
        slots_.push_back(std::move(s));
    }
}

Pipeline::~Pipeline() {
    for (auto& s : slots_)
        if (s.probe_thread.joinable()) s.probe_thread.detach();
}

std::vector<CheckResult> Pipeline::selected(const std::vector<CheckResult>& all) const {
    std::vector<CheckResult> out;
    for (const auto& r : all)
        if (shown(r)) out.push_back(r);
    return out;
}

bool Pipeline::cut() {
    if (!interrupted()) return false;
    if (!o_.interrupted_by) {
        o_.interrupted_by = detail::interrupt_signal();
        halt({fmt::format("interrupted ({})", signal_name(o_.interrupted_by))});
        if (!o_.stopped_at) o_.stopped_at = current_;
    }
    return true;
}

void Pipeline::engine_stage() {
    o_.load_argv = plan_.load;
    stage(Stage::engine);
    const std::optional<std::string>& serve = slots_.front().serve;
    const Engine* started = serve ? from_command(*serve) : nullptr;
    set_engine(plan_.engine);
    if (!engine_ && started) {
        set_engine(started);
        say(fmt::format("== engine: {} (from the --serve command)", engine_->name));
    } else if (engine_) {
        say(fmt::format("== engine: {}", engine_->name));
    }
}

void Pipeline::drive() {
    try {
        collect();
    } catch (const util::WriteError& e) {  // a file of the run could not be written (a full disk)
        halt({e.what()});
        if (o_.write_error.empty()) o_.write_error = e.what();
        o_.completed = false;
    } catch (const std::exception& e) {
        halt({e.what()});
        o_.completed = false;
    }
    // A run that stopped short says in which stage.
    if (!o_.stopped_at && (!o_.problem.empty() || o_.interrupted_by)) o_.stopped_at = current_;
    stop_servers();
    finish();
}

// The stages in order; each says whether the run goes on. A signal ends the run between
// them (and inside the ones that wait).
void Pipeline::collect() {
    engine_stage();
    if (fleet_) {
        say(fmt::format("== fleet: {} replicas, each recorded into its own folder under {}", slots_.size(),
                        plan_.out.string()));
        for (auto& s : slots_) {
            std::error_code ec;
            fs::create_directories(s.dir, ec);
            if (ec || !fs::is_directory(s.dir))
                throw util::WriteError(fmt::format("{}: cannot create the replica's folder", s.dir.string()));
        }
    }
    using StageFn = Step (Pipeline::*)();
    const StageFn first = slots_.front().serve ? &Pipeline::start : &Pipeline::attach;
    for (StageFn fn : {first, &Pipeline::read_servers, &Pipeline::probe, &Pipeline::load}) {
        if (cut()) return;
        Step step = (this->*fn)();
        if (cut()) return;
        if (step) {
            halt(*step);
            if (!step->recorded) return;
        }
    }
    read_load_result();
    if (cut()) return;
    o_.completed = o_.problem.empty() && !o_.interrupted_by && o_.load_exit == 0;
}

// Servers already running: each must answer /health.
Step Pipeline::attach() {
    for (auto& s : slots_)
        if (!detail::healthy(s.url)) return Halt{who(s) + fmt::format("no server answers at {}/health", s.url)};
    return std::nullopt;
}

// T2 at the card, then every server started before any is waited for: they boot side by side.
Step Pipeline::start() {
    stage(Stage::gpu);
    say("== is the GPU free?");
    CheckResult gate = detail::gpu_free(machine_, plan_.timings);
    if (cut()) return std::nullopt;  // the gate was cut short: it decided nothing
    const bool free = gate.status == Status::pass;
    record_live(std::move(gate));
    if (!free) return Halt{"the GPU is not free; start no server on it"};
    if (cut()) return std::nullopt;
    stage(Stage::start);
    for (auto& s : slots_) {
        s.boot_log = s.dir / "boot.log";
        say(fleet_ ? fmt::format("== start replica {} (output in {})", s.name, s.boot_log->string())
                   : fmt::format("== start the server (output in {})", s.boot_log->string()));
        s.server = std::make_unique<Server>(shell_split(*s.serve).value_or(std::vector<std::string>{}), *s.boot_log);
        if (fleet_) add_file(s, "boot.log");
        if (!s.server->started()) return Halt{who(s) + "the server could not start: " + s.server->error()};
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(plan_.ready_timeout_s);
    for (auto& s : slots_) {
        const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
        auto wait = s.server->wait_ready(*s.boot_log, s.url, std::max(0.001, left), plan_.timings,
                                         [this](const std::string& l) { say(l); });
        if (wait.state == Server::Ready::ready) continue;
        if (cut()) return std::nullopt;
        // What the log says of the failed start: said alone; a fleet's, under its replica.
        if (fleet_) {
            s.early = boot_checks(read_log(*s.boot_log), engine_);
        } else {
            for (const auto& r : boot_checks(read_log(*s.boot_log), engine_)) say_verdict(r);
            add_file(s, "boot.log");
        }
        return Halt{who(s) + wait.why};
    }
    return std::nullopt;
}

// Each server's metrics (the engine, when none was named), then each boot log. A boot log
// that is another engine's says more than the metrics, so it is read first of the two.
Step Pipeline::read_servers() {
    stage(Stage::metrics);
    const std::string_view engine_is =
        fleet_ && !plan_.engine ? "the engine of the first replica is" : "the engine named is";
    Step metrics;
    for (auto& s : slots_) {
        ServedRead served = read_served(s.url, engine_, engine_is);
        if (!served.problem.empty()) {
            metrics = Halt{served.wrong_engine ? served.problem : who(s) + served.problem, served.wrong_engine};
            break;
        }
        if (!engine_) {
            set_engine(served.found);
            say(fmt::format("== engine: {} (from its metrics)", engine_->name));
        }
    }
    if (Step boot = read_boot_logs()) return boot;
    if (metrics) return metrics;
    if (!o_.server_version) o_.server_version = detail::server_version(slots_.front().url);
    const Slot& first = slots_.front();
    live_.server_version = first.facts ? first.facts->server_version : o_.server_version;
    return std::nullopt;
}

Step Pipeline::read_boot_logs() {
    stage(Stage::boot_log);
    for (auto& s : slots_) {
        if (!s.boot_log) continue;
        if (!fleet_) say("== boot log");
        BootRead boot = read_boot(*s.boot_log, s.dir, s.url, engine_, fleet_ ? "the engine is" : "the engine named is",
                                  fleet_ ? fmt::format("the boot log of replica {}", s.name) : "the boot log");
        if (!boot.problem.empty()) return Halt{boot.problem, boot.wrong_engine};
        s.facts = std::move(boot.facts);
        if (!o_.server_version) o_.server_version = s.facts->version();
        if (&s == &slots_.front())
            if (auto n = parse::untested_version(*s.facts)) say("note: " + *n);
        if (!fleet_)
            for (const auto& r : boot_checks(boot.text, engine_)) say_verdict(r);
        s.boot_log = boot.kept;
        if (!fleet_ || boot.copied) add_file(s, "boot.log");
    }
    return std::nullopt;
}

// T7: each server probed on a thread of its own, so a signal need not wait for its requests.
Step Pipeline::probe() {
    if (!plan_.probe) return std::nullopt;
    stage(Stage::probe);
    say(fleet_ ? "== probe: one request, then 8 at once, on each replica" : "== probe: one request, then 8 at once");
    for (auto& s : slots_) {
        s.probe = std::make_shared<ProbeJob>();
        s.probe_thread = probe_on_thread(s.probe, s.url);
    }
    for (auto& s : slots_) {
        while (!s.probe->done()) {
            if (cut()) return std::nullopt;  // the threads are joined once the servers are stopped
            detail::nap(0.02);
        }
        s.probe_thread.join();
        if (!fleet_) record_live(*s.probe->result);  // a fleet's are its replicas' evidence
    }
    return std::nullopt;
}

// Every server this run started stopped (SIGTERM, then SIGKILL after the grace), then T2
// at the card; a probe cut short ends once its server is gone, and against a server this
// run did not start is left to its time limits.
void Pipeline::stop_servers() {
    std::vector<Server*> started;
    for (auto& s : slots_)
        if (s.server) started.push_back(s.server.get());
    if (!started.empty()) {
        stage(Stage::stop);
        say(started.size() == 1 ? "== stop the server" : fmt::format("== stop the {} servers", started.size()));
        std::vector<int> left;
        for (Server* s : started) {
            auto l = s->terminate(plan_.timings);
            left.insert(left.end(), l.begin(), l.end());
        }
        record_live(gpu_clear_after_stop(machine_, plan_.timings, left, started));
    }
    for (auto& s : slots_) {
        if (!s.probe_thread.joinable()) continue;
        if (s.server) {
            s.probe_thread.join();
        } else {
            s.probe_thread.detach();
        }
    }
    if (cut()) o_.completed = false;
}

}  // namespace detail

Outcome run(const Plan& plan, const Callbacks& callbacks, const Machine& machine) {
    Outcome o;
    {
        detail::SignalGuard guard;
        detail::Pipeline(plan, callbacks, machine, o).drive();
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
