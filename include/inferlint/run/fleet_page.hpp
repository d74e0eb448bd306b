// The fleet part of a report page (the replica table and a chart per replica) from a
// fleet's window and verdicts: what `report --prometheus` and `xray` on several servers draw.
#pragma once

#include "inferlint/checks/fleet.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/run/prometheus.hpp"

#include <functional>
#include <string>
#include <vector>

namespace inferlint::run {

// `source` is the page's line on where the gauges came from; `select` keeps the tripwires
// the command shows, from each replica's verdicts.
report::FleetPage fleet_page(const FleetWindow& window, const checks::FleetVerdicts& verdicts, std::string source,
                             const std::function<std::vector<CheckResult>(std::vector<CheckResult>)>& select);

}  // namespace inferlint::run
