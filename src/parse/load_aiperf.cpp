// NVIDIA AIPerf (ai-dynamo/aiperf). profile_export_aiperf.json in two layouts: the older one
// keeps each metric under records.<tag> {unit, avg, p50, ..., p99, max}; 0.8 writes the
// metrics at the top level beside aiperf_version (aiperf/exporters/json_exporter.py). Its
// inter_token_latency is (request_latency - ttft) / (output tokens - 1): our tpot; its
// inter_chunk_latency is our itl. Output tokens are counted by the client's tokenizer
// unless input_config.endpoint.use_server_token_count is true; the server's usage totals
// sit beside them as total_usage_completion_tokens (the "usage discrepancy").
// profile_export.jsonl: one record per request {metadata, metrics: {name: {value, unit}},
// error} (aiperf/common/models/record_models.py, MetricRecordInfo).
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

// The metric object: records.<tag> or the top-level <tag>.
const Json* metric(const Json& doc, std::string_view tag) {
    if (const Json* r = Fields::at(doc, fmt::format("records.{}", tag))) return r;
    const Json* m = Fields::at(doc, tag);
    return m && m->is_object() && m->contains("unit") ? m : nullptr;
}

std::optional<long long> metric_count(const Json& doc, std::string_view tag, const Fields& f) {
    const Json* m = metric(doc, tag);
    return m ? f.count(*m, "avg") : std::nullopt;
}

LatencyStats metric_stats(const Json& doc, std::string_view tag, const Fields& f) {
    const Json* m = metric(doc, tag);
    if (!m) return {};
    auto unit = f.text(*m, "unit");
    if (!unit) f.fail(fmt::format("\"{}\" states no unit", tag));
    const double to_ms = f.unit_to_ms(*unit, tag);
    return f.stats(*m, {"avg", "p50", "p90", "p95", "p99", "max"}, to_ms);
}

}  // namespace

bool is_aiperf(const Json& doc) {
    if (!doc.is_object()) return false;
    if (doc.contains("aiperf_version")) return true;
    const Json* rc = Fields::at(doc, "records.request_count");
    return rc && rc->is_object() && rc->contains("tag");
}

LoadResult read_aiperf(const Json& doc, const Fields& f) {
    LoadResult r = f.result("aiperf");
    r.tool_version = f.text(doc, "aiperf_version");
    r.completed = metric_count(doc, "request_count", f);
    r.failed = metric_count(doc, "error_request_count", f);
    r.output_tokens = metric_count(doc, "total_output_tokens", f);
    r.input_tokens = metric_count(doc, "total_isl", f);
    r.server_output_tokens = metric_count(doc, "total_usage_completion_tokens", f);
    if (const Json* d = metric(doc, "benchmark_duration")) {
        auto unit = f.text(*d, "unit");
        if (auto v = f.latency(*d, "avg", f.unit_to_ms(unit.value_or("?"), "benchmark_duration")))
            r.duration_s = *v / 1000.0;
    }
    if (const Json* t = metric(doc, "output_token_throughput")) r.output_throughput = f.number(*t, "avg");
    auto stats = [&](const char* key) { return metric_stats(doc, key, f); };
    r.ttft_ms = stats("ttft");
    if (r.ttft_ms.empty()) r.ttft_ms = stats("time_to_first_token");
    loadjson::read_latencies(r, {.tpot = "inter_token_latency", .itl = "inter_chunk_latency", .e2e = "request_latency"},
                             stats);
    // Concurrency: 0.8's phases, the older loadgen.
    r.concurrency = f.number(doc, "input_config.phases.0.concurrency");
    if (!r.concurrency) r.concurrency = f.number(doc, "input_config.loadgen.concurrency");
    r.request_rate = f.number(doc, "input_config.phases.0.rate");
    if (!r.request_rate) r.request_rate = f.number(doc, "input_config.loadgen.request_rate");
    r.endpoint = f.text(doc, "input_config.endpoint.type");
    r.dataset = f.text(doc, "input_config.datasets.0.type");
    if (const Json* use = Fields::at(doc, "input_config.endpoint.use_server_token_count"); use && use->is_boolean())
        r.output_counting = use->get<bool>() ? TokenCounting::server_usage : TokenCounting::client_tokenizer;
    else if (Fields::at(doc, "input_config.tokenizer.name"))
        r.output_counting = TokenCounting::client_tokenizer;
    if (const Json* errs = Fields::at(doc, "error_summary"); errs && errs->is_array()) {
        for (const Json& e : *errs) {
            auto type = f.text(e, "error_details.type");
            auto n = f.count(e, "count");
            if (type && *type == "RequestCancellationError" && n) r.cancelled = r.cancelled.value_or(0) + *n;
            r.failure_reasons.push_back(fmt::format("{} ({})", type.value_or("error"), n.value_or(0)));
        }
    }
    if (metric(doc, "total_reasoning_tokens"))
        r.metric_notes.push_back("AIPerf's total_output_tokens leaves out reasoning tokens (total_reasoning_tokens)");
    r.metric_notes.push_back("AIPerf's inter_token_latency is tpot; its inter_chunk_latency is itl");
    return r;
}

bool is_aiperf_records(const std::vector<Json>& lines) {
    const Json& first = lines.front();
    return Fields::at(first, "metadata.x_request_id") && first.contains("metrics");
}

LoadResult read_aiperf_records(const std::vector<Json>& lines, const Fields& f) {
    LoadResult r = f.result("aiperf");
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const Json& line = lines[i];
        if (!Fields::at(line, "metadata")) f.fail(fmt::format("line {}: not an AIPerf record", i + 1));
        RequestRecord rec;
        const Json* m = Fields::at(line, "metrics");
        auto value_ms = [&](const char* tag) -> std::optional<double> {
            const Json* v = m ? Fields::at(*m, tag) : nullptr;
            if (!v || !v->contains("value") || !(*v)["value"].is_number()) return std::nullopt;
            return f.latency(*v, "value", f.unit_to_ms(f.text(*v, "unit").value_or("?"), tag));
        };
        if (auto ns = f.number(line, "metadata.timestamp_ns")) rec.start_s = *ns / 1e9;
        rec.ttft_ms = value_ms("ttft");
        rec.e2e_ms = value_ms("request_latency");
        if (m) {
            rec.input_tokens = f.count(*m, "input_sequence_length.value");
            // output_sequence_length counts reasoning tokens too, as the server does; a record
            // of a reasoning model may have no output_token_count at all.
            rec.output_tokens = f.count(*m, "output_sequence_length.value");
            if (!rec.output_tokens) rec.output_tokens = f.count(*m, "output_token_count.value");
            if (const Json* icl = Fields::at(*m, "inter_chunk_latency.value"); icl && icl->is_array())
                rec.stream_chunks = static_cast<long long>(icl->size()) + 1;
        }
        if (const Json* e = Fields::at(line, "error"))
            rec.error = f.text(*e, "type").value_or(f.text(*e, "message").value_or("error"));
        loadjson::check_record(f, rec, i);
        r.requests.push_back(std::move(rec));
    }
    return r;
}

}  // namespace inferlint::loadread
