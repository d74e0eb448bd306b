// `inferlint report [RUN_FOLDER] [-o FILE] [--boot-log LOG ...] [--before B] [--after A]
// [--series S] [--bench-result R] [--requested N] [--title T] [--unique-prompts]`: every
// tripwire the run's files allow, printed, and one offline HTML page. Files named on the
// command line win over the ones found in the folder.
#include "fleet_input.hpp"

#include "inferlint/run/fleet_page.hpp"
#include "inferlint/run/prometheus_dcgm.hpp"
#include "output.hpp"
#include "registry.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/report/insights.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/judge.hpp"
#include "inferlint/run/judge_fleet.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace inferlint::cli::report_cmd {
namespace {

namespace fs = std::filesystem;

struct Opts {
    std::string run, out, before, after, series, bench_result, title;
    std::vector<std::string> boot_logs;
    std::optional<checks::Requested> requested;
    bool unique_prompts = false;
    std::optional<double> max_failed_share;  // --max-failed-share, as a fraction
    FleetOptions fleet;
};

// The terminal's lines, the --json document and the CI formats' verdicts, from one report.
Shown report_shown(const report::Report& rep, const fs::path& out, const Common& common) {
    Shown shown;
    shown.verdicts.command = common.command;
    shown.verdicts.results = rep.results;
    shown.verdicts.strict = common.strictness();
    shown.json = results_json(rep.results);
    for (const auto& r : rep.results) shown.text += terminal_line(r) + "\n";
    const std::vector<report::Insight> found = report::limits(rep);
    if (!found.empty()) shown.text += "What limited this run:\n";
    for (const auto& i : found) {
        shown.text += fmt::format("  - {}. {}\n", i.title, i.text);
        shown.verdicts.limits.push_back(fmt::format("{}. {}", i.title, i.text));
    }
    shown.text += fmt::format("{} -> {}\n", counts_summary(rep.results), out.string());
    return shown;
}

// Says on stderr when two inputs name different engines; true: refuse (exit 2).
bool engines_disagree(const std::vector<std::pair<const Engine*, std::string>>& found) {
    auto mixed = run::mixed_engines(found);
    if (mixed) std::cerr << fmt::format("inferlint: {}. Give the files of one run.\n", *mixed);
    return mixed.has_value();
}

// Fills the files not named on the command line with the ones found in the folder;
// false (said on stderr) when the folder holds none.
bool fill_from_folder(Opts& o, const fs::path& run, std::optional<fs::path>& load_log) {
    run::RunFiles found = run::find_run_files(run);
    if (o.boot_logs.empty() && found.boot_log) o.boot_logs.push_back(found.boot_log->string());
    if (o.before.empty() && found.before) o.before = found.before->string();
    if (o.after.empty() && found.after) o.after = found.after->string();
    if (o.series.empty() && found.series) o.series = found.series->string();
    if (o.bench_result.empty() && found.bench) o.bench_result = found.bench->string();
    load_log = found.load_log;
    if (o.boot_logs.empty() && o.before.empty() && o.after.empty() && o.series.empty()) {
        if (auto replicas = run::fleet_replica_folders(run); !replicas.empty()) {
            std::cerr << fmt::format(
                "inferlint: {} is a fleet's xray run ({} replicas): its report.html is the fleet's; report one "
                "replica's folder ({}), or the fleet's window with --prometheus\n",
                run.string(), replicas.size(), replicas.front().string());
            return false;
        }
        std::cerr << fmt::format(
            "inferlint: no run files in {} (looked for boot.log, before.snapshot.json, after.snapshot.json, "
            "run.series.jsonl, or files like *boot*.log, *before*.json, *after*.json, *.series.jsonl)\n",
            run.string());
        return false;
    }
    return true;
}

run::RunFileSet file_set(const Opts& o, const std::optional<fs::path>& load_log) {
    run::RunFileSet files;
    for (const auto& log : o.boot_logs) files.boot_logs.emplace_back(log);
    for (auto [opt, path] : {std::pair{&o.before, &files.before}, std::pair{&o.after, &files.after},
                             std::pair{&o.series, &files.series}, std::pair{&o.bench_result, &files.bench}})
        if (!opt->empty()) *path = *opt;
    files.load_log = load_log;
    return files;
}

// False (said on stderr) when the inputs name different engines; a note when none names one.
bool engines_agree(const std::vector<std::pair<const Engine*, std::string>>& found, const Common& common) {
    if (!common.engine && engines_disagree(found)) return false;
    bool any_named = std::any_of(found.begin(), found.end(), [](const auto& f) { return f.first != nullptr; });
    if (!found.empty() && !any_named && !common.engine)
        std::cerr << fmt::format(
            "note: none of the inputs says which engine wrote it; read as vLLM's (--engine or "
            "{} names it)\n",
            kEngineEnvVar);
    return true;
}

report::PageInfo page_info(const Opts& o, const Common& common) {
    report::PageInfo page;
    page.shown = common.only;
    if (!o.title.empty()) page.title = o.title;
    page.generated = util::local_time_text();
    for (const auto& log : o.boot_logs) page.sources.push_back(fs::path(log).filename().string());
    for (const auto* f : {&o.before, &o.after, &o.series, &o.bench_result})
        if (!f->empty()) page.sources.push_back(fs::path(*f).filename().string());
    return page;
}

// What the user's options and the live record give the judge: --requested,
// --unique-prompts and --max-failed-share win over the record's.
run::JudgeInput judge_input(const Opts& o, run::RunFileSet files, std::optional<run::LiveRecord> live,
                            const Common& common) {
    run::JudgeInput in{.files = std::move(files),
                       .named = common.engine,
                       .accept = refuse_other_engine(common),
                       .requested = o.requested,
                       .unique_prompts = std::nullopt,
                       .live = std::move(live),
                       .max_failed_share = o.max_failed_share};
    if (o.unique_prompts) in.unique_prompts = "--unique-prompts";
    return in;
}

// A fleet's verdicts, its page (the replica table and a chart per replica) written to `out`,
// and what the terminal, --json and the CI formats show: for --prometheus and a fleet's
// xray folder alike.
int show_fleet(FleetInput& in, const Common& common, const std::string& title, std::vector<std::string> sources,
               const std::string& source_words, const fs::path& out) {
    const checks::FleetVerdicts v = checks::check_fleet(in.replicas, in.fleet, in.window.step_s);
    checks::RunVerdicts fleet = v.fleet;
    fleet.results = common.selected(std::move(fleet.results));
    report::PageInfo page;
    page.title = title.empty() ? fmt::format("Fleet of {} replicas", in.window.replicas.size()) : title;
    page.generated = util::local_time_text();
    page.shown = common.only;
    page.sources = std::move(sources);
    report::FleetPage fp = run::fleet_page(in.window, v, source_words,
                                           [&](std::vector<CheckResult> r) { return common.selected(std::move(r)); });
    checks::RunEvidence ev = in.fleet;
    report::Report rep =
        report::build_report(std::move(ev), std::move(fleet), in.fleet_series, std::nullopt, std::move(page));
    rep.fleet = std::move(fp);
    util::write_file(out, report::render_report_html(rep));
    emit_fleet(in, v, common, {}, fmt::format("{} -> {}\n", counts_summary(rep.results), out.string()));
    return 0;  // as for one run: report writes its page, and its verdicts are for reading
}

// --prometheus: the fleet read from Prometheus.
int run_fleet_report(const Opts& o, const Common& common) {
    if (!o.run.empty() || !o.before.empty() || !o.after.empty() || !o.series.empty() || !o.boot_logs.empty())
        throw InputError(
            "report: with --prometheus the run is read from Prometheus: give -o and no run folder or "
            "snapshot, series or boot-log files (--run DIR takes a folder's window)");
    if (o.out.empty()) throw InputError("report: with --prometheus, -o names the page to write");
    std::optional<BenchResult> bench;
    if (!o.bench_result.empty()) {
        run::RunFileSet files;
        files.bench = o.bench_result;
        auto loaded = run::load_run(files, common.engine, refuse_other_engine(common));
        if (!loaded) return 2;
        bench = loaded->evidence.bench;
    }
    auto in = read_fleet_input(o.fleet, common);
    if (!in) return 2;
    in->fleet.bench = bench;
    in->fleet.requested = o.requested                       ? o.requested
                          : bench && bench->max_concurrency ? checks::Requested::of(*bench->max_concurrency)
                                                            : std::nullopt;
    if (o.unique_prompts) in->fleet.unique_prompts = "--unique-prompts";
    in->fleet.max_failed_share = o.max_failed_share.value_or(0.0);  // T20, the fleet's and each replica's
    // T19 on a cluster: the replicas' GPUs and who else holds them, from DCGM's series.
    if (!common.only || std::count(common.only->begin(), common.only->end(), TripwireId::T19))
        in->fleet.live.push_back(run::dcgm_gpu_shared(prom_source_of(o.fleet), in->window));
    return show_fleet(*in, common, o.title, {in->window.url}, fleet_source_words(in->window), o.out);
}

// A fleet's xray folder: judged from its replicas' folders and its live record, as xray
// judged it (run::load_fleet_run).
int run_fleet_folder_report(const Opts& o, const fs::path& run, run::LiveRecord live, const Common& common) {
    if (!o.before.empty() || !o.after.empty() || !o.series.empty() || !o.boot_logs.empty())
        throw InputError(
            fmt::format("report: {} is a fleet's xray run: its replicas' files are read from their folders (give no "
                        "snapshot, series or boot-log files)",
                        run.string()));
    run::JudgeInput in = judge_input(o, {}, std::move(live), common);
    if (!o.bench_result.empty()) {
        in.files.bench = o.bench_result;
    } else if (in.live->bench_result) {
        in.files.bench = run / *in.live->bench_result;
    }
    in.files.load_log = run::find_run_files(run).load_log;
    in.files.gpu = run::gpu_recording_in(run);
    auto fleet_run = run::load_fleet_run(run, in);
    if (!fleet_run) return 2;
    for (const auto& n : fleet_run->notes) std::cerr << n << "\n";
    FleetInput fin{std::move(fleet_run->window), std::move(fleet_run->replicas), std::move(fleet_run->fleet),
                   std::move(fleet_run->fleet_series)};
    std::vector<std::string> sources;
    for (const auto& r : in.live->fleet->replicas) sources.push_back(r.folder + "/");
    const double step = fin.window.step_s;
    return show_fleet(
        fin, common, o.title, std::move(sources),
        fmt::format("xray: {} servers recorded every {:g} s on one schedule", fin.window.replicas.size(), step),
        !o.out.empty() ? fs::path(o.out) : run / "report.html");
}

int run_report(Opts o, const Common& common) {
    if (o.fleet.wanted()) return run_fleet_report(o, common);
    fleet_or_files(o.fleet, "report", {});
    std::optional<fs::path> run;
    if (!o.run.empty()) {
        run = o.run;
        std::error_code ec;
        if (!fs::is_directory(*run, ec)) {
            std::cerr << fmt::format("inferlint: {} is not a folder\n", o.run);
            return 2;
        }
    }
    if (!run && o.out.empty()) {
        std::cerr << "inferlint: give a run folder, or -o and the files to read\n";
        return 2;
    }
    std::optional<fs::path> load_log;
    // An xray folder's live record: the verdicts only the live run could give, and what its
    // load command asked for, so the folder is judged as xray judged it.
    std::optional<run::LiveRecord> live = run ? run::read_live_record(*run) : std::nullopt;
    if (live && live->fleet) return run_fleet_folder_report(o, *run, std::move(*live), common);
    const bool bench_named = !o.bench_result.empty();
    if (run && !fill_from_folder(o, *run, load_log)) return 2;
    if (live && !bench_named) o.bench_result = live->bench_result ? (*run / *live->bench_result).string() : "";
    fs::path out = !o.out.empty() ? fs::path(o.out) : *run / "report.html";

    run::JudgeInput in = judge_input(o, file_set(o, load_log), std::move(live), common);
    if (run) in.files.gpu = run::gpu_recording_in(*run);
    checks::RunVerdicts verdicts;
    auto loaded = run::load_judged(in, verdicts);
    if (!loaded || !engines_agree(loaded->engines, common)) return 2;
    for (const auto& n : loaded->notes) std::cerr << n << "\n";
    checks::RunEvidence& ev = loaded->evidence;
    verdicts.results = common.selected(std::move(verdicts.results));
    report::Report rep = report::build_report(std::move(ev), std::move(verdicts), std::move(loaded->series),
                                              loaded->boot_s, page_info(o, common));
    util::write_file(out, report::render_report_html(rep));
    show(report_shown(rep, out, common), common);
    return 0;
}

const Registrar reg{Command{
    .name = "report",
    .group = Group::saved,
    .order = 1,
    .summary = "check a run folder or its files again: verdicts, and report.html",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("run", o->run, "a run folder, such as xray's: its files are found by name");
        app.add_option("-o,--out", o->out, "HTML file to write (default: RUN/report.html)");
        app.add_option("--boot-log", o->boot_logs, "boot log (repeat for several boots)")->allow_extra_args(false);
        app.add_option("--before", o->before, "snapshot taken before the run");
        app.add_option("--after", o->after, "snapshot taken after the run");
        app.add_option("--series", o->series, "gauge series recorded during the run");
        app.add_option("--bench-result", o->bench_result,
                       "the load tool's result file (default: bench.json or bench.jsonl in RUN)");
        add_requested_option(app, o->requested, "client concurrency (default: the result's)");
        app.add_option("--title", o->title, "report title");
        app.add_flag("--unique-prompts", o->unique_prompts,
                     "the load sent no prompt twice: a large prefix-cache share fails T16");
        add_max_failed_share_option(app, o->max_failed_share);
        add_fleet_options(app, o->fleet);
        return [o](const Common& common) { return run_report(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::report_cmd
