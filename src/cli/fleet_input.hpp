// `--prometheus URL` on the commands that read a run's files (report, series, preemption,
// rate, prefix-cache, client-counts): the run's window read from Prometheus for every
// replica the selector names, checked per replica and for the fleet, and printed.
#pragma once

#include "output.hpp"
#include "registry.hpp"

#include "inferlint/checks/fleet.hpp"
#include "inferlint/run/prometheus.hpp"
#include "inferlint/util/error.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::cli {

struct FleetOptions {
    std::string prometheus, match, start, end, run, step;
    double timeout_s = 30;
    bool wanted() const { return !prometheus.empty(); }
};

// --prometheus, --match, --start, --end, --run, --step and --timeout.
void add_fleet_options(CLI::App& app, FleetOptions& o);

// The positional inputs a command takes from files: refused beside --prometheus, required
// without it ("BEFORE is required", as a missing positional is said).
void fleet_or_files(const FleetOptions& o, const std::string& command,
                    const std::vector<std::pair<std::string, const std::string*>>& files);

// The Prometheus --prometheus, --match and --timeout name.
run::PromSource prom_source_of(const FleetOptions& o);

// The window read, each replica's evidence and the fleet's (the union of the replicas'
// snapshots where every replica has both, the summed gauges). nullopt when the series
// came from another engine than the one named (said on stderr).
struct FleetInput {
    run::FleetWindow window;
    std::vector<checks::ReplicaEvidence> replicas;
    checks::RunEvidence fleet;
    Series fleet_series;  // the summed gauges, for the report's chart
};
std::optional<FleetInput> read_fleet_input(const FleetOptions& o, const Common& common);

// The verdicts as text (a heading per replica, then the fleet), --json (inferlint.fleet/1)
// or --format (the fleet's suite, then one per replica); the exit status the fleet's give.
// `trailer` ends the text (the report's "-> page.html").
int emit_fleet(const FleetInput& in, const checks::FleetVerdicts& v, const Common& common,
               const std::vector<TripwireId>& shown, const std::string& trailer = "");

// What the terminal says of the source: "Prometheus URL SEL: 3 replicas by instance, ...".
std::string fleet_source_words(const run::FleetWindow& f);

// The fleet document (--json), for the selected tripwires.
Json fleet_json(const FleetInput& in, const checks::FleetVerdicts& v, const Common& common,
                const std::vector<TripwireId>& shown);

}  // namespace inferlint::cli

namespace inferlint::cli {

// The whole of `--prometheus` for a command: the window read, `add` given the fleet's
// evidence to add its own (the requested concurrency, the load tool's result), the
// verdicts, printed for `shown`. The exit status.
int run_fleet(const FleetOptions& o, const Common& common, const std::vector<TripwireId>& shown,
              const std::function<void(checks::RunEvidence& fleet)>& add = {});

}  // namespace inferlint::cli
