#include "inferlint/run/fleet_page.hpp"

namespace inferlint::run {

report::FleetPage fleet_page(const FleetWindow& window, const checks::FleetVerdicts& verdicts, std::string source,
                             const std::function<std::vector<CheckResult>(std::vector<CheckResult>)>& select) {
    report::FleetPage fp;
    fp.source = std::move(source);
    fp.replica_label = window.replica_key;
    fp.start = window.window.start;
    fp.step_s = window.step_s;
    for (std::size_t i = 0; i < window.replicas.size(); ++i) {
        const auto& r = window.replicas[i];
        report::FleetReplica row;
        row.name = r.name;
        if (i < verdicts.replicas.size()) row.results = select(verdicts.replicas[i].second.results);
        row.series = r.series;
        row.gaps = r.gaps;
        row.resets = r.resets;
        if (!r.before) row.missing = "none at the start: " + r.before_missing;
        if (!r.after)
            row.missing += (row.missing.empty() ? "" : "; ") + std::string("none at the end: ") + r.after_missing;
        fp.replicas.push_back(std::move(row));
    }
    return fp;
}

}  // namespace inferlint::run
