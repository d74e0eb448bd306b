// T12 (the server failed while starting) and T7 (it failed after saying it was ready),
// from the failure classifier; and T12 unknown for lines in a format the parser lost.
#include "inferlint/checks/bootlog_checks.hpp"

#include <fmt/format.h>

namespace inferlint::checks {

CheckResult check_boot_failure(const std::optional<parse::Failure>& failure) {
    if (!failure) return {TripwireId::T12, Status::pass, "no failure in log", Json::object()};
    const parse::Failure& f = *failure;
    TripwireId tripwire = f.phase == parse::FailurePhase::serving ? TripwireId::T7 : TripwireId::T12;
    Json ev{{"kind", parse::kind_value(f.kind)},
            {"phase", parse::phase_value(f.phase)},
            {"lineno", f.lineno},
            {"line", f.line}};
    return {tripwire, Status::fail, f.summary(), std::move(ev)};
}

std::optional<CheckResult> check_unparsed(const parse::BootFacts& facts) {
    if (facts.unparsed.empty()) return std::nullopt;
    Json lines = Json::array();
    for (const auto& u : facts.unparsed)
        lines.push_back(Json{{"field", u.field}, {"lineno", u.lineno}, {"line", u.line}});
    return CheckResult{TripwireId::T12, Status::unknown,
                       fmt::format("{} recognised line(s) in an unknown format", facts.unparsed.size()),
                       Json{{"unparsed", std::move(lines)}}};
}

}  // namespace inferlint::checks
