#include "inferlint/core/catalog.hpp"
#include "fleet_input.hpp"
#include "registry.hpp"
#include "snapshots_input.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/suite.hpp"

namespace inferlint::cli::rate_cmd {
namespace {

struct Opts {
    std::string before, after, counter;
    FleetOptions fleet;
};

const Registrar reg{
    Command{.name = "rate",
            .group = Group::saved,
            .order = 5,
            .summary = "T10: token throughput from the snapshots' own clocks",
            .takes_engine = TakesEngine::yes,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                app.add_option("before", o->before, "snapshot taken before the run");
                app.add_option("after", o->after, "snapshot taken after the run");
                app.add_option("--counter", o->counter, "counter to divide (default: the generated tokens)");
                add_fleet_options(app, o->fleet);
                return [o](const Common& common) -> int {
                    fleet_or_files(o->fleet, "rate", {{"before", &o->before}, {"after", &o->after}});
                    if (o->fleet.wanted())
                        return run_fleet(o->fleet, common, shown_by("rate"),
                                         [&](checks::RunEvidence& fleet) { fleet.rate_counter = o->counter; });
                    auto snaps = load_snapshots(common, o->before, o->after);
                    if (!snaps) return 2;
                    checks::RunEvidence ev;
                    ev.before = std::move(snaps->first);
                    ev.after = std::move(snaps->second);
                    ev.rate_counter = o->counter;
                    // The terminal also shows what an integer-second timer would have said.
                    checks::RunVerdicts verdicts = checks::check_load(ev);
                    return emit(verdicts.only(shown_by("rate")), common, [&verdicts](CheckResult r) {
                        return checks::with_timer_comparison(std::move(r), verdicts.measured);
                    });
                };
            }}};

}  // namespace
}  // namespace inferlint::cli::rate_cmd
