// inference-perf (kubernetes-sigs/inference-perf): a report folder of
// summary_lifecycle_metrics.json, stage_N_lifecycle_metrics.json (inference_perf/reportgen/
// base.py, summarize_requests: {load_summary, successes: {count, latency, throughput,
// prompt_len, output_len}, failures}), per_request_lifecycle_metrics.json (a list of
// {start_time, end_time, request, response, info: {input_tokens, output_tokens,
// output_token_times}, error}) and *_prometheus_metrics.json (the server's side).
// Latencies are in seconds and the file says no unit; they are converted to ms here. Its
// time_per_output_token is our tpot, inter_token_latency our itl (one gap per chunk),
// normalized_time_per_output_token our norm_tpot.
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

constexpr double kSecondsToMs = 1000.0;

LatencyStats seconds(const Json& doc, const char* name, const Fields& f) {
    const Json* d = Fields::at(doc, fmt::format("successes.latency.{}", name));
    if (!d) return {};
    return f.stats(*d, {"mean", "median", "p90", "p95", "p99", "max"}, kSecondsToMs);
}

}  // namespace

bool is_inference_perf(const Json& doc) {
    return doc.is_object() && doc.contains("load_summary") && doc.contains("successes") &&
           Fields::at(doc, "successes.latency") != nullptr;
}

bool is_inference_perf_prometheus(const Json& doc) {
    return doc.contains("load_summary") && doc.contains("successes") && Fields::at(doc, "successes.rate") &&
           !Fields::at(doc, "successes.latency");
}

LoadResult read_inference_perf(const Json& doc, const Fields& f) {
    LoadResult r = f.result("inference-perf");
    f.take(doc, r,
           {{"successes.count", &LoadResult::completed},
            {"failures.count", &LoadResult::failed},
            {"successes.prompt_tokens.total", &LoadResult::input_tokens},
            {"successes.output_tokens.total", &LoadResult::output_tokens},
            {"benchmark_time_seconds", &LoadResult::duration_s}});
    if (!r.duration_s) r.duration_s = f.number(doc, "load_summary.send_duration");
    f.take(doc, r,
           {{"load_summary.requested_rate", &LoadResult::request_rate},
            {"successes.throughput.output_tokens_per_sec", &LoadResult::output_throughput}});
    loadjson::read_latencies(r,
                             {.ttft = "time_to_first_token",
                              .tpot = "time_per_output_token",
                              .itl = "inter_token_latency",
                              .e2e = "request_latency",
                              .norm_tpot = "normalized_time_per_output_token"},
                             [&](const char* key) { return seconds(doc, key, f); });
    r.metric_notes.push_back("inference-perf writes seconds (converted to ms); its inter_token_latency is itl");
    return r;
}

bool is_inference_perf_requests(const Json& doc) {
    return doc.is_array() && !doc.empty() && doc.front().is_object() && doc.front().contains("start_time") &&
           doc.front().contains("info") && doc.front().contains("end_time");
}

// Two layouts of info: the older {input_tokens, output_tokens, output_token_times}, and
// InferenceInfo since the multimodal rewrite (inference_perf/apis/base.py): input_tokens
// beside response_metrics {output_tokens (the client's re-tokenized count), server_usage,
// chunk_times, output_token_times}.
static RequestRecord inference_perf_request(const Json& q, const Fields& f, std::size_t i,
                                            std::optional<long long>& server_tokens) {
    if (!q.is_object()) f.fail(fmt::format("request {}: not an object", i));
    RequestRecord rec;
    rec.start_s = f.number(q, "start_time");
    rec.end_s = f.number(q, "end_time");
    rec.input_tokens = f.count(q, "info.input_tokens");
    const Json* info = Fields::at(q, "info");
    if (!info || !info->is_object()) f.fail(fmt::format("request {}: no info object", i));
    const Json* rm = Fields::at(*info, "response_metrics");
    const Json& from = rm ? *rm : *info;
    rec.output_tokens = f.count(from, "output_tokens");
    const Json* times = Fields::at(from, "chunk_times");
    if (!times) times = Fields::at(from, "output_token_times");
    if (times && times->is_array()) {
        rec.stream_chunks = static_cast<long long>(times->size());
        if (!times->empty()) rec.first_token_s = f.number(*times, "0");
    }
    if (const Json* e = Fields::at(q, "error"))
        rec.error = e->is_string() ? e->get<std::string>() : f.text(*e, "error_type").value_or("error");
    if (!rec.error) {
        auto usage = rm ? f.count(*rm, "server_usage.completion_tokens") : std::nullopt;
        if (server_tokens && usage)
            *server_tokens += *usage;
        else
            server_tokens = std::nullopt;
    }
    loadjson::check_record(f, rec, i);
    return rec;
}

LoadResult read_inference_perf_requests(const Json& doc, const Fields& f) {
    LoadResult r = f.result("inference-perf");
    std::optional<long long> server_tokens = 0;
    for (std::size_t i = 0; i < doc.size(); ++i)
        r.requests.push_back(inference_perf_request(doc[i], f, i, server_tokens));
    r.server_output_tokens = server_tokens;
    // Its output_tokens are the client's re-tokenization (reportgen/base.py,
    // effective_output_tokens); the server's usage is beside them where it answered one.
    if (r.server_output_tokens) r.output_counting = TokenCounting::client_tokenizer;
    return r;
}

}  // namespace inferlint::loadread
