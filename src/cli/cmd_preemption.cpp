#include "inferlint/core/catalog.hpp"
#include "fleet_input.hpp"
#include "registry.hpp"
#include "snapshots_input.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/run/loader.hpp"

namespace inferlint::cli::preemption_cmd {
namespace {

struct Opts {
    std::string before, after, series, boot_log;
    FleetOptions fleet;
};

int run_preemption(const Opts& o, const Common& common) {
    fleet_or_files(o.fleet, "preemption", {{"before", &o.before}, {"after", &o.after}});
    if (o.fleet.wanted()) {
        if (!o.series.empty()) throw InputError("preemption: --series is read from Prometheus with --prometheus");
        return run_fleet(o.fleet, common, shown_by("preemption"));
    }
    auto snaps = load_snapshots(common, o.before, o.after);
    if (!snaps) return 2;
    checks::RunEvidence ev;
    ev.named_engine = common.engine;
    ev.before = std::move(snaps->first);
    ev.after = std::move(snaps->second);
    if (!o.series.empty()) {
        SeriesSummary s = summarize_series_file(o.series);
        if (other_engine(common, s.named_engine(), o.series)) return 2;
        ev.series = std::move(s);
    }
    if (!o.boot_log.empty()) {
        auto start = run::read_boot_start(o.boot_log, o.boot_log, common.engine, refuse_other_engine(common));
        if (!start) return 2;
        ev.boots.push_back(std::move(*start));
    }
    return emit(checks::check_load(ev).only(shown_by("preemption")), common);
}

const Registrar reg{
    Command{.name = "preemption",
            .group = Group::saved,
            .order = 4,
            .summary = "T1: did the server preempt between two snapshots?",
            .takes_engine = TakesEngine::yes,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                app.add_option("before", o->before, "snapshot taken before the run");
                app.add_option("after", o->after, "snapshot taken after the run");
                app.add_option("--series", o->series, "recording of the run, for engines that count no preemptions");
                app.add_option("--boot-log", o->boot_log,
                               "the server's log, saved until after the run: TensorRT-LLM logs each pause there");
                add_fleet_options(app, o->fleet);
                return [o](const Common& common) { return run_preemption(*o, common); };
            }}};

}  // namespace
}  // namespace inferlint::cli::preemption_cmd
