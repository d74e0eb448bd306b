// `inferlint series S [--snapshot SNAP] [--requested N] [--boot-log LOG]`: T14, T9 and
// T8 from a gauge recording.
#include "registry.hpp"

#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::series_cmd {
namespace {

struct Opts {
    std::string series, snapshot, boot_log;
    long long requested = 0;
};

int run_series(const Opts& o, const Common& common) {
    SeriesSummary s = summarize_series_file(o.series);
    const Engine* found = s.named_engine();
    if (other_engine(common, found, o.series)) return 2;
    note_unknown(common, found, o.series);
    if (s.skipped_lines > 0) {
        std::cerr << fmt::format("note: {}: skipped {} line{} that {} not JSON (first: line {})\n", o.series,
                                 s.skipped_lines, s.skipped_lines == 1 ? "" : "s",
                                 s.skipped_lines == 1 ? "is" : "are", s.first_skipped_lineno);
    }
    const Engine& engine = effective_engine(common, found);

    std::vector<CheckResult> results;
    std::optional<long long> usable_blocks;
    if (auto na = checks::does_not_apply("T14", engine)) {
        results.push_back(*na);
    } else if (!o.snapshot.empty()) {
        Snapshot snap = load_snapshot(o.snapshot);
        if (other_engine(common, named_by(snap.metrics().names()), o.snapshot)) return 2;
        if (!checks::engine_of({&snap}).metrics.cache_info.empty()) {
            CheckResult r = checks::check_null_block(s.stats, snap);
            // Only a count that matched the server's own figure is trusted for T9.
            if (r.status == Status::pass && r.evidence["inferred_usable_blocks"].is_number_integer())
                usable_blocks = r.evidence["inferred_usable_blocks"].get<long long>();
            results.push_back(std::move(r));
        }
    }
    results.push_back(checks::concurrency_ceiling(s.stats, engine, usable_blocks));
    if (o.requested != 0) {
        std::optional<parse::BootFacts> facts;
        if (!o.boot_log.empty()) {
            facts = parse::parse_boot_log_file(o.boot_log, common.engine);
            if (facts->engine && other_engine(common, &by_key(*facts->engine), o.boot_log)) return 2;
        }
        results.push_back(
            checks::check_concurrency_reached(s.stats, engine, o.requested, facts ? &*facts : nullptr));
    }
    return emit(results, common);
}

const Registrar reg{Command{
    .name = "series",
    .group = Group::saved,
    .order = 6,
    .summary = "T8 T9 T14: concurrency reached, ceiling, block count from a recording",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("series", o->series, "gauge recording of the run (inferlint.series/1)")->required();
        app.add_option("--snapshot", o->snapshot, "a snapshot from the same boot (for T14)");
        app.add_option("--requested", o->requested, "client concurrency (for T8)");
        app.add_option("--boot-log", o->boot_log, "boot log, to set the boot line's claim beside T8");
        return [o](const Common& common) { return run_series(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::series_cmd
