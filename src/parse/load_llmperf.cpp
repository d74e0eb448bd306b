// LLMPerf (ray-project/llmperf, token_benchmark_ray.py): <name>_summary.json, flat keys
// "results_<metric>_quantiles_pNN", "results_<metric>_mean", in seconds; and
// <name>_individual_responses.json, a list of per-request dicts (ttft_s,
// end_to_end_latency_s, number_output_tokens, error_code). Its inter_token_latency_s is
// the request's whole time over its tokens, TTFT included: our norm_tpot, not tpot.
// token_benchmark_ray.py re-tokenizes the text with its own tokenizer (LlamaTokenizerFast,
// not the model's), but the file does not say so: output_counting stays unknown, and T18
// judges its counts by the server's.
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

LatencyStats summary_stats(const Json& doc, const char* name, const Fields& f) {
    const std::string p = fmt::format("results_{}_", name);
    auto k = [&](const char* tail) { return p + tail; };
    const std::string mean = k("mean"), p50 = k("quantiles_p50"), p90 = k("quantiles_p90"), p95 = k("quantiles_p95"),
                      p99 = k("quantiles_p99"), max = k("max");
    return f.stats(doc, {mean, p50, p90, p95, p99, max}, 1000.0);
}

}  // namespace

bool is_llmperf_summary(const Json& doc) {
    return doc.is_object() && (doc.contains("results_num_completed_requests") || doc.contains("results_ttft_s_mean"));
}

LoadResult read_llmperf_summary(const Json& doc, const Fields& f) {
    LoadResult r = f.result("llmperf");
    f.take(doc, r,
           {{"version", &LoadResult::tool_version},
            {"results_num_completed_requests", &LoadResult::completed},
            {"results_number_errors", &LoadResult::failed},
            {"num_concurrent_requests", &LoadResult::concurrency},
            {"results_mean_output_throughput_token_per_s", &LoadResult::output_throughput}});
    loadjson::read_latencies(r, {.ttft = "ttft_s", .e2e = "end_to_end_latency_s", .norm_tpot = "inter_token_latency_s"},
                             [&](const char* key) { return summary_stats(doc, key, f); });
    r.metric_notes.push_back("LLMPerf's inter_token_latency includes TTFT (norm_tpot), not tpot");
    return r;
}

bool is_llmperf_individual(const Json& doc) {
    return doc.is_array() && !doc.empty() && doc.front().is_object() && doc.front().contains("end_to_end_latency_s");
}

LoadResult read_llmperf_individual(const Json& doc, const Fields& f) {
    LoadResult r = f.result("llmperf");
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const Json& q = doc[i];
        if (!q.is_object()) f.fail(fmt::format("request {}: not an object", i));
        RequestRecord rec;
        rec.ttft_ms = f.latency(q, "ttft_s", 1000.0);
        rec.e2e_ms = f.latency(q, "end_to_end_latency_s", 1000.0);
        rec.input_tokens = f.count(q, "number_input_tokens");
        rec.output_tokens = f.count(q, "number_output_tokens");
        const Json* code = Fields::at(q, "error_code");
        auto msg = f.text(q, "error_msg");
        if (code || (msg && !msg->empty()))
            rec.error = msg && !msg->empty() ? *msg : fmt::format("error {}", code->dump());
        loadjson::check_record(f, rec, i);
        r.requests.push_back(std::move(rec));
    }
    return r;
}

}  // namespace inferlint::loadread
