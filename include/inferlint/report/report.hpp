// One self-contained HTML page for a run (port of report.py): every verdict the suite
// gave, what the files say happened, charts drawn from the recording, the boot
// facts of the server that ran. The page fetches nothing, so it opens offline and can be
// attached to a ticket as it is; every string from an input file is escaped.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlint::report {

// What the page says about itself, besides the run: given by the caller, so the report
// reads no clock and no file.
struct PageInfo {
    std::optional<std::string> title;  // default: "<engine> <version> run"
    std::string generated;             // local time the page was made
    std::vector<std::string> sources;  // the input files, for the "Made from" line
    // The tripwires the command was asked to show (--tripwires); nullopt: every one. The
    // "Tripwires checked" line says the others were left out, not what they would need.
    std::optional<std::vector<TripwireId>> shown;
};
// What the run's files say happened. Every field is nullopt when its source is absent.
struct Summary {
    std::optional<double> span_s;
    std::optional<double> started;  // Unix time of the before reading
    std::optional<double> ended;
    std::optional<double> boot_s;  // first boot log: first stamped line to ready
    // finished requests by finished_reason, in the order length, stop, repetition, abort, error
    std::vector<std::pair<std::string, long long>> finished;
    std::optional<long long> finished_total;  // when the server does not say why each finished
    std::optional<long long> output_tokens;
    std::optional<long long> prompt_tokens;
    std::optional<double> mean_latency_s;
    std::optional<double> mean_first_token_s;
    std::optional<double> mean_queue_s;
    std::optional<long long> preemptions;
    std::optional<long long> peak_running;
    std::optional<double> interval_s;
    std::optional<long long> readings;
    std::optional<std::string> url;
    bool restarted = false;

    // Requests finished: the sum by reason, else the total; nullopt when unknown.
    std::optional<long long> done() const;
    long long finished_with(const std::string& reason) const;  // 0 when absent
};

// A fleet read from Prometheus (`report --prometheus`): a row and a chart per replica
// beside the fleet's own verdicts.
struct FleetReplica {
    std::string name;                  // "10.0.0.5:8000", "vllm-0"
    std::vector<CheckResult> results;  // its own verdicts
    Series series;                     // its gauges, every step where Prometheus had them
    std::vector<std::pair<double, double>> gaps;
    long long resets = 0;
    std::string missing;  // why a snapshot is absent at an end, "" when none is
};

struct FleetPage {
    std::string source;         // "Prometheus http://p:9090 {job=\"vllm\"}, gauges every 0.25 s (...)"
    std::string replica_label;  // "instance" or "pod"
    double start = 0;           // the window, seconds since the epoch
    double step_s = 0;
    std::vector<FleetReplica> replicas;
};

struct Report {
    std::string title;
    std::optional<FleetPage> fleet;
    std::vector<CheckResult> results;
    std::vector<std::pair<std::string, parse::BootFacts>> boots;  // (label, facts) per boot log
    std::optional<Series> series;
    std::optional<Snapshot> before;
    std::optional<Snapshot> after;
    std::optional<long long> requested;
    std::optional<long long> usable_blocks;  // from a passing T14
    checks::Measured measured;               // the checks' figures, typed (shown beside their verdicts)
    std::string generated;                   // local time the page was made
    Summary summary;
    std::vector<std::string> sources;
    const Engine* engine = &vllm();
    std::optional<BenchResult> bench;
    std::optional<std::vector<TripwireId>> shown;  // PageInfo::shown

    // The result for a tripwire, nullptr if none.
    const CheckResult* result(TripwireId tripwire) const;
};

// The page's model: the run's evidence, its verdicts (computed once, by the suite), the
// whole recording for the charts, and the first log's boot time. A pure function.
Report build_report(checks::RunEvidence evidence, checks::RunVerdicts verdicts, std::optional<Series> series,
                    std::optional<double> boot_s, PageInfo page);

// The whole page: one HTML document with its CSS and JS inside.
std::string render_report_html(const Report& report);

// "Tripwires checked", "12 of 15. Not here: T2 and T3 (run at clean-up), ...".
std::pair<std::string, std::string> checked_line(const Report& report);

}  // namespace inferlint::report
