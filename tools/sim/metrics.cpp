#include "metrics.hpp"

#include "inferlint/util/pyfloat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace sim {
namespace {

using inferlint::util::py_float_repr;

struct Writer {
    std::string out;
    std::string base;  // engine="0",model_name="..."
    double created;

    void head(const std::string& name, const std::string& help, const char* type) {
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    }
    void sample(const std::string& name, const std::string& labels, double v) {
        out += fmt::format("{}{{{}}} {}\n", name, labels, prom_number(v));
    }
    void gauge(const std::string& name, const std::string& help, double v) {
        head(name, help, "gauge");
        sample(name, base, v);
    }
    // A counter, its _created stamp, and optional extra label sets.
    void counter(const std::string& stem, const std::string& help,
                 const std::vector<std::pair<std::string, double>>& by_labels) {
        head(stem + "_total", help, "counter");
        for (const auto& [extra, v] : by_labels) sample(stem + "_total", labels_with(extra), v);
        head(stem + "_created", help, "gauge");
        for (const auto& [extra, v] : by_labels) sample(stem + "_created", labels_with(extra), created);
    }
    void histogram(const std::string& name, const std::string& help, const Histogram& h) {
        head(name, help, "histogram");
        long long cum = 0;
        for (int i = 0; i <= h.n_bounds; ++i) {
            cum += h.counts[i];
            std::string le = i < h.n_bounds ? prom_number(h.bounds[i]) : "+Inf";
            // prometheus_client sorts labels: engine, le, model_name.
            sample(name + "_bucket", fmt::format("engine=\"0\",le=\"{}\",{}", le, base.substr(base.find(',') + 1)),
                   static_cast<double>(cum));
        }
        sample(name + "_count", base, static_cast<double>(h.count));
        sample(name + "_sum", base, h.sum);
        head(name + "_created", help, "gauge");
        sample(name + "_created", base, created);
    }
    std::string labels_with(const std::string& extra) const {
        if (extra.empty()) return base;
        // Sorted by key as prometheus_client does: engine < finished_reason < model_name < source.
        if (extra.rfind("finished_reason", 0) == 0)
            return fmt::format("engine=\"0\",{},{}", extra, base.substr(base.find(',') + 1));
        return base + "," + extra;
    }
};

const Histogram& hist(const Shared& s, Hist h) { return s.hist[static_cast<int>(h)]; }

// vLLM registers these only with a speculative config (names, labels and HELP as its
// SpecDecodingProm; recorded: vllm-0.28/metrics/preempted_after.prom).
void spec_decode_counters(Writer& w, const Shared& s) {
    w.counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.",
              {{"", static_cast<double>(s.spec_drafts)}});
    w.counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.",
              {{"", static_cast<double>(s.spec_draft_tokens)}});
    w.counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.",
              {{"", static_cast<double>(s.spec_accepted)}});
    std::vector<std::pair<std::string, double>> per_pos;
    for (int i = 0; i < std::min(s.cfg.spec_tokens, kMaxSpecTokens); ++i)
        per_pos.emplace_back(fmt::format("position=\"{}\"", i), static_cast<double>(s.spec_accepted_per_pos[i]));
    w.counter("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", per_pos);
}

}  // namespace

std::string prom_number(double v) {
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    if (std::isnan(v)) return "NaN";
    std::string s = py_float_repr(v);
    auto dot = s.find('.');
    // Go, whose format Prometheus follows, switches to an exponent sooner than Python.
    if (v > 0 && dot != std::string::npos && dot > 6 && s.find('e') == std::string::npos) {
        std::string mantissa = s.substr(0, 1) + "." + s.substr(1, dot - 1) + s.substr(dot + 1);
        while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.')) mantissa.pop_back();
        return fmt::format("{}e+0{}", mantissa, dot - 1);
    }
    return s;
}

// The per-request and per-step histograms, each with the name and help vLLM gives it.
void request_histograms(Writer& w, const Shared& s) {
    struct H {
        Hist id;
        const char* name;
        const char* help;
    };
    const H hs[] = {
        {Hist::prompt_tokens, "vllm:request_prompt_tokens", "Number of prefill tokens processed."},
        {Hist::generation_tokens, "vllm:request_generation_tokens", "Number of generation tokens processed."},
        {Hist::iteration_tokens, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step."},
        {Hist::max_num_generation_tokens, "vllm:request_max_num_generation_tokens",
         "Histogram of maximum number of requested generation tokens."},
        {Hist::params_n, "vllm:request_params_n", "Histogram of the n request parameter."},
        {Hist::params_max_tokens, "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter."},
        {Hist::ttft, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds."},
        {Hist::itl, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds."},
        {Hist::tpot, "vllm:request_time_per_output_token_seconds",
         "Histogram of time_per_output_token_seconds per request."},
        {Hist::e2e, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds."},
        {Hist::queue, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request."},
        {Hist::inference, "vllm:request_inference_time_seconds",
         "Histogram of time spent in RUNNING phase for request."},
        {Hist::prefill, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request."},
        {Hist::decode, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request."},
        {Hist::num_preemptions, "vllm:request_num_preemptions",
         "Histogram of the number of times a request was preempted."},
        {Hist::prefill_kv_computed, "vllm:request_prefill_kv_computed_tokens",
         "Histogram of new KV tokens computed during prefill (excluding cached tokens)."},
    };
    for (const auto& h : hs) w.histogram(h.name, h.help, hist(s, h.id));
}

std::string metrics_text(const Shared& s, const MetricsContext& ctx) {
    Writer w{
        .out = {}, .base = fmt::format("engine=\"0\",model_name=\"{}\"", ctx.model_name), .created = s.created_wall};
    w.out.reserve(48 * 1024);
    w.head("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge");
    w.out += fmt::format("process_start_time_seconds {}\n", prom_number(ctx.process_start_wall));
    w.head("process_open_fds", "Number of open file descriptors.", "gauge");
    w.out += "process_open_fds 43.0\n";

    w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", s.gauge_running());
    w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", s.gauge_waiting());
    w.head("vllm:num_requests_waiting_by_reason",
           "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; "
           "'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). Sum of all "
           "reasons equals vllm:num_requests_waiting.",
           "gauge");
    w.sample("vllm:num_requests_waiting_by_reason", w.base + ",reason=\"capacity\"", s.gauge_waiting());
    w.sample("vllm:num_requests_waiting_by_reason", w.base + ",reason=\"deferred\"", 0);
    w.head("vllm:engine_sleep_state",
           "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
           "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
           "gauge");
    w.sample("vllm:engine_sleep_state", w.base + ",sleep_state=\"awake\"", 1);
    w.sample("vllm:engine_sleep_state", w.base + ",sleep_state=\"weights_offloaded\"", 0);
    w.sample("vllm:engine_sleep_state", w.base + ",sleep_state=\"discard_all\"", 0);
    w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", s.kv_usage());
    const double prompt = static_cast<double>(s.prompt_tokens);
    const double cached = static_cast<double>(s.prefix_hits);  // prompt tokens of new requests served from the cache
    w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
              {{"", static_cast<double>(s.prefix_queries)}});
    w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", {{"", cached}});
    w.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
              {{"", static_cast<double>(s.preemptions)}});
    w.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", {{"", prompt}});
    w.counter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.",
              {{"source=\"local_compute\"", prompt - cached},
               {"source=\"local_cache_hit\"", cached},
               {"source=\"external_kv_transfer\"", 0}});
    w.counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).", {{"", cached}});
    w.counter("vllm:generation_tokens", "Number of generation tokens processed.",
              {{"", static_cast<double>(s.generation_tokens)}});
    w.counter("vllm:request_success", "Count of successfully processed requests.",
              {{"finished_reason=\"stop\"", 0},
               {"finished_reason=\"length\"", static_cast<double>(s.success_length)},
               {"finished_reason=\"abort\"", static_cast<double>(s.success_abort)},
               {"finished_reason=\"error\"", 0},
               {"finished_reason=\"repetition\"", 0}});
    request_histograms(w, s);
    if (s.cfg.spec_tokens > 0) spec_decode_counters(w, s);

    const long long tokens = static_cast<long long>(s.cfg.num_blocks) * s.cfg.block_size;
    w.head("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
    w.out += fmt::format(
        "vllm:cache_config_info{{_block_size_resolved=\"True\",block_size=\"{}\",cache_dtype=\"{}\","
        "enable_prefix_caching=\"{}\",engine=\"0\",gpu_memory_utilization=\"{}\",is_attention_free=\"False\","
        "kv_cache_max_concurrency=\"{}\",kv_cache_memory_bytes=\"None\",kv_cache_size_tokens=\"{}\","
        "num_cpu_blocks=\"None\",num_gpu_blocks=\"{}\",num_gpu_blocks_override=\"None\","
        "prefix_caching_hash_algo=\"sha256\",sliding_window=\"None\",user_specified_block_size=\"False\"}} 1.0\n",
        s.cfg.block_size, s.cfg.kv_cache_dtype, s.cfg.prefix_caching ? "True" : "False", ctx.gpu_memory_utilization,
        py_float_repr(static_cast<double>(tokens) / s.cfg.max_model_len), tokens, s.cfg.num_blocks);

    if (ctx.http && !ctx.http->requests.empty()) {
        const char* help = "Total number of requests by method, status and handler.";
        w.head("http_requests_total", help, "counter");
        for (const auto& [k, n] : ctx.http->requests)
            w.out += fmt::format("http_requests_total{{handler=\"{}\",method=\"{}\",status=\"{}\"}} {}\n", k.handler,
                                 k.method, k.status, prom_number(static_cast<double>(n)));
        w.head("http_requests_created", help, "gauge");
        for (const auto& [k, t] : ctx.http->created)
            w.out += fmt::format("http_requests_created{{handler=\"{}\",method=\"{}\",status=\"{}\"}} {}\n", k.handler,
                                 k.method, k.status, prom_number(t));
    }
    return w.out;
}

}  // namespace sim
