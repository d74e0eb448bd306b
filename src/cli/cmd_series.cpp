// `inferlint series S [--snapshot SNAP] [--requested N] [--boot-log LOG]`: T14, T9 and
// T8 from a gauge recording.
#include "inferlint/core/catalog.hpp"
#include "fleet_input.hpp"
#include "registry.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/loader.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::series_cmd {
namespace {

struct Opts {
    std::string series, snapshot, boot_log;
    std::optional<checks::Requested> requested;
    FleetOptions fleet;
};

int run_series(const Opts& o, const Common& common) {
    fleet_or_files(o.fleet, "series", {{"series", &o.series}});
    if (o.fleet.wanted()) {
        if (!o.snapshot.empty()) throw InputError("series: --snapshot is read from Prometheus with --prometheus");
        return run_fleet(o.fleet, common, shown_by("series"),
                         [&](checks::RunEvidence& fleet) { fleet.requested = o.requested; });
    }
    SeriesSummary s = summarize_series_file(o.series);
    const Engine* found = s.named_engine();
    if (other_engine(common, found, o.series)) return 2;
    note_unknown(common, found, o.series);
    if (s.skipped_lines > 0) {
        std::cerr << fmt::format("note: {}: skipped {} line{} that {} not JSON (first: line {})\n", o.series,
                                 s.skipped_lines, s.skipped_lines == 1 ? "" : "s", s.skipped_lines == 1 ? "is" : "are",
                                 s.first_skipped_lineno);
    }
    checks::RunEvidence ev;
    ev.named_engine = common.engine;
    ev.requested = o.requested;
    if (!o.snapshot.empty()) {
        Snapshot snap = load_snapshot(o.snapshot);
        if (other_engine(common, snapshot_engine({&snap}), o.snapshot)) return 2;
        ev.after = std::move(snap);
    }
    if (ev.requested && !o.boot_log.empty()) {  // the log only sets T8's message
        auto start = run::read_boot_start(o.boot_log, o.boot_log, common.engine, refuse_other_engine(common));
        if (!start) return 2;
        ev.boots.push_back(std::move(*start));
    }
    ev.series = std::move(s);
    return emit(checks::check_load(ev).only(shown_by("series")), common);
}

const Registrar reg{Command{.name = "series",
                            .group = Group::saved,
                            .order = 6,
                            .summary = "T8 T9 T14: concurrency reached, ceiling, block count from a recording",
                            .takes_engine = TakesEngine::yes,
                            .setup = [](CLI::App& app) {
                                auto o = std::make_shared<Opts>();
                                app.add_option("series", o->series, "gauge recording of the run (inferlint.series/1)");
                                app.add_option("--snapshot", o->snapshot, "a snapshot from the same boot (for T14)");
                                add_requested_option(app, o->requested, "client concurrency (for T8)");
                                app.add_option("--boot-log", o->boot_log,
                                               "boot log, to set the boot line's claim beside T8");
                                add_fleet_options(app, o->fleet);
                                return [o](const Common& common) { return run_series(*o, common); };
                            }}};

}  // namespace
}  // namespace inferlint::cli::series_cmd
