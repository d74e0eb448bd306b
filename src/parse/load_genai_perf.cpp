// genai-perf (triton-inference-server/perf_analyzer, genai-perf/genai_perf/export_data/
// json_exporter.py): profile_export_genai_perf.json, each metric {unit, avg, p50, ..., p99,
// max} at the top level beside input_config; its inter_token_latency is our tpot (as
// AIPerf's, its successor). perf_analyzer's profile_export.json holds the requests:
// experiments[].requests[] {timestamp (ns), response_timestamps (ns, one per chunk)}.
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

LatencyStats stats_of(const Json& doc, const char* tag, const Fields& f) {
    const Json* m = Fields::at(doc, tag);
    if (!m || !m->is_object()) return {};
    auto unit = f.text(*m, "unit");
    if (!unit) f.fail(fmt::format("\"{}\" states no unit", tag));
    return f.stats(*m, {"avg", "p50", "p90", "p95", "p99", "max"}, f.unit_to_ms(*unit, tag));
}

}  // namespace

bool is_genai_perf(const Json& doc) {
    if (!doc.is_object() || doc.contains("aiperf_version") || !doc.contains("input_config")) return false;
    const Json* m = Fields::at(doc, "request_latency");
    if (!m) m = Fields::at(doc, "time_to_first_token");
    return m && m->is_object() && m->contains("unit");
}

LoadResult read_genai_perf(const Json& doc, const Fields& f) {
    LoadResult r = f.result("genai-perf");
    f.take(doc, r,
           {{"request_count.avg", &LoadResult::completed},
            {"output_token_throughput.avg", &LoadResult::output_throughput}});
    loadjson::read_latencies(r,
                             {.ttft = "time_to_first_token", .tpot = "inter_token_latency", .e2e = "request_latency"},
                             [&](const char* key) { return stats_of(doc, key, f); });
    r.concurrency = f.number(doc, "input_config.concurrency");
    if (!r.concurrency) r.concurrency = f.number(doc, "input_config.perf_analyzer.stimulus.concurrency");
    r.request_rate = f.number(doc, "input_config.request_rate");
    r.metric_notes.push_back("genai-perf's inter_token_latency is tpot");
    return r;
}

bool is_perf_analyzer(const Json& doc) {
    const Json* e = Fields::at(doc, "experiments.0");
    return e && e->is_object() && e->contains("requests");
}

LoadResult read_perf_analyzer(const Json& doc, const Fields& f) {
    LoadResult r = f.result("genai-perf");
    r.tool_version = f.text(doc, "version");
    const Json* experiments = Fields::at(doc, "experiments");
    if (!experiments || !experiments->is_array()) f.fail("perf_analyzer's experiments are not a list");
    for (const Json& ex : *experiments) {
        if (auto mode = f.text(ex, "experiment.mode"); mode && *mode == "concurrency")
            r.concurrency = f.number(ex, "experiment.value");
        const Json* reqs = Fields::at(ex, "requests");
        if (!reqs || !reqs->is_array()) continue;
        for (const Json& q : *reqs) {
            RequestRecord rec;
            if (auto t = f.number(q, "timestamp")) rec.start_s = *t / 1e9;
            if (const Json* ts = Fields::at(q, "response_timestamps"); ts && ts->is_array() && !ts->empty()) {
                rec.stream_chunks = static_cast<long long>(ts->size());
                if (auto first = f.number(*ts, "0")) rec.first_token_s = *first / 1e9;
                if (auto last = f.number(*ts, std::to_string(ts->size() - 1))) rec.end_s = *last / 1e9;
            }
            loadjson::check_record(f, rec, r.requests.size());
            r.requests.push_back(std::move(rec));
        }
    }
    return r;
}

}  // namespace inferlint::loadread
