// `inferlint prefix-cache BEFORE AFTER [--unique-prompts] [--boot-log LOG]`: T16, the share
// of the run's prompt tokens the server's prefix cache served between two snapshots.
#include "inferlint/core/catalog.hpp"
#include "fleet_input.hpp"
#include "registry.hpp"
#include "snapshots_input.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/run/loader.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::prefix_cache_cmd {
namespace {

struct Opts {
    std::string before, after, boot_log;
    bool unique_prompts = false;
    FleetOptions fleet;
};

// Says on stderr when the two snapshots name different engines; true: refuse (exit 2).
bool snapshots_disagree(const Opts& o, const Snapshot& before, const Snapshot& after) {
    const Engine* b = snapshot_engine({&before});
    const Engine* a = snapshot_engine({&after});
    if (!b || !a || a == b) return false;
    std::cerr << fmt::format("inferlint: {} came from {}, but {} came from {}: give two snapshots of one server\n",
                             o.before, b->name, o.after, a->name);
    return true;
}

int run_prefix_cache(const Opts& o, const Common& common) {
    fleet_or_files(o.fleet, "prefix-cache", {{"before", &o.before}, {"after", &o.after}});
    if (o.fleet.wanted()) {
        if (!o.boot_log.empty())
            throw InputError("prefix-cache: --boot-log is one server's log; with --prometheus give none");
        return run_fleet(o.fleet, common, shown_by("prefix-cache"), [&](checks::RunEvidence& fleet) {
            if (o.unique_prompts) fleet.unique_prompts = "--unique-prompts";
        });
    }
    auto snaps = load_snapshots(common, o.before, o.after);
    if (!snaps) return 2;
    if (snapshots_disagree(o, snaps->first, snaps->second)) return 2;
    checks::RunEvidence ev;
    ev.named_engine = common.engine;
    ev.before = std::move(snaps->first);
    ev.after = std::move(snaps->second);
    if (o.unique_prompts) ev.unique_prompts = "--unique-prompts";
    if (!o.boot_log.empty()) {
        const Engine* served = snapshot_engine({&*ev.before, &*ev.after});
        auto start =
            run::read_boot_start(o.boot_log, o.boot_log, common.engine, [&](const Engine* e, const std::string& what) {
                if (other_engine(common, e, what)) return false;
                if (!e || !served || e == served) return true;
                std::cerr << fmt::format(
                    "inferlint: the snapshots came from {}, but {} came from {}: "
                    "give the log of the server the snapshots were taken from\n",
                    served->name, what, e->name);
                return false;
            });
        if (!start) return 2;
        ev.boots.push_back(std::move(*start));
    }
    return emit(checks::check_load(ev).only(shown_by("prefix-cache")), common);
}

const Registrar reg{
    Command{.name = "prefix-cache",
            .group = Group::saved,
            .order = 7,
            .summary = "T16: how much of the prompt did the server's prefix cache serve?",
            .takes_engine = TakesEngine::yes,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                app.add_option("before", o->before, "snapshot taken before the run");
                app.add_option("after", o->after, "snapshot taken after the run");
                app.add_flag("--unique-prompts", o->unique_prompts,
                             "the load sent no prompt twice: a share above 10% fails instead of warning");
                app.add_option("--boot-log", o->boot_log, "the server's log, which says whether prefix caching was on");
                add_fleet_options(app, o->fleet);
                return [o](const Common& common) { return run_prefix_cache(*o, common); };
            }}};

}  // namespace
}  // namespace inferlint::cli::prefix_cache_cmd
