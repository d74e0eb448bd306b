// vLLM's result fields, written by `vllm bench serve --save-result` (vllm/benchmarks/
// serve.py: result_json, and with --save-detailed the per-request lists input_lens,
// output_lens, ttfts, itls, errors; spec_decode_* since speculative-decoding metrics were
// added to the client), SGLang's bench_serving and TensorRT-LLM's benchmark_serving (the
// same names; SGLang writes e2e_latency for vLLM's e2el). --append-result and SGLang's
// --output-file append one line per run: benchresult.cpp takes the last.
// Latencies are ms; ttfts and itls in the detailed lists are seconds.
#include "load_readers.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

namespace inferlint::loadread {

namespace {

LatencyStats vllm_stats(const Json& doc, const char* name, const Fields& f) {
    const std::string mean = fmt::format("mean_{}_ms", name), p50 = fmt::format("median_{}_ms", name),
                      p90 = fmt::format("p90_{}_ms", name), p95 = fmt::format("p95_{}_ms", name),
                      p99 = fmt::format("p99_{}_ms", name), max = fmt::format("max_{}_ms", name);
    return f.stats(doc, {mean, p50, p90, p95, p99, max}, 1.0);
}

// --save-detailed: one entry per request sent, every list the same length. Newer clients
// add start_times (vllm/benchmarks/serve.py: "start_times": [output.start_time ...], the
// time.perf_counter() at which each request was sent, seconds): the request's start; its
// end is the last chunk's arrival, start + ttft + the sum of its itls (the client's own
// `latency`, most_recent_timestamp - st, in lib/endpoint_request_func.py).
void read_detailed(const Json& doc, const Fields& f, LoadResult& r) {
    static constexpr std::array kLists{"input_lens", "output_lens", "ttfts", "itls", "errors", "start_times"};
    std::optional<std::size_t> n;
    std::string lengths;
    bool differ = false;
    for (const char* name : kLists) {
        const Json* l = Fields::at(doc, name);
        if (!l) continue;
        if (!l->is_array()) f.fail(fmt::format("\"{}\" is {}, expected a list", name, loadjson::json_type(*l)));
        lengths += fmt::format("{}{} {}", lengths.empty() ? "" : ", ", name, l->size());
        if (n && *n != l->size()) differ = true;
        n = n ? *n : l->size();
    }
    if (!n) return;
    if (differ) f.fail(fmt::format("per-request lists of different lengths ({})", lengths));
    long long chunks = 0;
    bool chunks_known = Fields::at(doc, "itls") != nullptr;
    for (std::size_t i = 0; i < *n; ++i) {
        const std::string at = std::to_string(i);
        RequestRecord rec;
        rec.input_tokens = f.count(doc, "input_lens." + at);
        rec.output_tokens = f.count(doc, "output_lens." + at);
        rec.ttft_ms = f.latency(doc, "ttfts." + at, 1000.0);
        if (auto e = f.text(doc, "errors." + at); e && !e->empty()) rec.error = e;
        rec.start_s = f.number(doc, "start_times." + at);
        double itl_sum_ms = 0;
        if (const Json* itl = Fields::at(doc, "itls." + at)) {
            if (!itl->is_array()) f.fail(fmt::format("\"itls\" entry {} is not a list", i));
            for (std::size_t k = 0; k < itl->size(); ++k)
                itl_sum_ms += f.latency(*itl, std::to_string(k), 1000.0).value_or(0);
            if (rec.start_s && rec.ttft_ms && !rec.error) rec.e2e_ms = *rec.ttft_ms + itl_sum_ms;
            // One gap between successive chunks: a request that produced output had one more.
            if (rec.output_tokens.value_or(0) > 0) rec.stream_chunks = static_cast<long long>(itl->size()) + 1;
        }
        loadjson::check_record(f, rec, i);
        if (!rec.error) {
            if (rec.stream_chunks)
                chunks += *rec.stream_chunks;
            else if (rec.output_tokens.value_or(0) > 0)
                chunks_known = false;
        }
        r.requests.push_back(std::move(rec));
    }
    if (chunks_known) r.stream_chunks = chunks;
}

}  // namespace

bool is_vllm_family(const Json& doc) {
    static constexpr std::array kFields{"completed",           "failed",      "total_input_tokens",
                                        "total_output_tokens", "duration",    "output_throughput",
                                        "max_concurrency",     "num_prompts", "mean_ttft_ms"};
    if (!doc.is_object()) return false;
    for (const char* k : kFields)
        if (doc.contains(k)) return true;
    return false;
}

LoadResult read_vllm(const Json& doc, const Fields& f, const BenchResult& b) {
    LoadResult r = f.result(b.client.value_or("vllm-format result"));
    copy_totals(b, r);
    if (b.max_concurrency) r.concurrency = static_cast<double>(*b.max_concurrency);
    if (const Json* rate = Fields::at(doc, "request_rate")) {
        if (rate->is_string() && rate->get<std::string>() == "inf")
            r.request_rate = std::numeric_limits<double>::infinity();
        else if (rate->is_number() || loadjson::infinity_marker(*rate))
            r.request_rate = f.number(doc, "request_rate");
    }
    if (const Json* d = Fields::at(doc, "dataset_name"); d && d->is_string()) r.dataset = d->get<std::string>();
    r.endpoint = b.endpoint_type;
    if (const Json* v = Fields::at(doc, "vllm_version"); v && v->is_string()) r.tool_version = v->get<std::string>();
    loadjson::read_latencies(r, {.ttft = "ttft", .tpot = "tpot", .itl = "itl", .e2e = "e2el"},
                             [&](const char* key) { return vllm_stats(doc, key, f); });
    if (r.e2e_ms.empty()) r.e2e_ms = vllm_stats(doc, "e2e_latency", f);
    if (const Json* a = Fields::at(doc, "spec_decode_acceptance_length"); a && a->is_number())
        r.spec_accept_length = a->get<double>();
    read_detailed(doc, f, r);
    return r;
}

}  // namespace inferlint::loadread
