// T10. Throughput from the snapshots' own float clocks. A shell `$(date +%s)` difference
// is off by up to a second, several percent of a short run, and the error does not cancel
// between the arms of a comparison.
#include "inferlint/checks/snapshot_checks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace inferlint::checks {

CheckResult precise_rate(const Snapshot& before, const Snapshot& after, const std::string& counter_arg,
                         Measured* measured) {
    std::string counter = counter_arg.empty() ? engine_of({&before, &after}).metrics.generation_tokens : counter_arg;
    Deltas delta(before, after);
    std::optional<double> tokens = delta(counter);
    if (delta.restart()) return {TripwireId::T10, Status::unknown, delta.restart()->message, Json::object()};
    Span span;
    try {
        span = span_s(before, after);
    } catch (const std::runtime_error& e) {  // clocks that cannot give a span
        return {TripwireId::T10, Status::unknown, e.what(), Json::object()};
    }
    if (!tokens)
        return {TripwireId::T10, Status::unknown, fmt::format("{} absent from a snapshot", counter), Json::object()};
    if (span.seconds <= 0)
        return {TripwireId::T10, Status::unknown, fmt::format("non-positive span {:.3f}s", span.seconds),
                Json::object()};
    // What `date +%s` taken at the same moments would have measured.
    long long int_span = 0;
    if (std::isfinite(after.t_wall) && std::isfinite(before.t_wall))
        int_span = static_cast<long long>(std::trunc(after.t_wall)) - static_cast<long long>(std::trunc(before.t_wall));
    double rate = *tokens / span.seconds;
    Json ev = Json::object();
    ev["tokens"] = *tokens;
    ev["span_s"] = span.seconds;
    ev["span_uncertainty_s"] = span.uncertainty_s;
    ev["rate_per_s"] = rate;
    ev["integer_second_span_s"] = int_span;
    if (int_span > 0) {
        double naive = *tokens / static_cast<double>(int_span);
        ev["integer_second_rate_per_s"] = naive;
        ev["integer_second_error"] = naive / rate - 1;
        if (measured) {
            measured->integer_second_rate_per_s = naive;
            measured->integer_second_error = naive / rate - 1;
        }
    }
    if (measured) {
        measured->output_rate_per_s = rate;
        measured->span_s = span.seconds;
    }
    return {TripwireId::T10, Status::pass, fmt::format("{:.2f} tokens/s over {:.3f}s", rate, span.seconds), ev};
}

CheckResult with_timer_comparison(CheckResult r, const Measured& measured) {
    if (r.tripwire != TripwireId::T10 || !measured.integer_second_error) return r;
    const double naive = *measured.integer_second_rate_per_s, err = *measured.integer_second_error;
    r.message += fmt::format("; an integer-second timer would say {:.2f} ({:+.2f}%)", naive, err * 100);
    return r;
}

}  // namespace inferlint::checks
