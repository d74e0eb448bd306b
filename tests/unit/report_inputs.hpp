// A run's inputs as the report tests give them, and the page `inferlint report` makes of
// them: boot logs through the loader, every verdict from the suite, then the model.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/log_stamps.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/loader.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace testsupport {

struct ReportInputs {
    std::vector<std::filesystem::path> boot_logs;
    std::optional<inferlint::Snapshot> before;
    std::optional<inferlint::Snapshot> after;
    std::optional<inferlint::Series> series;
    std::optional<inferlint::BenchResult> bench;
    std::optional<long long> requested;
    std::optional<std::string> title;
    const inferlint::Engine* engine = nullptr;
    std::optional<std::string> server_version;  // for logs that do not print it
    std::vector<inferlint::CheckResult> extra;  // a live run's verdicts (T2, T7)
    std::vector<std::string> sources;
};

inline inferlint::report::Report build_report(ReportInputs in) {
    using namespace inferlint;
    checks::RunEvidence ev;
    ev.named_engine = in.engine;
    std::optional<double> boot_s;
    std::vector<std::string> labels = parse::log_labels(in.boot_logs);
    for (std::size_t i = 0; i < in.boot_logs.size(); ++i) {
        auto start = run::read_boot_start(in.boot_logs[i], labels[i], in.engine, {}, i == 0 ? &boot_s : nullptr);
        if (i == 0 && in.server_version && !start->facts.vllm_version) start->facts.server_version = in.server_version;
        ev.boots.push_back(std::move(*start));
    }
    ev.before = std::move(in.before);
    ev.after = std::move(in.after);
    if (in.series) ev.series = summarize(*in.series);
    ev.bench = std::move(in.bench);
    if (in.requested) ev.requested = checks::Requested::of(*in.requested);
    ev.live = std::move(in.extra);
    checks::RunVerdicts verdicts = checks::check_run(ev);
    report::PageInfo page{in.title, "2026-01-01 00:00 UTC", std::move(in.sources)};
    return report::build_report(std::move(ev), std::move(verdicts), std::move(in.series), boot_s, std::move(page));
}

}  // namespace testsupport
