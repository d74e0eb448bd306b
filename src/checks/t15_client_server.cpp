#include "inferlint/checks/t15_client_server.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace inferlint::checks {

namespace {

const char* plural_s(long long n) { return n == 1 ? "" : "s"; }

// The requests the server counts as finished that the load tool counts as failed: vLLM
// counts an aborted or errored request in request_success_total (finished_reason "abort",
// "error"), and the load tool counts the same request as failed, not completed. Set aside,
// so that T15 holds what completed against what finished normally (T20 counts them). 0
// where the engine counts its failures apart (SGLang, TensorRT-LLM) or does not say.
struct SetAside {
    double requests = 0.0;
    std::string counters;
};

// Takes them off `done`, and says so in `ev`; only where some were set aside do the
// evidence's keys change (the reference's stay as they were).
SetAside set_aside_failures(const Snapshot& before, const Snapshot& after, double& done, Json& ev) {
    const ServerFailures s = server_failures(before, after);
    if (!s.problem.empty() || !s.in_finished_counter || !(*s.in_finished_counter > 0)) return {};
    SetAside a{*s.in_finished_counter, s.counters};
    ev["server_set_aside"] = a.requests;
    ev["server_set_aside_counters"] = a.counters;
    done -= a.requests;
    ev["server_finished_normally"] = done;
    return a;
}

// Appended to every verdict that set requests aside, so the message says what was not compared.
std::string set_aside_words(const SetAside& a) {
    if (a.requests <= 0) return "";
    const long long n = std::llround(a.requests);
    return fmt::format(
        " (the server's {} aborted or errored request{} set aside: {} count them as finished, the "
        "load tool as failed; see {})",
        n, plural_s(n), a.counters, code(TripwireId::T20));
}

}  // namespace

CheckResult check_client_server_agree(const BenchResult& bench, const Snapshot& before, const Snapshot& after,
                                      long long expected_extra_requests, const CheckResult* chunks) {
    const MetricNames& names = engine_of({&before, &after}).metrics;
    Deltas delta(before, after);
    std::optional<double> done = delta(names.request_success);
    std::optional<double> tokens = delta(names.generation_tokens);
    if (delta.restart()) return restarted(TripwireId::T15, Status::unknown, *delta.restart());
    Json ev = Json::object();
    ev["client_completed"] = or_null(bench.completed);
    ev["client_failed"] = or_null(bench.failed);
    ev["client_output_tokens"] = or_null(bench.output_tokens);
    ev["server_finished"] = or_null(done);
    ev["server_output_tokens"] = or_null(tokens);
    ev["expected_extra_requests"] = expected_extra_requests;
    ev["result_file"] = bench.path;
    if (!done || !tokens) return {TripwireId::T15, Status::unknown, "a server counter is missing from a snapshot", ev};
    if (!bench.completed || !bench.output_tokens)
        return {TripwireId::T15, Status::unknown, "the result file has no completed or output-token count", ev};
    if (!std::isfinite(*done) || !std::isfinite(*tokens) || std::fabs(*done) > 1e15)
        return {TripwireId::T15, Status::unknown, "a server counter moved by a value that is not a count", ev};
    const SetAside aside = set_aside_failures(before, after, *done, ev);
    const std::string aside_words = set_aside_words(aside);

    const long long completed = *bench.completed;
    const long long client_tokens = *bench.output_tokens;
    const long long extra = static_cast<long long>(*done) - completed;  // int(), as the Python tool truncates
    ev["extra_requests"] = extra;
    if (extra > expected_extra_requests) {
        long long other = extra - expected_extra_requests;
        return {TripwireId::T15, Status::fail,
                fmt::format("the server finished {} more request{} than the load tool sent; other traffic "
                            "shared the server during the run{}",
                            other, plural_s(other), aside_words),
                ev};
    }
    if (extra < expected_extra_requests) {
        long long missing = expected_extra_requests - extra;
        return {TripwireId::T15, Status::fail,
                fmt::format("the load tool counted {} more completed request{} than the server finished{}", missing,
                            plural_s(missing), aside_words),
                ev};
    }
    // Nothing completed on either side: the counts agree, but there is nothing to agree on.
    if (completed == 0)
        return {TripwireId::T15, Status::unknown,
                "the load tool completed no request, so its result holds nothing to compare with the server's "
                "counters",
                ev};
    const double per_request = static_cast<double>(client_tokens) / static_cast<double>(completed);
    const double extra_tokens = *tokens - static_cast<double>(client_tokens);
    ev["extra_output_tokens"] = extra_tokens;
    // The untimed requests generate output too, and so may an aborted one before it stops; a
    // difference beyond what they can explain means the client and the server counted
    // different tokens.
    const double allowed =
        (static_cast<double>(expected_extra_requests) + aside.requests) * std::max(per_request, 1.0) * 1.5;
    if (!(extra_tokens >= 0 && extra_tokens <= allowed)) {
        // nearbyint rounds half to even, as Python's format does.
        std::string msg = fmt::format(
            "requests agree, but the server generated {} output tokens and the load tool "
            "counted {}",
            util::text::with_commas(static_cast<long long>(std::nearbyint(*tokens))),
            util::text::with_commas(client_tokens));
        if (chunks && chunks->tripwire == TripwireId::T18 && chunks->status == Status::fail) {
            msg += fmt::format(": it counted stream chunks, not tokens ({})", code(TripwireId::T18));
            ev["cause"] = std::string(code(TripwireId::T18));
        }
        return {TripwireId::T15, Status::warn, msg + aside_words, ev};
    }
    std::string msg = fmt::format("client and server agree: {} requests, {} output tokens", completed,
                                  util::text::with_commas(client_tokens));
    if (extra) msg += fmt::format(", plus {} untimed request{} (test or warm-up)", extra, plural_s(extra));
    msg += aside_words;
    return {TripwireId::T15, Status::pass, msg, ev};
}

}  // namespace inferlint::checks
