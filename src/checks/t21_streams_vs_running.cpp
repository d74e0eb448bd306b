// T21: the client's per-request times against the server's running gauge.
#include "inferlint/checks/t21_streams_vs_running.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace inferlint::checks {

namespace {

struct Span {
    double from = 0, to = 0;
};

// The most spans open at once. A span that ends where another starts does not overlap it.
long long peak_overlap(const std::vector<Span>& spans) {
    std::vector<std::pair<double, int>> events;
    events.reserve(spans.size() * 2);
    for (const auto& s : spans) {
        events.emplace_back(s.from, +1);
        events.emplace_back(s.to, -1);
    }
    std::sort(events.begin(), events.end());  // at one time, -1 before +1
    long long open = 0, peak = 0;
    for (const auto& e : events) peak = std::max(peak, open += e.second);
    return peak;
}

bool clock_time(double t) { return std::isfinite(t) && t >= 0; }

struct Timed {
    std::vector<Span> in_flight, streaming;
};

// One request's spans; a text naming what is wrong with its times, or nothing.
std::optional<std::string> add_request(const RequestRecord& q, std::size_t index, Timed& out) {
    // A NaN reads as null: a request timed in part is named, never left out.
    if (!q.start_s) {
        if (q.first_token_s || q.end_s)
            return fmt::format("request {} has a first token or an end but no start (null or NaN)", index);
        return std::nullopt;
    }
    const double start = *q.start_s;
    std::optional<double> first = q.first_token_s, end = q.end_s;
    if (!first && q.ttft_ms) first = start + *q.ttft_ms / 1000.0;
    if (!end && q.e2e_ms) end = start + *q.e2e_ms / 1000.0;
    for (auto t : {std::optional<double>(start), first, end})
        if (t && !clock_time(*t)) return fmt::format("request {} has a time of {}, not one a clock gives", index, *t);
    if (!end && first && !q.error) return fmt::format("request {} has a first token but no end (null or NaN)", index);
    if (!end) return std::nullopt;
    if (*end < start) return fmt::format("request {} ends before it starts ({:.3f} s before)", index, start - *end);
    if (first && *first < start) return fmt::format("request {} has its first token before it starts", index);
    if (first && *first > *end) return fmt::format("request {} has its first token after its end", index);
    out.in_flight.push_back({start, *end});
    if (first) out.streaming.push_back({*first, *end});
    return std::nullopt;
}

void add_all(const LoadResult& load, Timed& out, std::size_t& index, std::optional<std::string>& problem) {
    for (const auto& q : load.requests) {
        if (auto p = add_request(q, index++, out); p && !problem) problem = std::move(p);
    }
    for (const auto& s : load.stages) add_all(s, out, index, problem);
}

// The recording's sampling interval (its header's interval_s); 0 when it does not say.
double sampling_interval(const SeriesSummary& series) {
    const Json& h = series.header;
    if (h.is_object() && h.contains("interval_s") && h["interval_s"].is_number()) {
        const double v = h["interval_s"].get<double>();
        if (std::isfinite(v) && v > 0) return v;
    }
    return 0.0;
}

const char* kHowToTime =
    "vllm bench serve writes them with --save-detailed (xray asks for it); GuideLLM's benchmarks file, AIPerf's "
    "profile_export.jsonl, inference-perf's per-request file and inferlint.load/1 have them";

// What writes the per-request times this tool's result lacks. SGLang's and TensorRT-LLM's
// clients (vLLM's benchmark_serving as it was before start_times) record when each answer's
// first token and chunks came, relative to its own start, but not when it started, even with
// their detail flags, so their requests cannot be placed on one clock:
//  - SGLang's bench_serving --output-details adds input_lens, output_lens, ttfts, itls,
//    generated_texts and errors (python/sglang/bench_serving.py @
//    0033168f0f58b2bc05aa0273bd475d9c01bafb1c, result_details);
//  - TensorRT-LLM's benchmark_serving --save-detailed keeps input_lens, output_lens, ttfts,
//    itls, e2els, generated_texts and errors (tensorrt_llm/serve/scripts/benchmark_serving.py
//    @ 0228a71223416496ff056a157936bad2e42c762f).
std::optional<std::string> t21_no_start_times(const std::string& tool) {
    if (tool.rfind("sglang", 0) == 0)
        return "SGLang's bench_serving writes no request's start time, not even with --output-details (which adds "
               "only ttfts and itls)";
    if (tool.rfind("tensorrt_llm", 0) == 0)
        return "TensorRT-LLM's benchmark_serving writes no request's start time, not even with --save-detailed "
               "(which adds only ttfts, itls and e2els)";
    return std::nullopt;
}

}  // namespace

ClientStreams client_streams(const LoadResult& load, double widen_s) {
    ClientStreams c;
    Timed t;
    std::size_t index = 0;
    add_all(load, t, index, c.problem);
    if (c.problem) return c;
    c.timed = static_cast<long long>(t.in_flight.size());
    c.streamed = static_cast<long long>(t.streaming.size());
    c.in_flight_peak = peak_overlap(t.in_flight);
    c.streaming_peak = peak_overlap(t.streaming);
    for (auto& s : t.streaming) s.from -= widen_s;
    c.streaming_within = peak_overlap(t.streaming);
    return c;
}

std::optional<long long> client_streaming_peak(const LoadResult* load) {
    if (!load) return std::nullopt;
    ClientStreams c = client_streams(*load);
    if (c.problem || c.streamed == 0) return std::nullopt;
    return c.streaming_peak;
}

namespace {

// The reading that the streams near it explain least, on the client's clock.
struct Worst {
    double running = 0;
    long long near = 0;  // streams within the slack of it
    long long readings = 0;
};

std::optional<Worst> worst_reading(const LoadResult& load, const std::vector<RunningReading>& readings, double slack) {
    Timed t;
    std::size_t index = 0;
    std::optional<std::string> problem;
    add_all(load, t, index, problem);
    if (problem || t.in_flight.empty()) return std::nullopt;
    double from = t.in_flight.front().from, to = t.in_flight.front().to;
    for (const auto& s : t.in_flight) from = std::min(from, s.from), to = std::max(to, s.to);
    // vllm bench serve's perf_counter and the recorder's CLOCK_MONOTONIC count from the
    // machine's boot; AIPerf, GuideLLM and inference-perf write epoch seconds.
    const bool epoch = from > 1e9;
    std::optional<Worst> worst;
    long long seen = 0;
    for (const auto& r : readings) {
        const std::optional<double> at = epoch ? std::optional(r.t_wall) : r.t_mono_s;
        if (!at || *at < from || *at > to) continue;
        ++seen;
        long long near = 0;
        for (const auto& s : t.streaming)
            if (s.from <= *at + slack && s.to >= *at - slack) ++near;
        if (!worst || r.running - static_cast<double>(near) > worst->running - static_cast<double>(worst->near))
            worst = Worst{r.running, near, 0};
    }
    if (worst) worst->readings = seen;
    return worst;
}

}  // namespace

CheckResult check_streams_vs_running(const LoadResult* load, const SeriesSummary* series,
                                     const std::vector<RunningReading>* readings) {
    CheckResult r{.tripwire = TripwireId::T21};
    const double interval = series ? sampling_interval(*series) : 0.0;
    const double slack = std::max(interval, kStreamsSlackS);
    const std::optional<double> peak = series ? series->stats.peak_running : std::nullopt;
    r.evidence = {{"load_tool", load ? Json(load->tool) : Json(nullptr)},
                  {"server_peak_running", or_null(peak)},
                  {"slack_s", series ? Json(slack) : Json(nullptr)}};
    if (!load) {
        r.message = fmt::format("Can't tell: no load tool result with per-request times ({})", kHowToTime);
        return r;
    }
    const ClientStreams c = client_streams(*load, slack);
    if (c.problem) {
        r.message = fmt::format("Can't tell: {}'s per-request times cannot be used: {}", load->tool, *c.problem);
        r.evidence["problem"] = *c.problem;
        return r;
    }
    r.evidence["timed_requests"] = c.timed;
    r.evidence["client_in_flight_peak"] = c.in_flight_peak;
    r.evidence["client_streaming_peak"] = c.streaming_peak;
    if (c.streamed == 0) {
        if (auto why = t21_no_start_times(load->tool)) {
            r.evidence["tool_records_start_times"] = false;
            r.message = fmt::format(
                "Can't tell: {}'s result has no per-request start times: {}; run a client that records them "
                "against the server ({})",
                load->tool, *why, kHowToTime);
            return r;
        }
        r.message = fmt::format("Can't tell: {}'s result has no per-request start, first-token and end times ({})",
                                load->tool, kHowToTime);
        return r;
    }
    if (!peak) {
        r.message = fmt::format(
            "Can't tell: at most {} requests received tokens at once, but there is no recording of the server's "
            "running gauge to hold it against (xray records one; or `inferlint watch URL -o series.jsonl` "
            "during the load)",
            c.streaming_peak);
        return r;
    }
    const std::optional<Worst> worst = readings ? worst_reading(*load, *readings, slack) : std::nullopt;
    const double running = worst ? worst->running : *peak;
    const long long near = worst ? worst->near : c.streaming_within;
    r.evidence["lined_up"] = worst.has_value();
    if (worst) r.evidence["readings_during_load"] = worst->readings;
    r.evidence["worst_reading_running"] = running;
    r.evidence["streams_near_it"] = near;
    const std::string how =
        worst ? fmt::format("{} within {:g} s of that reading", near, slack)
              : fmt::format(
                    "{} counting each from {:g} s before its first token; the recording's clock could not be "
                    "lined up with the client's",
                    near, slack);
    if (running > static_cast<double>(near)) {
        r.status = Status::warn;
        r.message = fmt::format(
            "the server reported {:g} running, but at most {} received tokens at once ({}; {} in flight at most, over "
            "{} timed requests): the gauge counted requests that were not producing tokens, such as ones admitted "
            "but waiting for KV memory",
            running, c.streaming_peak, how, c.in_flight_peak, c.timed);
        return r;
    }
    r.status = Status::pass;
    r.message = fmt::format(
        "the server's running gauge (peak {:g}) is no more than the client's streams explain (at most {} received "
        "tokens at once; {}, over {} timed requests)",
        *peak, c.streaming_peak, worst ? fmt::format("every reading during the load within {:g} s", slack) : how,
        c.timed);
    return r;
}

}  // namespace inferlint::checks
