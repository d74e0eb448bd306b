// One self-contained HTML page for a run (port of report.py): every tripwire the run's
// files allow, what the files say happened, charts drawn from the recording, the boot
// facts of the server that ran. The page fetches nothing, so it opens offline and can be
// attached to a ticket as it is; every string from an input file is escaped.
#pragma once

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

// What the caller has read. Boot logs are read (and their failures classified) here;
// the rest arrive parsed so the caller's file boundary reports bad input.
struct ReportInputs {
    std::vector<std::filesystem::path> boot_logs;
    std::optional<Snapshot> before;
    std::optional<Snapshot> after;
    std::optional<Series> series;
    std::optional<BenchResult> bench;  // the load tool's result; its latencies feed the limits
    std::optional<long long> requested;  // the concurrency the load tool kept open
    std::optional<std::string> title;    // default: "<engine> <version> run"
    const Engine* engine = nullptr;      // the engine the user named, for files that do not say
    std::optional<std::string> server_version;  // reported over HTTP, for logs that do not print it
    // Results the files cannot give (a live run's T7, T2, T15). The last per tripwire wins,
    // and one the files already gave is not added twice.
    std::vector<CheckResult> extra;
    std::vector<std::string> sources;  // the input files, for the "Made from" line
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

struct Report {
    std::string title;
    std::vector<CheckResult> results;
    std::vector<std::pair<std::string, parse::BootFacts>> boots;  // (label, facts) per boot log
    std::optional<Series> series;
    std::optional<Snapshot> before;
    std::optional<Snapshot> after;
    std::optional<long long> requested;
    std::optional<long long> usable_blocks;  // from a passing T14
    std::string generated;                   // local time the page was made
    Summary summary;
    std::vector<std::string> sources;
    const Engine* engine = &vllm();
    std::optional<BenchResult> bench;

    // The result for a tripwire, nullptr if none.
    const CheckResult* result(std::string_view tripwire) const;
};

// Runs every tripwire the inputs allow (T12/T5/T6 per boot log, T4/T11 across several,
// T1, T10, T14, T9, T8) and gathers the summary. Throws InputError for an unreadable
// boot log.
Report build_report(ReportInputs inputs);

// The tripwires the run's readings and recording allow: T1, T10, T14, T9, T8.
std::vector<CheckResult> run_checks(const std::optional<Snapshot>& before, const std::optional<Snapshot>& after,
                                    const std::optional<Series>& series, std::optional<long long> requested,
                                    const parse::BootFacts* facts);

// The "MM-DD hh:mm:ss" stamps of a log's lines as they go by, for the time a server took
// to boot. It keeps the stamp of each line where the stamp changes, with the line's
// number: memory grows with how long the log ran, not with how long it is.
class StampTrail {
public:
    void line(std::string_view line, long long lineno);
    // Seconds from the first stamped line to the last one up to the ready line; nullopt
    // when it never got ready, has no stamps, or crossed New Year (no year in the stamps,
    // so not guessed).
    std::optional<double> boot_seconds(std::optional<long long> ready_lineno) const;
    // How many changes of stamp it keeps.
    std::size_t kept() const { return changes_.size(); }

private:
    std::vector<std::pair<long long, long long>> changes_;  // (line number, stamp), in line order
};


// The whole page: one HTML document with its CSS and JS inside.
std::string render_report_html(const Report& report);

// "Tripwires checked", "12 of 15. Not here: T2 and T3 (run at clean-up), ...".
std::pair<std::string, std::string> checked_line(const Report& report);

}  // namespace inferlint::report
