// `vllm bench serve ...`: a load client in the manner of vLLM's: one untimed test request,
// then N streamed completions with at most C open at once, a summary, and the result JSON.
#include "bench.hpp"

#include "bench_formats.hpp"
#include "engine.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

namespace sim {
namespace {

using nlohmann::ordered_json;

struct Outcome {
    bool ok = false;
    int output_tokens = 0;
    double start = 0, ttft = 0, latency = 0;
    std::vector<double> itl;
    std::vector<double> token_times;  // absolute, for the peak-throughput figure
    std::string error;
};

// What the client sends and how it counts, beyond where it sends it.
struct LoadShape {
    int input_len = 1024, output_len = 128, prefix_len = 0;
    bool ignore_eos = false;
    std::uint64_t seed = 0;     // --seed, as vLLM's random dataset (0 by default)
    bool same_prompt = false;   // --sim-same-prompt: request 0's prompt on every call (a broken harness)
    bool count_chunks = false;  // --sim-count-chunks: one token per stream chunk (a broken harness)
};

// vLLM's random dataset draws token ids; the simulator's server tokenizes by words, so
// the prompt is that many seeded random words: a shared prefix of `prefix_len` (from the
// seed alone) and `input_len` of the request's own.
std::string random_prompt(const LoadShape& shape, long long index) {
    std::string prompt;
    auto words = [&](std::uint64_t stream, int n) {
        std::mt19937_64 rng(stream);
        std::uniform_int_distribution<int> word(0, 49999);
        for (int i = 0; i < n; ++i) prompt += fmt::format("{}w{}", prompt.empty() ? "" : " ", word(rng));
    };
    words(shape.seed * 0x9e3779b97f4a7c15ULL, shape.prefix_len);
    words((shape.seed + 1) * 0xbf58476d1ce4e5b9ULL + static_cast<std::uint64_t>(index) + 1, shape.input_len);
    return prompt;
}

struct Target {
    std::string host;
    int port = 8000;
    std::string path = "/v1/completions";
    std::string model;
};

Target target_of(const Args& a) {
    Target t;
    t.model = a.str("model", "");
    t.host = a.str("host", "127.0.0.1");
    t.port = a.integer("port", 8000);
    t.path = a.str("endpoint", "/v1/completions");
    if (auto base = a.find("base_url"); base && base->value) {
        std::string b = *base->value;
        if (auto p = b.find("://"); p != std::string::npos) b = b.substr(p + 3);
        auto slash = b.find('/');
        std::string hostport = b.substr(0, slash);
        auto colon = hostport.rfind(':');
        t.host = hostport.substr(0, colon);
        if (colon != std::string::npos) t.port = std::atoi(hostport.c_str() + colon + 1);
    }
    return t;
}

// One streamed completion of request `index`'s prompt, timed as vLLM's client does.
Outcome run_one(const Target& t, const std::string& served, const LoadShape& shape, long long index) {
    Outcome o;
    const std::string prompt = random_prompt(shape, shape.same_prompt ? 0 : index);
    nlohmann::json body{{"model", served},
                        {"prompt", prompt},
                        {"max_tokens", shape.output_len},
                        {"temperature", 0.0},
                        {"stream", true},
                        {"ignore_eos", shape.ignore_eos},
                        {"stream_options", {{"include_usage", true}}}};
    httplib::Client cli(t.host, t.port);
    cli.set_connection_timeout(10);
    cli.set_read_timeout(600);
    httplib::Request req;
    req.method = "POST";
    req.path = t.path;
    req.body = body.dump();
    req.headers.emplace("Content-Type", "application/json");
    std::string buffer;
    int chunks = 0;
    int usage_tokens = -1;
    double last = 0;
    o.start = mono_s();
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
        buffer.append(data, n);
        for (auto end = buffer.find("\n\n"); end != std::string::npos; end = buffer.find("\n\n")) {
            std::string event = buffer.substr(0, end);
            buffer.erase(0, end + 2);
            if (event.rfind("data: ", 0) != 0) continue;
            std::string payload = event.substr(6);
            if (payload == "[DONE]") continue;
            auto doc = nlohmann::json::parse(payload, nullptr, false);
            if (!doc.is_object()) continue;
            if (doc.contains("error")) {
                o.error = doc["error"].value("message", std::string("server error"));
                continue;
            }
            if (auto u = doc.find("usage"); u != doc.end() && u->is_object())
                usage_tokens = u->value("completion_tokens", 0);
            auto ch = doc.find("choices");
            if (ch == doc.end() || !ch->is_array() || ch->empty()) continue;
            if ((*ch)[0].value("text", std::string()).empty()) continue;
            double now = mono_s();
            if (chunks == 0)
                o.ttft = now - o.start;
            else
                o.itl.push_back(now - last);
            o.token_times.push_back(now);
            last = now;
            ++chunks;
        }
        return true;
    };
    auto res = cli.send(req);
    o.latency = mono_s() - o.start;
    if (!res) {
        o.error = fmt::format("connection error: {}", httplib::to_string(res.error()));
        return o;
    }
    if (res->status != 200) {
        o.error = fmt::format("HTTP {}: {}", res->status, res->body.substr(0, 200));
        return o;
    }
    o.output_tokens = usage_tokens >= 0 && !shape.count_chunks ? usage_tokens : chunks;
    o.ok = o.error.empty() && chunks > 0;
    return o;
}

double mean(const std::vector<double>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}
double stdev(const std::vector<double>& v) {
    if (v.empty()) return 0;
    double m = mean(v), acc = 0;
    for (double x : v) acc += (x - m) * (x - m);
    return std::sqrt(acc / v.size());
}
// numpy.percentile's default (linear interpolation).
double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    double pos = p / 100.0 * (v.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(pos));
    auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// The run as --sim-result-format's writers take it (bench_formats.hpp).
RunSummary summary_of(const std::vector<Outcome>& outcomes, const LoadShape& shape, const std::string& model, int n,
                      int conc, double duration) {
    RunSummary r;
    r.model = model;
    r.num_prompts = n;
    r.concurrency = conc;
    r.input_len = shape.input_len + shape.prefix_len;
    r.duration_s = duration;
    r.count_chunks = shape.count_chunks;
    for (const auto& o : outcomes) {
        RequestSummary q{o.ok,      o.start,         o.ttft,
                         o.latency, o.output_tokens, static_cast<long long>(o.token_times.size()),
                         o.itl,     o.error};
        r.requests.push_back(q);
        if (!o.ok) continue;
        ++r.completed;
        r.output_tokens += o.output_tokens;
        r.chunks += q.chunks;
        r.ttft_ms.push_back(o.ttft * 1000);
        r.e2e_ms.push_back(o.latency * 1000);
        if (o.output_tokens > 1) r.tpot_ms.push_back((o.latency - o.ttft) / (o.output_tokens - 1) * 1000);
        for (double x : o.itl) r.itl_ms.push_back(x * 1000);
    }
    r.failed = n - r.completed;
    r.input_tokens = static_cast<long long>(r.completed) * r.input_len;
    return r;
}

int save_as(const std::string& format, const Args& a, const RunSummary& run) {
    auto doc = result_as(format, run);
    if (!doc)
        usage_error(
            fmt::format("argument --sim-result-format: '{}' is not one of vllm, guidellm, aiperf, genai-perf, "
                        "inference-perf, llmperf, inferlint-load",
                        format));
    std::filesystem::path dir = a.str("result_dir", ".");
    std::string name = a.str("result_filename", default_result_name(format));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream f(dir / name);
    f << doc->dump() << "\n";
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
        return 1;
    }
    return 0;
}

// --save-detailed: vLLM's per-request lists (vllm/benchmarks/serve.py), seconds, one entry
// per request; start_times on the client's perf_counter clock (here the steady clock).
void add_detailed(ordered_json& r, const std::vector<Outcome>& outcomes, int input_len) {
    ordered_json in = ordered_json::array(), out = ordered_json::array(), ttfts = ordered_json::array(),
                 itls = ordered_json::array(), starts = ordered_json::array(), texts = ordered_json::array(),
                 errors = ordered_json::array();
    for (const auto& o : outcomes) {
        in.push_back(input_len);
        out.push_back(o.ok ? o.output_tokens : 0);
        ttfts.push_back(o.ok ? o.ttft : 0.0);
        itls.push_back(o.ok ? o.itl : std::vector<double>{});
        starts.push_back(o.start);
        texts.push_back("");
        errors.push_back(o.ok ? "" : (o.error.empty() ? "no tokens came back" : o.error));
    }
    r["input_lens"] = in;
    r["output_lens"] = out;
    r["ttfts"] = ttfts;
    r["itls"] = itls;
    r["start_times"] = starts;
    r["generated_texts"] = texts;
    r["errors"] = errors;
}

void row(const char* label, const std::string& value) { std::printf("%-40s %-10s\n", label, value.c_str()); }

// What `vllm bench serve` was asked for.
struct BenchAsk {
    Target t;
    std::string served;
    int n = 0, conc = 0;
    LoadShape shape;
    int in_len = 0;  // the prompt's words: its own and the shared prefix
    std::string dataset;
};

BenchAsk ask_of(const Args& a) {
    BenchAsk q;
    q.t = target_of(a);
    if (q.t.model.empty()) usage_error("the following arguments are required: --model");
    q.served = a.str("served_model_name", q.t.model);
    q.n = a.integer("num_prompts", 1000);
    q.conc = a.integer("max_concurrency", q.n);
    LoadShape& shape = q.shape;
    shape.input_len = a.integer("random_input_len", shape.input_len);
    shape.output_len = a.integer("random_output_len", shape.output_len);
    shape.prefix_len = a.integer("random_prefix_len", 0);
    shape.seed = static_cast<std::uint64_t>(a.integer("seed", 0));
    shape.ignore_eos = a.flag("ignore_eos");
    shape.same_prompt = a.flag("sim_same_prompt");
    shape.count_chunks = a.flag("sim_count_chunks");
    q.in_len = shape.input_len + shape.prefix_len;
    q.dataset = a.str("dataset_name", "random");
    if (q.dataset != "random")
        usage_error(fmt::format("the simulator's client has the random dataset only, not '{}'", q.dataset));
    if (q.n < 1 || q.conc < 1 || shape.input_len < 1 || shape.output_len < 1 || shape.prefix_len < 0)
        usage_error("counts and lengths must be positive");
    return q;
}

// The arguments line vLLM's client prints first.
void print_args(const Args& a, const BenchAsk& q) {
    const LoadShape& shape = q.shape;
    std::printf(
        "Namespace(backend='vllm', base_url=%s, host='%s', port=%d, endpoint='%s', dataset_name='%s', "
        "max_concurrency=%d, model='%s', num_prompts=%d, request_rate=inf, seed=%d, random_input_len=%d, "
        "random_output_len=%d, random_prefix_len=%d, ignore_eos=%s)\n",
        a.find("base_url") ? ("'" + a.str("base_url", "") + "'").c_str() : "None", q.t.host.c_str(), q.t.port,
        q.t.path.c_str(), q.dataset.c_str(), q.conc, q.t.model.c_str(), q.n, a.integer("seed", 0), shape.input_len,
        shape.output_len, shape.prefix_len, shape.ignore_eos ? "True" : "False");
}

// The timed requests, at most `conc` open at once.
struct Ran {
    std::vector<Outcome> outcomes;
    double t0 = 0, duration = 0;
    int peak_in_flight = 0;
};

Ran run_all(const BenchAsk& q) {
    Ran ran;
    ran.outcomes.resize(static_cast<std::size_t>(q.n));
    std::atomic<int> next{0};
    std::atomic<int> in_flight{0}, peak_in_flight{0};
    ran.t0 = mono_s();
    {
        std::vector<std::jthread> workers;
        for (int w = 0; w < std::min(q.conc, q.n); ++w)
            workers.emplace_back([&] {
                for (int i = next++; i < q.n; i = next++) {
                    int now = ++in_flight;
                    int seen = peak_in_flight.load();
                    while (now > seen && !peak_in_flight.compare_exchange_weak(seen, now)) {}
                    ran.outcomes[static_cast<std::size_t>(i)] = run_one(q.t, q.served, q.shape, i);
                    --in_flight;
                }
            });
    }
    ran.duration = mono_s() - ran.t0;
    ran.peak_in_flight = peak_in_flight.load();
    return ran;
}

// The completed requests' sums and latencies, as vLLM's client reports them.
struct Totals {
    int completed = 0, failed = 0;
    long long in_tokens = 0, out_tokens = 0;
    std::vector<double> ttfts, tpots, itls, latencies;
    double peak_tps = 0;  // the most output tokens in one second of the run
};

Totals totals_of(const Ran& ran, int n, int in_len) {
    Totals s;
    std::vector<double> token_times;
    for (const auto& o : ran.outcomes) {
        if (!o.ok) continue;
        ++s.completed;
        s.out_tokens += o.output_tokens;
        s.ttfts.push_back(o.ttft * 1000);
        if (o.output_tokens > 1) s.tpots.push_back((o.latency - o.ttft) / (o.output_tokens - 1) * 1000);
        for (double x : o.itl) s.itls.push_back(x * 1000);
        s.latencies.push_back(o.latency);
        token_times.insert(token_times.end(), o.token_times.begin(), o.token_times.end());
    }
    s.failed = n - s.completed;
    s.in_tokens = static_cast<long long>(s.completed) * in_len;
    if (!token_times.empty()) {
        std::vector<long long> per_second(static_cast<std::size_t>(ran.duration) + 2, 0);
        for (double x : token_times) {
            auto b = static_cast<std::size_t>(std::max(0.0, x - ran.t0));
            if (b < per_second.size()) ++per_second[b];
        }
        s.peak_tps = static_cast<double>(*std::max_element(per_second.begin(), per_second.end()));
    }
    return s;
}

void print_summary(const Ran& ran, const Totals& s, int conc) {
    const double duration = ran.duration;
    if (s.failed) std::printf("Total failed requests: %d\n", s.failed);
    for (const auto& o : ran.outcomes)
        if (!o.ok) std::printf("a request failed: %s\n", o.error.empty() ? "no tokens came back" : o.error.c_str());
    std::printf("============ Serving Benchmark Result ============\n");
    row("Successful requests:", std::to_string(s.completed));
    row("Failed requests:", std::to_string(s.failed));
    row("Maximum request concurrency:", std::to_string(conc));
    row("Benchmark duration (s):", fmt::format("{:.2f}", duration));
    row("Total input tokens:", std::to_string(s.in_tokens));
    row("Total generated tokens:", std::to_string(s.out_tokens));
    row("Request throughput (req/s):", fmt::format("{:.2f}", s.completed / duration));
    row("Output token throughput (tok/s):", fmt::format("{:.2f}", s.out_tokens / duration));
    row("Peak output token throughput (tok/s):", fmt::format("{:.2f}", s.peak_tps));
    row("Peak concurrent requests:", fmt::format("{:.2f}", static_cast<double>(ran.peak_in_flight)));
    row("Total Token throughput (tok/s):", fmt::format("{:.2f}", (s.in_tokens + s.out_tokens) / duration));
    auto block = [](const char* title, const char* key, const std::vector<double>& v) {
        std::printf("%s\n", fmt::format("{:-^50}", title).c_str());
        row(fmt::format("Mean {} (ms):", key).c_str(), fmt::format("{:.2f}", mean(v)));
        row(fmt::format("Median {} (ms):", key).c_str(), fmt::format("{:.2f}", percentile(v, 50)));
        row(fmt::format("P99 {} (ms):", key).c_str(), fmt::format("{:.2f}", percentile(v, 99)));
    };
    block("Time to First Token", "TTFT", s.ttfts);
    block("Time per Output Token (excl. 1st token)", "TPOT", s.tpots);
    block("Inter-token Latency", "ITL", s.itls);
    std::printf("==================================================\n");
    std::fflush(stdout);
}

// --save-result: vLLM's result JSON, named as vLLM names it unless --result-filename says.
int save_vllm_result(const Args& a, const BenchAsk& q, const Ran& ran, const Totals& s) {
    const double duration = ran.duration;
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    const std::string date = fmt::format("{:%Y%m%d-%H%M%S}", tm);
    ordered_json r;
    r["date"] = date;
    r["endpoint_type"] = "openai";
    r["backend"] = "openai";
    r["label"] = nullptr;
    r["model_id"] = q.t.model;
    r["tokenizer_id"] = a.str("tokenizer", q.t.model);
    r["num_prompts"] = q.n;
    r["request_rate"] = "inf";
    r["burstiness"] = 1.0;
    r["max_concurrency"] = q.conc;
    r["duration"] = duration;
    r["completed"] = s.completed;
    r["failed"] = s.failed;
    r["total_input_tokens"] = s.in_tokens;
    r["total_output_tokens"] = s.out_tokens;
    r["request_throughput"] = s.completed / duration;
    r["request_goodput"] = nullptr;
    r["output_throughput"] = s.out_tokens / duration;
    r["total_token_throughput"] = (s.in_tokens + s.out_tokens) / duration;
    r["latencies"] = s.latencies;
    r["max_output_tokens_per_s"] = s.peak_tps;
    r["max_concurrent_requests"] = ran.peak_in_flight;
    if (a.flag("save_detailed")) add_detailed(r, ran.outcomes, q.in_len);
    r["rtfx"] = 0.0;
    for (auto [key, v] : {std::pair{"ttft", &s.ttfts}, std::pair{"tpot", &s.tpots}, std::pair{"itl", &s.itls}}) {
        r[fmt::format("mean_{}_ms", key)] = mean(*v);
        r[fmt::format("median_{}_ms", key)] = percentile(*v, 50);
        r[fmt::format("std_{}_ms", key)] = stdev(*v);
        r[fmt::format("p99_{}_ms", key)] = percentile(*v, 99);
    }
    std::string base = q.t.model.substr(q.t.model.find_last_of('/') + 1);
    std::filesystem::path dir = a.str("result_dir", ".");
    std::string name =
        a.str("result_filename", fmt::format("vllm-infqps-concurrency{}-{}-{}.json", q.conc, base, date));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream f(dir / name);
    f << r.dump() << "\n";
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
        return 1;
    }
    return 0;
}

}  // namespace

int bench_main(const Args& a) {
    const BenchAsk q = ask_of(a);
    print_args(a, q);
    std::printf("Starting initial single prompt test run...\n");
    std::fflush(stdout);
    // vLLM's test run sends request 0's prompt (and 0.30 sends none by default); the
    // simulator's is a prompt of its own, so that it puts nothing in the prefix cache that
    // a timed request could find.
    Outcome test = run_one(q.t, q.served, q.shape, q.n);
    if (!test.ok) {
        std::fprintf(stderr,
                     "ValueError: Initial test run failed - Please make sure benchmark arguments are correctly "
                     "specified. Error: %s\n",
                     test.error.c_str());
        return 1;
    }
    std::printf("Initial test run completed. Starting main benchmark run...\n");
    std::printf("Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\n");
    std::printf("Maximum request concurrency: %d\n", q.conc);
    std::fflush(stdout);

    const Ran ran = run_all(q);
    const Totals totals = totals_of(ran, q.n, q.in_len);
    print_summary(ran, totals, q.conc);
    const std::string format = a.str("sim_result_format", "vllm");
    if (format != "vllm")
        return save_as(format, a, summary_of(ran.outcomes, q.shape, q.t.model, q.n, q.conc, ran.duration));
    return a.flag("save_result") ? save_vllm_result(a, q, ran, totals) : 0;
}

}  // namespace sim
