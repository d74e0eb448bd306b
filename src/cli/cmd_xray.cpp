#include "output.hpp"
#include "registry.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "inferlint/run/xray.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iostream>

namespace inferlint::cli::xray_cmd {
namespace {

struct Opts {
    std::string out;
    std::vector<std::string> serve;
    std::vector<std::string> url;
    std::vector<std::string> boot_log;
    std::optional<checks::Requested> requested;
    std::string bench_result;
    std::optional<double> max_failed_share;  // --max-failed-share, as a fraction (T20)
    double interval_s = 0.25;
    double ready_timeout_s = 900.0;
    std::optional<double> load_timeout_s;
    bool no_probe = false;
    std::string title;
    std::vector<std::string> load;
};

std::string default_out() {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[64];
    std::strftime(buf, sizeof buf, "xray-%Y%m%d-%H%M%S", &local);
    return buf;
}

// Why a run did not complete, for the CI formats; empty when it did.
std::string xray_problem(const xray::Outcome& o) {
    if (!o.problem.empty()) return o.problem;
    if (o.interrupted_by) return fmt::format("the run was interrupted (signal {})", o.interrupted_by);
    if (o.load_exit && *o.load_exit != 0) return fmt::format("the load command exited with code {}", *o.load_exit);
    return "";
}

Shown xray_shown(const xray::Plan& plan, const xray::Outcome& outcome, const Common& common) {
    Shown shown;
    shown.verdicts.command = common.command;
    shown.verdicts.results = outcome.results;
    shown.verdicts.strict = plan.strict;
    shown.verdicts.problem = xray_problem(outcome);
    for (const auto& i : outcome.limits) shown.verdicts.limits.push_back(fmt::format("{}. {}", i.title, i.text));
    shown.json = xray::results_document(plan, outcome).dump(1, ' ', false, Json::error_handler_t::replace);
    shown.text = counts_summary(outcome.results) + "\n";
    if (outcome.report) shown.text += "report: " + outcome.report->string() + "\n";
    shown.text += "files:  " + plan.out.string() + "\n";
    return shown;
}

// One server (--serve, --url and --boot-log each at most once), or a fleet: --serve once per
// replica (with --url once per replica, or none), or --url once per replica (with
// --boot-log once per replica, or none).
void set_servers(xray::Plan& plan, const Opts& o) {
    const std::size_t n = std::max(o.serve.size(), o.url.size());
    if (n <= 1) {
        if (o.boot_log.size() > 1) throw InputError("xray: --boot-log is given more than once for one server");
        if (!o.url.empty()) plan.url = o.url.front();
        if (!o.serve.empty()) plan.serve = o.serve.front();
        if (!o.boot_log.empty()) plan.boot_log = o.boot_log.front();
        return;
    }
    if (!o.serve.empty() && o.serve.size() != n)
        throw InputError(
            fmt::format("xray: {} --serve and {} --url: give --serve once per replica, and --url once "
                        "per --serve or not at all",
                        o.serve.size(), o.url.size()));
    if (!o.serve.empty() && !o.boot_log.empty())
        throw InputError("xray: --boot-log is for servers already running; each --serve writes its own");
    if (!o.boot_log.empty() && o.boot_log.size() != n)
        throw InputError(
            fmt::format("xray: {} --url and {} --boot-log: give --boot-log once per --url (in the same "
                        "order), or not at all",
                        n, o.boot_log.size()));
    for (std::size_t i = 0; i < n; ++i) {
        xray::ReplicaPlan r;
        if (i < o.url.size()) r.url = o.url[i];
        if (i < o.serve.size()) r.serve = o.serve[i];
        if (i < o.boot_log.size()) r.boot_log = o.boot_log[i];
        plan.replicas.push_back(std::move(r));
    }
}

int xray_command(const Opts& o, const Common& common) {
    xray::Plan plan;
    plan.out = o.out.empty() ? default_out() : o.out;
    plan.load = o.load;
    if (!plan.load.empty() && plan.load.front() == "--") plan.load.erase(plan.load.begin());
    set_servers(plan, o);
    if (o.requested) plan.requested = o.requested->value();
    if (!o.bench_result.empty()) plan.bench_result = o.bench_result;
    plan.max_failed_share = o.max_failed_share;
    plan.interval_s = o.interval_s;
    plan.ready_timeout_s = o.ready_timeout_s;
    plan.load_timeout_s = o.load_timeout_s;
    plan.probe = !o.no_probe;
    if (!o.title.empty()) plan.title = o.title;
    plan.engine = common.engine;
    plan.strict = common.strictness();
    plan.only = common.only;
    if (common.format == report::Format::junit) plan.later_files.push_back("results.junit.xml");
    plan = xray::checked(std::move(plan));  // bad input: one line and exit 2, nothing started

    // With --json (or another document on stdout), stdout carries only that document;
    // progress goes to stderr.
    std::ostream& progress = common.machine() ? std::cerr : std::cout;
    const bool colour = common.colour;
    xray::Callbacks cb;
    cb.say = [&progress, colour](const std::string& line) { progress << paint(line, colour) << std::endl; };
    cb.note = [](const std::string& line) { std::cerr << line << std::endl; };
    xray::Outcome outcome = xray::run(plan, cb);
    Shown shown = xray_shown(plan, outcome, common);
    // JUnit also lands beside results.json, where a CI job collects the run's files.
    if (common.format == report::Format::junit)
        util::write_file_atomic(plan.out / "results.junit.xml", rendered(report::Format::junit, shown));
    show(shown, common);
    if (!outcome.write_error.empty()) std::cerr << "inferlint: " << outcome.write_error << std::endl;
    return xray::exit_code(outcome, plan.strict);
}

const Registrar reg{Command{
    .name = "xray",
    .group = Group::run,
    .order = 1,
    .summary = "start the server (optional), record it around the load command, check the run, write "
               "report.html, stop the server",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("-o,--out", o->out, "folder for every file of the run (default: xray-<time>)");
        app.add_option("--serve", o->serve,
                       "start the server with this command, e.g. \"vllm serve M\", \"sglang serve --model-path M "
                       "--enable-metrics\", \"trtllm-serve serve M --config llm_api.yaml\"; once per replica for a "
                       "fleet, each with its own --port")
            ->allow_extra_args(false);
        app.add_option("--url", o->url,
                       "the server's address (default: the --host and --port in --serve, else port 8000, or 30000 "
                       "for SGLang); once per replica for a fleet")
            ->allow_extra_args(false);
        app.add_option("--boot-log", o->boot_log,
                       "the running server's boot log (when not using --serve); once per --url for a fleet")
            ->allow_extra_args(false);
        add_requested_option(app, o->requested, "concurrency asked for (default: from the load)");
        app.add_option("--bench-result", o->bench_result, "the load tool's result file (default: found)");
        app.add_option("--load-result", o->bench_result,
                       "where the load command writes its result, file or folder, for a tool xray does not know "
                       "(docs/load-tools.md)");
        app.add_option("--interval", o->interval_s, "seconds between readings")
            ->default_val(0.25)
            ->check(CLI::Range(0.001, 3600.0));
        app.add_option("--ready-timeout", o->ready_timeout_s, "seconds to wait for boot")
            ->default_val(900.0)
            ->check(CLI::PositiveNumber);
        app.add_option("--load-timeout", o->load_timeout_s,
                       "seconds the load command may run; then its process group gets SIGTERM, SIGKILL after 5 s, "
                       "and the run did not complete (default: no limit)")
            ->check(CLI::Range(0.001, 1e9));
        app.add_flag("--no-probe", o->no_probe, "skip the 9 probe requests (T7)");
        add_max_failed_share_option(app, o->max_failed_share);
        app.add_option("--title", o->title, "report title");
        app.add_option("load", o->load, "-- the load command");
        add_http_options(app);
        return [o](const Common& common) -> int { return xray_command(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::xray_cmd
