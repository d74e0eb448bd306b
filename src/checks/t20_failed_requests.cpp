#include "inferlint/checks/t20_failed_requests.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::checks {

namespace {

using util::text::with_commas;

std::string t20_join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
    return out;
}

// The counters each engine keeps of the requests it did not finish normally. Checked
// against the upstream sources:
//  - vLLM: vllm:request_success_total{finished_reason} (vllm/v1/metrics/loggers.py @
//    005a810bc40faa25b8870fbc8559c3462581eee3) registers one series per FinishReason at start
//    ("stop", "length", "abort", and "error" in newer releases), so a missing "abort" series
//    is an older server, not zero aborts. Aborts are among the finished requests it counts.
//  - SGLang: sglang:num_aborted_requests_total (python/sglang/srt/metrics/collector.py @
//    00ae9c1590d2d0bb6c0bfff39e312c34ae3dd538, TokenizerMetricsCollector), written from the
//    first abort on; num_requests_total, its witness, counts the requests finished normally.
//  - TensorRT-LLM: trtllm_request_error_total (tensorrt_llm/metrics/collector.py @
//    050f80def8df236e326949c8bd9dee10fd896a83), newer than 1.3.0rc29, which exports no
//    failure counter at all.
struct T20Counters {
    std::string total;                        // every request finished (normally, or all)
    std::vector<std::string> failed_reasons;  // values of finished_reason that are failures
    std::string failed_counter;               // a counter of its own
    std::string witness;                      // exported from the start, for a lazy failed_counter
    bool failed_in_total = false;             // `total` already counts the failed ones
};

T20Counters t20_counters_of(const Engine& engine) {
    switch (engine.id) {
        case EngineId::vllm:
            return {engine.metrics.request_success, {"abort", "error"}, "", "", true};
        case EngineId::sglang:
            return {engine.metrics.request_success,
                    {},
                    "sglang:num_aborted_requests_total",
                    engine.metrics.request_success,
                    false};
        case EngineId::trtllm:
            return {engine.metrics.request_success, {}, "trtllm_request_error_total", "", false};
    }
    return {};
}

bool t20_vllm_family(const BenchResult& bench) {
    const std::string tool = bench.load ? bench.load->tool : bench.client.value_or("");
    return bench.client || tool == "vllm-format result" || tool.rfind("vllm", 0) == 0 || tool.rfind("sglang", 0) == 0 ||
           tool.rfind("tensorrt_llm", 0) == 0;
}

std::string t20_tool_of(const BenchResult& bench) {
    if (bench.load && !bench.load->tool.empty()) return bench.load->tool;
    return bench.client.value_or("the load tool");
}

std::string t20_pct(double share) { return fmt::format("{:.1f}%", 100.0 * share); }

CheckResult t20_result(Status s, std::string message, Json ev) {
    return {TripwireId::T20, s, std::move(message), std::move(ev)};
}

// The sentence that says what the survivors' figures are.
std::string t20_survivors(const std::optional<long long>& completed) {
    const std::string who = completed ? fmt::format("the {} that completed", with_commas(*completed))
                                      : std::string("the requests that completed");
    return fmt::format(
        "the load tool's latencies (TTFT, TPOT, ITL, end-to-end) and its request and token throughput cover only {}; "
        "the failed ones are in none of them",
        who);
}

}  // namespace

ClientFailures client_failures(const BenchResult& bench) {
    ClientFailures c;
    const LoadResult* load = bench.load ? &*bench.load : nullptr;
    c.completed = load && load->completed ? load->completed : bench.completed;
    const std::optional<long long> failed = load && load->failed ? load->failed : bench.failed;
    const std::optional<long long> cancelled = load ? load->cancelled : std::nullopt;
    const std::optional<long long> incomplete = load ? load->incomplete : std::nullopt;
    for (const auto& [name, v] :
         {std::pair{"completed", c.completed}, std::pair{"failed", failed}, std::pair{"cancelled", cancelled},
          std::pair{"incomplete", incomplete}, std::pair{"num_prompts", bench.num_prompts}})
        if (v && *v < 0) {
            c.problem = fmt::format("{} states {} {} requests, a negative count", bench.path, with_commas(*v), name);
            return c;
        }
    const std::string tool = t20_tool_of(bench);
    if (failed || cancelled || incomplete) {
        // AIPerf counts its cancellations among its errors (error_request_count includes the
        // RequestCancellationError of error_summary), so failed and cancelled can be the same
        // requests: the larger of the two is what is sure.
        c.lost = std::max(failed.value_or(0), cancelled.value_or(0)) + incomplete.value_or(0);
        std::vector<std::string> parts;
        if (failed) parts.push_back(fmt::format("{} failed", with_commas(*failed)));
        if (cancelled && *cancelled) parts.push_back(fmt::format("{} cancelled", with_commas(*cancelled)));
        if (incomplete && *incomplete) parts.push_back(fmt::format("{} incomplete", with_commas(*incomplete)));
        c.basis = fmt::format("{} says {}", tool, t20_join(parts, ", "));
        if (load && !load->failure_reasons.empty())
            c.basis += fmt::format(": {}", t20_join(load->failure_reasons, ", "));
    } else if (bench.num_prompts && c.completed && t20_vllm_family(bench)) {
        // vLLM's benchmark_serving awaits every request it sends, so each of its num_prompts
        // either completed or failed; older releases save no "failed" field.
        c.lost = *bench.num_prompts - *c.completed;
        c.basis = fmt::format("{} completed {} of the {} prompts it sent (num_prompts) and states no failed count",
                              tool, with_commas(*c.completed), with_commas(*bench.num_prompts));
    }
    if (c.lost && *c.lost < 0)
        c.problem = fmt::format("{} states {} completed of {} sent: the counts do not add up", bench.path,
                                with_commas(c.completed.value_or(0)), with_commas(*bench.num_prompts));
    else if (c.lost && bench.num_prompts && c.completed && (failed || cancelled || incomplete) &&
             *c.completed + *c.lost > *bench.num_prompts)
        c.problem = fmt::format("{} states {} completed and {} failed of {} sent: the counts do not add up", bench.path,
                                with_commas(*c.completed), with_commas(*c.lost), with_commas(*bench.num_prompts));
    else if (c.lost && !c.completed)
        c.problem = fmt::format("{} states failed requests but no completed count", bench.path);
    else if (c.lost && *c.completed == 0 && *c.lost == 0)
        c.problem = fmt::format("{} counts no request at all (0 completed, 0 failed)", bench.path);
    return c;
}

namespace {

// The HTTP layer's counters of answers by handler and status. Checked against the upstream
// sources:
//  - vLLM: prometheus-fastapi-instrumentator's default http_requests_total{handler, method,
//    status}, status grouped as "2xx", "4xx", "5xx" (vllm/entrypoints/serve/instrumentator/
//    metrics.py @ 02a69ad2710b79425c217f79dd4ad8e4ea671ee1, Instrumentator(excluded_handlers=
//    ["/metrics", "/health", ...]); the recorded 0.28-0.30 snapshots in ../shared/reference
//    have it). A streamed answer's status is its first line: an abort mid-stream is a 200.
//  - SGLang: sglang:http_responses_total{endpoint, status_code, method}, the exact code
//    (python/sglang/srt/utils/common.py @ 4e75f4684b6b67cbb5a02b4106cf1b629d616dba,
//    add_prometheus_track_response_middleware, with --enable-metrics).
//  - TensorRT-LLM: no HTTP counter (the 1.3.0rc29 snapshots in ../shared/reference have none).
struct T20HttpFamily {
    const char* name;
    const char* handler;
    const char* status;
};
constexpr T20HttpFamily kT20HttpFamilies[] = {{"http_requests_total", "handler", "status"},
                                              {"sglang:http_responses_total", "endpoint", "status_code"}};
// The handlers that generate: OpenAI's completions, chat and responses, Anthropic's
// messages (vLLM), SGLang's native /generate.
constexpr std::string_view kT20GenerationHandlers[] = {"/v1/completions", "/v1/chat/completions", "/v1/responses",
                                                       "/v1/messages", "/generate"};

bool t20_generation_handler(std::string_view h) {
    for (auto g : kT20GenerationHandlers)
        if (h == g) return true;
    return false;
}

bool t20_error_status(std::string_view s) { return !s.empty() && (s[0] == '4' || s[0] == '5'); }

// A series' value in `m` with exactly these labels; 0 when `m` has the family but not this
// series: prometheus_client makes a labelled series at its first answer, so one not there
// yet had counted none.
double t20_series_before(const prom::Metrics& m, const prom::Sample& s) {
    for (const auto* b : m.select(s.name, s.labels))
        if (b->labels == s.labels) return b->value;
    return 0.0;
}

}  // namespace

void add_http_errors(const Snapshot& before, const Snapshot& after, ServerFailures& out) {
    const prom::Metrics& mb = before.metrics();
    const prom::Metrics& ma = after.metrics();
    for (const auto& fam : kT20HttpFamilies) {
        if (!ma.has(fam.name) || !mb.has(fam.name)) continue;
        double errors = 0, answers = 0, other = 0;
        Json by = Json::object();
        for (const auto* s : ma.select(fam.name)) {
            const double rise = s->value - t20_series_before(mb, *s);
            if (!std::isfinite(rise) || rise < 0) {
                out.problem = fmt::format("{} went down between the snapshots: the server restarted", fam.name);
                return;
            }
            const std::string handler(s->label(fam.handler).value_or(""));
            const std::string status(s->label(fam.status).value_or(""));
            const bool error = t20_error_status(status);
            if (!t20_generation_handler(handler)) {
                if (error) other += rise;
                continue;
            }
            answers += rise;
            if (!error || rise == 0) continue;
            errors += rise;
            const std::string key = handler + " " + status;
            by[key] = (by.contains(key) ? by[key].get<double>() : 0.0) + rise;
        }
        out.http_errors = errors;
        out.http_answers = answers;
        out.http_by_answer = std::move(by);
        out.http_other_errors = other;
        out.http_counter = fmt::format("{}{{{}=~generation handlers,{}=~4xx|5xx}}", fam.name, fam.handler, fam.status);
        return;
    }
}

ServerFailures server_failures(const Snapshot& before, const Snapshot& after) {
    ServerFailures s;
    const Engine& engine = engine_of({&before, &after});
    const T20Counters fc = t20_counters_of(engine);
    Deltas delta(before, after);
    const auto total = delta(fc.total);
    std::optional<double> failed;
    std::vector<std::string> read;
    for (const auto& reason : fc.failed_reasons) {
        auto n = delta(fc.total, "", {{engine.metrics.finished_reason_label, reason}});
        if (!n) continue;
        failed = failed.value_or(0.0) + *n;
        read.push_back(fmt::format("{}{{{}=\"{}\"}}", fc.total, engine.metrics.finished_reason_label, reason));
    }
    if (!fc.failed_counter.empty()) {
        failed = delta(fc.failed_counter, fc.witness);
        if (failed) read.push_back(fc.failed_counter);
    }
    if (delta.restart()) {
        s.problem = delta.restart()->message;
        return s;
    }
    add_http_errors(before, after, s);
    if (!s.problem.empty()) return s;
    if (!failed || !total) return s;
    if (!std::isfinite(*failed) || !std::isfinite(*total) || *failed < 0 || *total < 0) {
        s.problem = "a server counter moved by a value that is not a count";
        return s;
    }
    s.failed = *failed;
    s.finished = fc.failed_in_total ? *total : *total + *failed;
    s.in_finished_counter = fc.failed_in_total ? *failed : 0.0;
    s.counters = t20_join(read, " and ");
    return s;
}

std::optional<double> failed_share(const BenchResult& bench) {
    const ClientFailures c = client_failures(bench);
    if (!c.problem.empty() || !c.lost || !c.completed || *c.completed + *c.lost <= 0) return std::nullopt;
    return static_cast<double>(*c.lost) / static_cast<double>(*c.completed + *c.lost);
}

namespace {

Json t20_evidence(const ClientFailures& c, const ServerFailures& s, double accepted_share) {
    Json ev = Json::object();
    ev["client_completed"] = or_null(c.completed);
    ev["client_failed"] = or_null(c.lost);
    ev["client_basis"] = c.basis.empty() ? Json(nullptr) : Json(c.basis);
    ev["server_failed"] = or_null(s.failed);
    ev["server_finished"] = or_null(s.finished);
    ev["server_counters"] = s.counters.empty() ? Json(nullptr) : Json(s.counters);
    ev["server_http_errors"] = or_null(s.http_errors);
    ev["server_http_answers"] = or_null(s.http_answers);
    ev["server_http_counter"] = s.http_counter.empty() ? Json(nullptr) : Json(s.http_counter);
    if (s.http_errors) {
        ev["server_http_by_answer"] = s.http_by_answer;
        ev["server_http_other_errors"] = s.http_other_errors;
    }
    ev["accepted_share"] = accepted_share;
    return ev;
}

// FAIL, or WARN at or under the accepted share.
CheckResult t20_failed(double share, std::string what, double accepted_share, Json ev) {
    ev["failed_share"] = share;
    if (accepted_share > 0 && share <= accepted_share + 1e-12)
        return t20_result(
            Status::warn,
            fmt::format("{}, at or under the {} accepted (--max-failed-share)", what, t20_pct(accepted_share)),
            std::move(ev));
    return t20_result(Status::fail, std::move(what), std::move(ev));
}

// What the server's two witnesses say of its failures, as clauses: the engine's finished
// reasons and the HTTP layer's error answers. The same request can be in both (an abort
// answered with a 500), so the server's count is the larger of the two, never their sum.
struct T20ServerSays {
    std::optional<double> lost;
    std::optional<double> of;  // what `lost` is a share of
    std::vector<std::string> clauses;
};

T20ServerSays t20_server_says(const ServerFailures& s) {
    T20ServerSays out;
    if (s.failed) {
        out.lost = *s.failed, out.of = *s.finished;
        if (*s.failed > 0)
            out.clauses.push_back(fmt::format("the server finished {} of {} requests as aborted or errored ({})",
                                              with_commas(std::llround(*s.failed)),
                                              with_commas(std::llround(*s.finished)), s.counters));
    }
    if (s.http_errors) {
        if (!out.lost || *s.http_errors > *out.lost) out.lost = *s.http_errors, out.of = *s.http_answers;
        if (*s.http_errors > 0) {
            std::vector<std::string> by;
            for (const auto& [k, v] : s.http_by_answer.items())
                by.push_back(fmt::format("{} {}", with_commas(std::llround(v.get<double>())), k));
            out.clauses.push_back(fmt::format("it answered {} of {} generation requests with an HTTP error ({}; {})",
                                              with_commas(std::llround(*s.http_errors)),
                                              with_commas(std::llround(*s.http_answers)), t20_join(by, ", "),
                                              s.http_counter));
        }
    }
    return out;
}

// Can't tell: neither side says.
CheckResult t20_unknown(const BenchResult* bench, const Snapshot* before, const Snapshot* after,
                        const ServerFailures& s, Json ev) {
    std::string missing = bench ? fmt::format("{} states no failed, cancelled or incomplete count", bench->path)
                                : std::string("no load tool's result");
    if (!s.problem.empty())
        missing += fmt::format(", and the server's counters cannot be read ({})", s.problem);
    else if (before && after)
        missing += ", and the snapshots hold no counter of failed requests or HTTP error answers for this engine";
    else
        missing += ", and no snapshots before and after the run";
    return t20_result(
        Status::unknown,
        fmt::format("{}: give the load tool's result (--bench-result) with its failed count, or snapshots "
                    "of a server that counts aborted requests (vLLM's request_success_total by "
                    "finished_reason, SGLang's num_aborted_requests_total) or its HTTP answers (vLLM's "
                    "http_requests_total, SGLang's http_responses_total)",
                    missing),
        std::move(ev));
}

}  // namespace

CheckResult check_failed_requests(const BenchResult* bench, const Snapshot* before, const Snapshot* after,
                                  double accepted_share) {
    const ClientFailures c = bench ? client_failures(*bench) : ClientFailures{};
    const ServerFailures s = before && after ? server_failures(*before, *after) : ServerFailures{};
    Json ev = t20_evidence(c, s, accepted_share);
    if (!c.problem.empty()) return t20_result(Status::unknown, c.problem, std::move(ev));
    const T20ServerSays server = t20_server_says(s);
    const bool client_says = c.lost.has_value();
    const bool server_says = server.lost.has_value();
    const std::string server_part = server.clauses.empty() ? "" : "; " + t20_join(server.clauses, "; ");
    if (client_says && *c.lost > 0) {
        const long long sent = *c.completed + *c.lost;
        const double share = static_cast<double>(*c.lost) / static_cast<double>(sent);
        return t20_failed(
            share,
            fmt::format("{} of {} requests did not complete ({}; {}){}: {}", with_commas(*c.lost), with_commas(sent),
                        t20_pct(share), c.basis, server_part, t20_survivors(c.completed)),
            accepted_share, std::move(ev));
    }
    if (server_says && *server.lost > 0) {
        const double share = *server.of > 0 ? *server.lost / *server.of : 1.0;
        std::string what =
            fmt::format("{} between the snapshots ({} failed)", t20_join(server.clauses, "; "), t20_pct(share));
        if (client_says) what += fmt::format(", though {}", c.basis);
        return t20_failed(share, fmt::format("{}: {}", what, t20_survivors(c.completed)), accepted_share,
                          std::move(ev));
    }
    if (client_says || server_says) {
        std::vector<std::string> who;
        if (client_says) who.push_back(c.basis);
        if (s.failed) who.push_back(fmt::format("the server's {} did not move", s.counters));
        if (s.http_errors)
            who.push_back(
                fmt::format("the server answered no generation request with an HTTP error ({})", s.http_counter));
        const std::string n = c.completed ? with_commas(*c.completed) + " " : std::string();
        return t20_result(Status::pass, fmt::format("none of the {}requests failed: {}", n, t20_join(who, "; ")),
                          std::move(ev));
    }
    return t20_unknown(bench, before, after, s, std::move(ev));
}

}  // namespace inferlint::checks
