#include "inferlint/checks/t18_chunks_not_tokens.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace inferlint::checks {

namespace {

// A client within 10% of the chunks the server's steps made counted chunks. On the recorded
// vLLM 0.28 run, chunks (one per request per step: 48 first tokens + 4,808 drafts) and
// tokens / tokens-per-step (4,817) differ by 1%.
constexpr double kT18ChunkTolerance = 0.10;
// Below this, one chunk is too close to one token to tell a chunk count from a token count.
constexpr double kT18MinTokensPerStep = 1.2;

std::string t18_count(double v) { return util::text::with_commas(static_cast<long long>(std::nearbyint(v))); }

// The mean of a gauge over its series (one per rank); nullopt when it has none.
std::optional<double> t18_gauge_mean(const Snapshot& s, const std::string& name) {
    auto samples = s.metrics().select(name);
    if (samples.empty()) return std::nullopt;
    double sum = 0.0;
    for (const auto* p : samples) sum += p->value;
    return sum / static_cast<double>(samples.size());
}

// What the speculative-decoding counters say the tokens per step came from, for messages.
std::string t18_basis(const Json& ev) {
    if (ev.contains("spec_drafts") && ev["spec_drafts"].is_number())
        return fmt::format("{} accepted draft tokens over {} drafts",
                           t18_count(ev["spec_accepted_tokens"].get<double>()),
                           t18_count(ev["spec_drafts"].get<double>()));
    return "the mean accept length the server reports";
}

CheckResult t18_result(Status status, std::string message, Json ev) {
    return {TripwireId::T18, status, std::move(message), std::move(ev)};
}

// What the result file itself says about chunks and tokens (LoadResult): how it counted,
// and the stream chunks beside the tokens where it states both (GuideLLM's iterations,
// vLLM's per-request ITL lists, inference-perf's token times, AIPerf's server usage).
enum class FileSays { nothing, counted_tokens, counted_chunks };

struct FileEvidence {
    FileSays says = FileSays::nothing;
    std::string why;
};

FileEvidence t18_file_says(const LoadResult& load, Json& ev) {
    const auto tokens = load.output_tokens;
    if (load.output_counting == TokenCounting::client_tokenizer || load.output_counting == TokenCounting::server_usage)
        return {
            FileSays::counted_tokens,
            fmt::format("{} says it counted output tokens by {}", load.tool,
                        load.output_counting == TokenCounting::server_usage ? "the server's usage" : "its tokenizer")};
    if (tokens && load.stream_chunks && *load.stream_chunks > 0) {
        const double per_chunk = static_cast<double>(*tokens) / static_cast<double>(*load.stream_chunks);
        ev["client_tokens_per_chunk"] = per_chunk;
        if (per_chunk >= kT18MinTokensPerStep)
            return {
                FileSays::counted_tokens,
                fmt::format("{} states {} output tokens over {} stream chunks ({:.2f} per chunk)", load.tool,
                            util::text::with_commas(*tokens), util::text::with_commas(*load.stream_chunks), per_chunk)};
    }
    if (load.output_counting == TokenCounting::stream_chunks)
        return {FileSays::counted_chunks, fmt::format("{} says it counted one token per stream chunk", load.tool)};
    if (tokens && load.server_output_tokens && *tokens > 0 &&
        static_cast<double>(*load.server_output_tokens) >= kT18MinTokensPerStep * static_cast<double>(*tokens) &&
        load.stream_chunks && std::llabs(*load.stream_chunks - *tokens) <= *tokens / 50)
        return {FileSays::counted_chunks,
                fmt::format("{} counted {} output tokens, as many as its {} stream chunks, where the server's usage "
                            "said {}",
                            load.tool, util::text::with_commas(*tokens), util::text::with_commas(*load.stream_chunks),
                            util::text::with_commas(*load.server_output_tokens))};
    return {};
}

// The file's evidence, written beside the server's only where the file says something.
FileEvidence t18_file_evidence(const BenchResult& bench, Json& ev) {
    if (!bench.load) return {};
    const LoadResult& load = *bench.load;
    Json file = Json::object();
    FileEvidence says = t18_file_says(load, file);
    if (says.says == FileSays::nothing) return says;
    ev["client_tool"] = load.tool;
    ev["token_counting"] = std::string(to_string(load.output_counting));
    ev["client_stream_chunks"] = or_null(load.stream_chunks);
    ev["client_server_usage_tokens"] = or_null(load.server_output_tokens);
    for (const auto& [k, v] : file.items()) ev[k] = v;
    return says;
}

struct T18Counts {
    long long completed = 0;
    long long client_tokens = 0;
    long long extra_requests = 0;
    double server_tokens = 0.0;
    std::optional<double> tokens_per_step;
};

// The verdict once both sides' counts are read and the requests agree.
CheckResult t18_compare(const T18Counts& c, long long expected_extra, Json ev, const FileEvidence& file) {
    const double per_request =
        c.completed ? static_cast<double>(c.client_tokens) / static_cast<double>(c.completed) : 0.0;
    const double extra_tokens = c.server_tokens - static_cast<double>(c.client_tokens);
    // T15's allowance: the untimed requests' output, up to 1.5x the mean each.
    const double allowed = static_cast<double>(expected_extra) * std::max(per_request, 1.0) * 1.5;
    const std::optional<double> tps = c.tokens_per_step;
    if (extra_tokens >= 0 && extra_tokens <= allowed) {
        std::string how;
        if (tps && *tps >= kT18MinTokensPerStep)
            how = fmt::format(
                ", at {:.2f} tokens per step of speculative decoding: it counted tokens, not stream chunks", *tps);
        else if (tps)
            how = ", one token per step (no speculative decoding)";
        if (file.says == FileSays::counted_tokens) how += fmt::format("; {}", file.why);
        return t18_result(Status::pass,
                          fmt::format("the load tool's {} output tokens agree with the server's {}{}",
                                      util::text::with_commas(c.client_tokens), t18_count(c.server_tokens), how),
                          std::move(ev));
    }
    const std::string counts = fmt::format("the load tool counted {} output tokens and the server generated {}",
                                           util::text::with_commas(c.client_tokens), t18_count(c.server_tokens));
    std::optional<double> ratio;
    if (c.client_tokens > 0) ratio = c.server_tokens / static_cast<double>(c.client_tokens);
    ev["ratio"] = or_null(ratio);
    if (!tps && file.says == FileSays::counted_chunks && c.server_tokens > static_cast<double>(c.client_tokens))
        return t18_result(
            Status::fail,
            fmt::format("{}: {}, so its output tokens and throughput are stream chunks, not tokens", counts, file.why),
            std::move(ev));
    if (!tps)
        return t18_result(
            Status::unknown,
            counts + ", and the server exports no speculative-decoding counters to tell chunks from tokens",
            std::move(ev));
    // The server's tokens for the timed requests alone, shared out by request.
    const double requests = static_cast<double>(c.completed + c.extra_requests);
    const double timed_tokens = requests > 0 ? c.server_tokens * static_cast<double>(c.completed) / requests : 0.0;
    const double chunks = timed_tokens / *tps;
    ev["expected_chunks"] = chunks;
    const bool chunk_count = *tps >= kT18MinTokensPerStep && c.client_tokens > 0 &&
                             std::fabs(static_cast<double>(c.client_tokens) - chunks) <= kT18ChunkTolerance * chunks;
    if (chunk_count && file.says == FileSays::counted_tokens)
        return t18_result(Status::unknown,
                          fmt::format("{}, as a count of stream chunks would be, but {}: not a chunk counter; T15 has "
                                      "the disagreement",
                                      counts, file.why),
                          std::move(ev));
    if (chunk_count) {
        std::string msg = fmt::format(
            "{}, {:.2f}x as many: the {:.2f} tokens per step of speculative decoding "
            "({}), so the load tool counted stream chunks, not tokens, and its output "
            "throughput is low by the same factor",
            counts, *ratio, *tps, t18_basis(ev));
        if (file.says == FileSays::counted_chunks) msg += fmt::format("; {}", file.why);
        return t18_result(Status::fail, std::move(msg), std::move(ev));
    }
    std::string msg = fmt::format(
        "{}, which is not the {:.2f} tokens per step a count of stream chunks would "
        "show; T15 has the disagreement",
        counts, *tps);
    return t18_result(Status::unknown, std::move(msg), std::move(ev));
}

}  // namespace

std::optional<double> tokens_per_step(const Snapshot& before, const Snapshot& after, Deltas& delta, Json& evidence) {
    const MetricNames& names = engine_of({&before, &after}).metrics;
    if (!names.spec_drafts.empty()) {
        auto drafts = delta(names.spec_drafts);
        auto accepted = delta(names.spec_accepted_tokens);
        evidence["spec_drafts"] = or_null(drafts);
        evidence["spec_accepted_tokens"] = or_null(accepted);
        if (!drafts || !accepted || !std::isfinite(*drafts) || !std::isfinite(*accepted)) return std::nullopt;
        return *drafts > 0 ? 1.0 + *accepted / *drafts : 1.0;
    }
    if (!names.spec_accept_length.empty()) {
        auto length = t18_gauge_mean(after, names.spec_accept_length);
        evidence["spec_accept_length"] = or_null(length);
        if (!length || !std::isfinite(*length)) return std::nullopt;
        return std::max(*length, 1.0);  // SGLang writes 0.0 when it does not speculate
    }
    return std::nullopt;
}

CheckResult check_chunks_not_tokens(const BenchResult* bench, const Snapshot& before, const Snapshot& after,
                                    long long expected_extra_requests) {
    const MetricNames& names = engine_of({&before, &after}).metrics;
    Json ev = Json::object();
    ev["client_completed"] = bench ? or_null(bench->completed) : Json(nullptr);
    ev["client_output_tokens"] = bench ? or_null(bench->output_tokens) : Json(nullptr);
    Json spec = Json::object();
    Deltas delta(before, after);
    std::optional<double> done = delta(names.request_success);
    std::optional<double> tokens = delta(names.generation_tokens);
    std::optional<double> tps = tokens_per_step(before, after, delta, spec);
    if (delta.restart()) return restarted(TripwireId::T18, Status::unknown, *delta.restart());
    ev["server_finished"] = or_null(done);
    ev["server_output_tokens"] = or_null(tokens);
    for (const auto& [k, v] : spec.items()) ev[k] = v;
    ev["tokens_per_step"] = or_null(tps);
    ev["expected_extra_requests"] = expected_extra_requests;
    ev["result_file"] = bench ? Json(bench->path) : Json(nullptr);
    if (!bench) return t18_result(Status::unknown, "no result file from the load tool to compare with the server", ev);
    if (!done || !tokens) return t18_result(Status::unknown, "a server counter is missing from a snapshot", ev);
    if (!bench->has_counts())
        return t18_result(Status::unknown, "the result file has no completed or output-token count", ev);
    if (*bench->completed == 0)
        return t18_result(Status::unknown, "the load tool completed no requests, so there are no tokens to compare",
                          ev);
    const FileEvidence file = t18_file_evidence(*bench, ev);
    // The client's own reading of the server's speculation stands in for absent counters.
    if (!tps && bench->load && bench->load->spec_accept_length) {
        tps = std::max(*bench->load->spec_accept_length, 1.0);
        ev["tokens_per_step"] = *tps;
        ev["tokens_per_step_from"] = "result file (spec_decode_acceptance_length)";
    }
    if (!std::isfinite(*done) || !std::isfinite(*tokens) || std::fabs(*done) > 1e15 || std::fabs(*tokens) > 1e15)
        return t18_result(Status::unknown, "a server counter moved by a value that is not a count", ev);

    T18Counts c{.completed = *bench->completed,
                .client_tokens = *bench->output_tokens,
                .extra_requests = static_cast<long long>(*done) - *bench->completed,
                .server_tokens = *tokens,
                .tokens_per_step = tps};
    ev["extra_requests"] = c.extra_requests;
    if (c.extra_requests != expected_extra_requests)
        return t18_result(Status::unknown,
                          "the client's and the server's requests disagree (T15), so their tokens cannot be compared",
                          ev);
    return t18_compare(c, expected_extra_requests, std::move(ev), file);
}

}  // namespace inferlint::checks
