// GuideLLM's benchmarks.json (vllm-project/guidellm). Two layouts, told by content:
// v0.3 (src/guidellm/benchmark/benchmark.py, GenerativeBenchmark: request_totals,
// metrics.<name>.successful, args.profile) and the report v2 written since v0.5
// ({metadata: {guidellm_version}, config, benchmarks: [{config, metrics.request_totals}]}).
// GuideLLM's names: time_per_output_token_ms is the whole request over its tokens (TTFT
// included: our norm_tpot); inter_token_latency_ms is (last - first token) / (tokens - 1)
// (our tpot); request_latency is in seconds. request_streaming_iterations_count (v2) is
// the stream chunks.
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

// {mean, median, percentiles.pNN, max} of metrics.<name>.successful.
LatencyStats dist(const Json& metrics, const char* name, double to_ms, const Fields& f) {
    const Json* d = Fields::at(metrics, fmt::format("{}.successful", name));
    if (!d) return {};
    return f.stats(*d, {"mean", "median", "percentiles.p90", "percentiles.p95", "percentiles.p99", "max"}, to_ms);
}

std::optional<long long> total(const Json& metrics, const char* name, const Fields& f) {
    return f.count(metrics, fmt::format("{}.successful.total_sum", name));
}

LoadResult read_one(const Json& b, const Fields& f, bool v2) {
    LoadResult r = f.result("guidellm");
    const Json* m = Fields::at(b, "metrics");
    if (!m || !m->is_object()) f.fail("a GuideLLM benchmark without metrics");
    const Json& totals_at = v2 ? *m : b;
    r.completed = f.count(totals_at, "request_totals.successful");
    r.failed = f.count(totals_at, "request_totals.errored");
    r.incomplete = f.count(totals_at, "request_totals.incomplete");
    r.output_tokens = total(*m, "output_token_count", f);
    r.input_tokens = total(*m, "prompt_token_count", f);
    r.stream_chunks = total(*m, "request_streaming_iterations_count", f);
    r.duration_s = f.number(b, "duration");
    r.ttft_ms = dist(*m, "time_to_first_token_ms", 1.0, f);
    r.tpot_ms = dist(*m, "inter_token_latency_ms", 1.0, f);
    r.norm_tpot_ms = dist(*m, "time_per_output_token_ms", 1.0, f);
    r.e2e_ms = dist(*m, "request_latency", 1000.0, f);
    const char* cfg = v2 ? "config" : "args";
    if (const Json* p = Fields::at(b, fmt::format("{}.profile", cfg))) r.concurrency = f.number(*p, "max_concurrency");
    if (const Json* s = Fields::at(b, fmt::format("{}.strategy", cfg))) {
        if (auto t = f.text(*s, "type_"); t && *t == "concurrent") r.concurrency = f.number(*s, "streams");
        if (auto t = f.text(*s, "type_"); t && *t == "synchronous") r.concurrency = 1.0;
        if (auto t = f.text(*s, "type_"); t && (*t == "constant" || *t == "poisson"))
            r.request_rate = f.number(*s, "rate");
    }
    if (v2) {
        if (auto p = f.text(b, "config.requests.kind")) r.dataset = p;
        if (auto prefer = Fields::at(b, "config.prefer_response_metrics"); prefer && prefer->is_boolean())
            r.output_counting = prefer->get<bool>() ? TokenCounting::server_usage : TokenCounting::client_tokenizer;
        if (Fields::at(b, "config.warmup.value") || Fields::at(b, "config.warmup.percent"))
            r.metric_notes.push_back("GuideLLM left a warm-up out of these figures");
    } else {
        r.dataset = f.text(b, "request_loader.data");
        if (auto w = f.count(b, "args.warmup_number")) r.warmup_excluded = w;
    }
    r.metric_notes.push_back(
        "GuideLLM's time_per_output_token_ms includes TTFT (norm_tpot); its "
        "inter_token_latency_ms is tpot");
    // v0.3 keeps the successful requests themselves.
    if (const Json* reqs = Fields::at(b, "requests.successful"); reqs && reqs->is_array()) {
        const loadjson::RequestKeys keys{"start_time", "first_token_time", "end_time", "prompt_tokens",
                                         "output_tokens"};
        for (std::size_t i = 0; i < reqs->size(); ++i)
            r.requests.push_back(loadjson::request_by_keys((*reqs)[i], f, i, keys));
    }
    return r;
}

}  // namespace

bool is_guidellm(const Json& doc) {
    const Json* b = Fields::at(doc, "benchmarks.0");
    if (!b || !b->is_object()) return Fields::at(doc, "metadata.guidellm_version") != nullptr;
    auto t = b->find("type_");
    return (t != b->end() && t->is_string() && t->get<std::string>() == "generative_benchmark") ||
           Fields::at(doc, "metadata.guidellm_version") != nullptr;
}

LoadResult read_guidellm(const Json& doc, const Fields& f) {
    const Json* list = Fields::at(doc, "benchmarks");
    if (!list || !list->is_array() || list->empty()) f.fail("a GuideLLM file with no benchmarks in it");
    const bool v2 = Fields::at(doc, "metadata.guidellm_version") != nullptr || Fields::at(doc, "benchmarks.0.config");
    LoadResult whole;
    whole.path = f.source();
    whole.tool = "guidellm";
    whole.tool_version = f.text(doc, "metadata.guidellm_version");
    for (const Json& b : *list) {
        if (!b.is_object()) f.fail("a GuideLLM benchmark that is not an object");
        whole.stages.push_back(read_one(b, f, v2));
    }
    if (whole.stages.size() == 1) {
        LoadResult one = std::move(whole.stages.front());
        one.tool_version = whole.tool_version;
        return one;
    }
    sum_stages(whole);
    return whole;
}

}  // namespace inferlint::loadread
