// Each format as the tool writes it, reduced to the fields inferlint's readers read (see
// src/parse/load_<tool>.cpp for the upstream files they follow). A client that counts
// chunks says nothing about how it counted, as the broken harnesses it stands for do.
#include "bench_formats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sim {
namespace {

using nlohmann::ordered_json;

double mean_of(const std::vector<double>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double pct(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    double pos = p / 100.0 * static_cast<double>(v.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(pos));
    auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::vector<double> scaled(const std::vector<double>& v, double k) {
    std::vector<double> out(v);
    for (double& x : out) x *= k;
    return out;
}

ordered_json guidellm(const RunSummary& r) {
    auto dist = [](const std::vector<double>& v) {
        return ordered_json{{"successful",
                             {{"mean", mean_of(v)},
                              {"median", pct(v, 50)},
                              {"max", pct(v, 100)},
                              {"percentiles", {{"p90", pct(v, 90)}, {"p95", pct(v, 95)}, {"p99", pct(v, 99)}}}}}};
    };
    ordered_json cfg{{"strategy", {{"type_", "concurrent"}, {"streams", r.concurrency}}}};
    if (!r.count_chunks) cfg["prefer_response_metrics"] = true;
    ordered_json m;
    m["request_totals"] = {
        {"successful", r.completed}, {"errored", r.failed}, {"incomplete", 0}, {"total", r.completed + r.failed}};
    m["output_token_count"] = {{"successful", {{"total_sum", r.output_tokens}}}};
    m["prompt_token_count"] = {{"successful", {{"total_sum", r.input_tokens}}}};
    m["request_streaming_iterations_count"] = {{"successful", {{"total_sum", r.chunks}}}};
    m["time_to_first_token_ms"] = dist(r.ttft_ms);
    m["inter_token_latency_ms"] = dist(r.tpot_ms);
    m["request_latency"] = dist(scaled(r.e2e_ms, 1e-3));
    ordered_json b{{"type_", "generative_benchmark"}, {"config", cfg}, {"duration", r.duration_s}, {"metrics", m}};
    return {{"metadata", {{"version", "2"}, {"guidellm_version", "inferlint-sim"}}}, {"benchmarks", {b}}};
}

ordered_json aiperf_metric(const char* unit, const std::vector<double>& v) {
    return {{"unit", unit},      {"avg", mean_of(v)}, {"p50", pct(v, 50)}, {"p90", pct(v, 90)},
            {"p95", pct(v, 95)}, {"p99", pct(v, 99)}, {"max", pct(v, 100)}};
}

ordered_json aiperf(const RunSummary& r) {
    ordered_json d;
    d["schema_version"] = "1.0";
    d["aiperf_version"] = "inferlint-sim";
    d["request_count"] = {{"unit", "requests"}, {"avg", r.completed}};
    d["error_request_count"] = {{"unit", "requests"}, {"avg", r.failed}};
    d["total_output_tokens"] = {{"unit", "tokens"}, {"avg", r.output_tokens}};
    d["total_isl"] = {{"unit", "tokens"}, {"avg", r.input_tokens}};
    d["benchmark_duration"] = {{"unit", "sec"}, {"avg", r.duration_s}};
    d["ttft"] = aiperf_metric("ms", r.ttft_ms);
    d["inter_token_latency"] = aiperf_metric("ms", r.tpot_ms);
    d["inter_chunk_latency"] = aiperf_metric("ms", r.itl_ms);
    d["request_latency"] = aiperf_metric("ms", r.e2e_ms);
    ordered_json endpoint{{"type", "completions"}, {"streaming", true}};
    if (!r.count_chunks) endpoint["use_server_token_count"] = true;
    d["input_config"] = {{"endpoint", endpoint}, {"phases", {{{"name", "profiling"}, {"concurrency", r.concurrency}}}}};
    return d;
}

ordered_json genai_perf(const RunSummary& r) {
    ordered_json d;
    d["request_count"] = {{"unit", "count"}, {"avg", r.completed}};
    d["time_to_first_token"] = aiperf_metric("ms", r.ttft_ms);
    d["inter_token_latency"] = aiperf_metric("ms", r.tpot_ms);
    d["request_latency"] = aiperf_metric("ms", r.e2e_ms);
    d["input_config"] = {{"concurrency", r.concurrency}};
    return d;
}

// inference-perf's per-request file: its totals are the records'.
ordered_json inference_perf(const RunSummary& r) {
    ordered_json list = ordered_json::array();
    for (const auto& q : r.requests) {
        ordered_json times = ordered_json::array();
        double t = q.start_s + q.ttft_s;
        if (q.ok) {
            times.push_back(t);
            for (double gap : q.itl_s) times.push_back(t += gap);
        }
        list.push_back(
            {{"start_time", q.start_s},
             {"end_time", q.start_s + q.latency_s},
             {"request", ""},
             {"response", ""},
             {"info",
              {{"input_tokens", r.input_len}, {"output_tokens", q.output_tokens}, {"output_token_times", times}}},
             {"error", q.ok ? ordered_json(nullptr) : ordered_json(q.error)}});
    }
    return list;
}

// LLMPerf's individual responses (its summary has no token totals).
ordered_json llmperf(const RunSummary& r) {
    ordered_json list = ordered_json::array();
    for (const auto& q : r.requests)
        list.push_back(
            {{"error_code", q.ok ? ordered_json(nullptr) : ordered_json(500)},
             {"error_msg", q.ok ? "" : q.error},
             {"inter_token_latency_s", q.output_tokens ? q.latency_s / static_cast<double>(q.output_tokens) : 0.0},
             {"ttft_s", q.ttft_s},
             {"end_to_end_latency_s", q.latency_s},
             {"number_input_tokens", r.input_len},
             {"number_output_tokens", q.output_tokens}});
    return list;
}

ordered_json inferlint_load(const RunSummary& r) {
    auto stats = [](const std::vector<double>& v) {
        return ordered_json{{"mean", mean_of(v)}, {"p50", pct(v, 50)}, {"p99", pct(v, 99)}};
    };
    ordered_json d{
        {"schema", "inferlint.load/1"},
        {"tool", "inferlint-sim"},
        {"completed", r.completed},
        {"failed", r.failed},
        {"input_tokens", r.input_tokens},
        {"output_tokens", r.output_tokens},
        {"output_tokens_counted_by", r.count_chunks ? "stream_chunks" : "server_usage"},
        {"stream_chunks", r.chunks},
        {"concurrency", r.concurrency},
        {"duration_s", r.duration_s},
        {"latency_ms",
         {{"ttft", stats(r.ttft_ms)}, {"tpot", stats(r.tpot_ms)}, {"itl", stats(r.itl_ms)}, {"e2e", stats(r.e2e_ms)}}}};
    return d;
}

}  // namespace

std::optional<nlohmann::ordered_json> result_as(const std::string& format, const RunSummary& run) {
    if (format == "guidellm") return guidellm(run);
    if (format == "aiperf") return aiperf(run);
    if (format == "genai-perf") return genai_perf(run);
    if (format == "inference-perf") return inference_perf(run);
    if (format == "llmperf") return llmperf(run);
    if (format == "inferlint-load") return inferlint_load(run);
    return std::nullopt;
}

std::string default_result_name(const std::string& format) {
    if (format == "guidellm") return "benchmarks.json";
    if (format == "aiperf") return "profile_export_aiperf.json";
    if (format == "genai-perf") return "profile_export_genai_perf.json";
    if (format == "inference-perf") return "per_request_lifecycle_metrics.json";
    if (format == "llmperf") return "sim_individual_responses.json";
    return "load.json";
}

}  // namespace sim
