// `inferlint client-counts BEFORE AFTER --bench-result FILE [--load-log LOG]
// [--max-failed-share PCT]`: T15, T18 and T20, the load tool's own counts against the
// server's counters between two snapshots.
#include "inferlint/core/catalog.hpp"
#include "fleet_input.hpp"
#include "registry.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/run/loader.hpp"

namespace inferlint::cli::client_counts_cmd {
namespace {

struct Opts {
    std::string before, after, bench_result, load_log;
    std::optional<double> max_failed_share;  // --max-failed-share, as a fraction
    FleetOptions fleet;
};

int run_client_counts(const Opts& o, const Common& common) {
    fleet_or_files(o.fleet, "client-counts", {{"before", &o.before}, {"after", &o.after}});
    run::RunFileSet files;
    if (!o.fleet.wanted()) {
        files.before = o.before;
        files.after = o.after;
    }
    files.bench = o.bench_result;
    if (!o.load_log.empty()) files.load_log = o.load_log;
    if (o.fleet.wanted()) {
        // The load tool's counts are the whole fleet's: held against the counters summed
        // over every replica.
        auto loaded = run::load_run(files, common.engine, [&](const Engine* e, const std::string& what) {
            return !other_engine(common, e, what);
        });
        if (!loaded) return 2;
        return run_fleet(o.fleet, common, shown_by("client-counts"), [&](checks::RunEvidence& fleet) {
            fleet.bench = loaded->evidence.bench;
            fleet.max_failed_share = o.max_failed_share.value_or(0.0);
            if (files.load_log) fleet.untimed_requests = untimed_requests_in(*files.load_log);
        });
    }
    const Engine* found = nullptr;
    auto loaded = run::load_run(files, common.engine, [&](const Engine* e, const std::string& what) {
        if (e && !found) found = e;
        return !other_engine(common, e, what);
    });
    if (!loaded) return 2;
    note_unknown(common, found, "the snapshots");
    checks::ClientCountVerdicts counts = checks::check_client_counts(loaded->evidence);
    std::vector<CheckResult> results;
    for (auto* r : {&counts.t15, &counts.t18})
        if (*r) results.push_back(std::move(**r));
    const checks::RunEvidence& ev = loaded->evidence;
    results.push_back(checks::check_failed_requests(ev.bench ? &*ev.bench : nullptr, ev.before ? &*ev.before : nullptr,
                                                    ev.after ? &*ev.after : nullptr, o.max_failed_share.value_or(0.0)));
    return emit(results, common);
}

const Registrar reg{Command{
    .name = "client-counts",
    .group = Group::saved,
    .order = 7,
    .summary = "T15, T18 and T20: do the load tool's counts match the server's, and did requests fail?",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("before", o->before, "snapshot taken before the run");
        app.add_option("after", o->after, "snapshot taken after the run");
        app.add_option("--bench-result", o->bench_result,
                       "the load tool's result file (vllm bench serve --save-result, SGLang's --output-file)")
            ->required();
        app.add_option("--load-log", o->load_log,
                       "the load tool's console output: the test and warm-up requests it left out of its result");
        add_max_failed_share_option(app, o->max_failed_share);
        add_fleet_options(app, o->fleet);
        return [o](const Common& common) { return run_client_counts(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::client_counts_cmd
