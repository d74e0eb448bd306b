// T8: a load tool's concurrency is how many requests it keeps open; the server's
// running gauge is how many it actually ran. Only a recording shows whether the two
// ever met. The boot line's "Maximum concurrency" assumes every request fills the whole
// context, so it is shown beside the answer, never used as one.
#include "inferlint/checks/series_checks.hpp"

#include <fmt/format.h>

namespace inferlint::checks {

namespace {

// The flag that sets the most requests run at once, as each engine names it.
std::string max_running_flag(const parse::BootFacts& facts) {
    if (facts.engine == "sglang") return "--max-running-requests";
    if (facts.engine == "trtllm") return "max_batch_size";
    return "--max-num-seqs";
}

}  // namespace

std::optional<std::pair<long long, std::string>> running_cap(const parse::BootFacts* facts) {
    if (facts == nullptr) return std::nullopt;
    if (facts->running_cap) {  // SGLang prints the limit it settled on
        long long n = *facts->running_cap;
        const auto& asked = facts->requested_running;
        if (asked && n < *asked) {
            std::string because =
                facts->running_cap_reason ? fmt::format(" because of the {}", *facts->running_cap_reason) : "";
            return std::pair{n, fmt::format("SGLang lowered its limit to {} running{}, although it was started "
                                            "with --max-running-requests {}",
                                            n, because, *asked)};
        }
        return std::pair{n, fmt::format("the server runs at most {} at once (--max-running-requests {})", n, n)};
    }
    if (auto seqs = facts->asked.max_running)
        return std::pair{
            *seqs, fmt::format("the server runs at most {} at once ({} {})", *seqs, max_running_flag(*facts), *seqs)};
    return std::nullopt;
}

namespace {

// T8 from the client's streams where the engine's gauge lags (T21's streaming peak): a pass
// when as many as requested received tokens at once; else the gauge's verdict with the
// client's figure added.
CheckResult t08_with_client(CheckResult gauge, long long requested, long long streaming, const Engine& engine) {
    gauge.evidence["client_streaming_peak"] = streaming;
    if (streaming >= requested) {
        gauge.evidence["witness"] = "client streams";
        gauge.status = Status::pass;
        gauge.message = fmt::format(
            "reached {} receiving tokens at once by the load tool's per-request times (requested {}); {}'s running "
            "gauge, which moves only when a request completes, was not used",
            streaming, requested, engine.name);
        return gauge;
    }
    gauge.evidence["witness"] = "server gauge";
    gauge.message +=
        fmt::format("; the load tool's per-request times show at most {} receiving tokens at once", streaming);
    return gauge;
}

CheckResult t08_from_gauge(const SeriesStats& stats, const Engine& engine, long long requested,
                           const parse::BootFacts* facts);

}  // namespace

CheckResult check_concurrency_reached(const SeriesStats& stats, const Engine& engine, long long requested,
                                      const parse::BootFacts* facts, std::optional<long long> client_streaming) {
    CheckResult gauge = t08_from_gauge(stats, engine, requested, facts);
    if (!client_streaming || gauge.status == Status::pass) return gauge;
    return t08_with_client(std::move(gauge), requested, *client_streaming, engine);
}

namespace {

CheckResult t08_from_gauge(const SeriesStats& stats, const Engine& engine, long long requested,
                           const parse::BootFacts* facts) {
    const auto peak = stats.peak_running;
    const auto in_flight = stats.peak_in_flight;
    Json ev = {
        {"requested", requested},
        {"peak_running", or_null(peak)},
        {"peak_in_flight", or_null(in_flight)},
    };
    if (facts != nullptr && facts->max_concurrency) {
        ev["boot_line_max_concurrency"] = *facts->max_concurrency;
        ev["boot_line_request_len"] = or_null(facts->max_concurrency_request_len);
    }
    // vLLM 0.29+ admission control: at most N in flight, the rest rejected with 503.
    // 0: no admission limit asked for (a value, not an optional: GCC 12 sees one uninitialised).
    const long long queued_cap =
        facts != nullptr && facts->asked.max_num_queued_reqs ? *facts->asked.max_num_queued_reqs : 0;
    if (queued_cap > 0) ev["max_num_queued_reqs"] = queued_cap;
    if (facts != nullptr && facts->asked.max_num_queued_tokens)
        ev["max_num_queued_tokens"] = *facts->asked.max_num_queued_tokens;
    if (!peak) {
        std::string msg = "series has no num_requests_running samples";
        if (!engine.gauges_hint.empty()) msg += "; " + engine.gauges_hint;
        return {TripwireId::T8, Status::unknown, msg, ev};
    }
    if (engine.gauges_lag) ev["gauges_lag"] = true;
    if (*peak >= static_cast<double>(requested))
        return {TripwireId::T8, Status::pass, fmt::format("reached {:g} running (requested {})", *peak, requested), ev};
    if (engine.gauges_lag) {
        return {TripwireId::T8, Status::unknown,
                fmt::format("requested {} concurrent, the recording never showed more than {:g}; {} updates the "
                            "gauge only when a request completes, so more may have run between readings",
                            requested, *peak, engine.name),
                ev};
    }
    std::string msg = fmt::format("requested {} concurrent, server never ran more than {:g}", requested, *peak);
    if (queued_cap > 0 && queued_cap < requested && in_flight && *in_flight >= static_cast<double>(queued_cap)) {
        long long limit = queued_cap;
        msg += fmt::format(
            "; admission control (--max-num-queued-reqs {}) kept at most {} in flight, so the "
            "other {} were rejected, not queued",
            limit, limit, requested - limit);
    }
    if (auto cap = running_cap(facts)) {
        ev["running_cap"] = cap->first;
        if (*peak >= static_cast<double>(cap->first) && cap->first < requested) msg += "; " + cap->second;
    }
    return {TripwireId::T8, Status::fail, msg, ev};
}

}  // namespace

}  // namespace inferlint::checks
