// The figures one run gives a comparison, each from its most trustworthy source, and the
// load it was measured under.
#include "inferlint/checks/compare.hpp"

#include "util/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace inferlint::checks {

namespace {

struct FigureInfo {
    Figure figure;
    std::string_view name, unit;
    stats::Better better;
};

constexpr std::array kFigureTable = {
    FigureInfo{Figure::output_throughput, "output_throughput", "tokens/s", stats::Better::higher},
    FigureInfo{Figure::request_throughput, "request_throughput", "requests/s", stats::Better::higher},
    FigureInfo{Figure::ttft_p50, "ttft_p50", "ms", stats::Better::lower},
    FigureInfo{Figure::ttft_p99, "ttft_p99", "ms", stats::Better::lower},
    FigureInfo{Figure::tpot_p50, "tpot_p50", "ms", stats::Better::lower},
    FigureInfo{Figure::tpot_p99, "tpot_p99", "ms", stats::Better::lower},
};

const FigureInfo& figure_info(Figure f) { return kFigureTable[static_cast<std::size_t>(f)]; }

// The mean of the running gauge from the first reading with a request running to the last:
// the load's own span, not the idle readings before and after it.
std::optional<double> mean_running_of(const Series& series) {
    std::size_t first = series.samples.size(), last = 0;
    for (std::size_t i = 0; i < series.samples.size(); ++i) {
        const auto& r = series.samples[i].running;
        if (r && *r > 0) {
            first = std::min(first, i);
            last = i;
        }
    }
    if (first > last) return std::nullopt;
    double sum = 0.0;
    long long n = 0;
    for (std::size_t i = first; i <= last; ++i)
        if (const auto& r = series.samples[i].running) {
            sum += *r;
            ++n;
        }
    return sum / static_cast<double>(n);
}

std::optional<long long> rounded_per(std::optional<long long> total, std::optional<long long> count) {
    if (!total || !count || *count <= 0) return std::nullopt;
    return std::llround(static_cast<double>(*total) / static_cast<double>(*count));
}

std::string endpoint_of(const BenchResult& b) {
    const std::string kind = b.endpoint_type ? *b.endpoint_type : b.backend.value_or("");
    if (kind == "openai" || kind == "vllm") return "/v1/completions";
    if (kind == "openai-chat") return "/v1/chat/completions";
    if (kind == "sglang" || kind == "tensorrt-llm" || kind == "trt") return "native (" + kind + ")";
    return kind;
}

}  // namespace

std::string_view figure_name(Figure f) { return figure_info(f).name; }
std::string_view figure_unit(Figure f) { return figure_info(f).unit; }
stats::Better figure_better(Figure f) { return figure_info(f).better; }

std::optional<Figure> figure_named(std::string_view name) {
    for (const auto& i : kFigureTable)
        if (i.name == name) return i.figure;
    return std::nullopt;
}

std::optional<double> RunFigures::value(Figure f) const {
    switch (f) {
        case Figure::output_throughput:
            return output_throughput;
        case Figure::request_throughput:
            return request_throughput;
        case Figure::ttft_p50:
            return ttft_p50_ms;
        case Figure::ttft_p99:
            return ttft_p99_ms;
        case Figure::tpot_p50:
            return tpot_p50_ms;
        case Figure::tpot_p99:
            return tpot_p99_ms;
    }
    return std::nullopt;
}

RunFigures run_figures(const RunEvidence& ev, const RunVerdicts& verdicts, const Series* series) {
    RunFigures f;
    // T10's rate: the report's "Output tokens per second" tile reads the same field.
    const CheckResult* t10 = verdicts.result(TripwireId::T10);
    if (t10 && t10->status == Status::pass) f.output_throughput = verdicts.measured.output_rate_per_s;
    if (verdicts.result(TripwireId::T1)) f.preemptions = verdicts.measured.preemptions;
    if (verdicts.result(TripwireId::T16)) f.prefix_hit_rate = verdicts.measured.prefix_hit_rate;
    if (const BenchResult* b = ev.bench ? &*ev.bench : nullptr) {
        f.request_throughput = b->request_throughput;
        if (!f.request_throughput && b->completed && b->duration_s && *b->duration_s > 0)
            f.request_throughput = static_cast<double>(*b->completed) / *b->duration_s;
        f.ttft_p50_ms = b->median_ttft_ms;
        f.ttft_p99_ms = b->p99_ttft_ms;
        f.tpot_p50_ms = b->median_tpot_ms;
        f.tpot_p99_ms = b->p99_tpot_ms;
    }
    if (ev.series && ev.series->stats.samples > 0) f.peak_running = ev.series->stats.peak_running;
    if (series) f.mean_running = mean_running_of(*series);
    return f;
}

LoadShape load_shape(const BenchResult* bench, LoadShape s) {
    if (!bench) return s;
    if (bench->client) s.client = bench->client;
    if (std::string e = endpoint_of(*bench); !e.empty()) s.endpoint = e;
    if (auto in = rounded_per(bench->input_tokens, bench->completed)) s.input_len = in;
    if (auto out = rounded_per(bench->output_tokens, bench->completed)) s.output_len = out;
    if (bench->max_concurrency) s.concurrency = bench->max_concurrency;
    if (bench->num_prompts) s.num_prompts = bench->num_prompts;
    if (bench->load) s.definitions = bench->load->metric_notes;
    return s;
}

std::string LoadShape::text() const {
    auto n = [](const std::optional<long long>& v) { return v ? util::text::with_commas(*v) : std::string("?"); };
    return fmt::format("in {}, out {} tokens, concurrency {}, {} prompts", n(input_len), n(output_len), n(concurrency),
                       n(num_prompts));
}

bool LoadShape::same_shape(const LoadShape& o) const {
    // Lengths within 10%: a random dataset's prompts vary in length from run to run.
    auto near = [](const std::optional<long long>& x, const std::optional<long long>& y) {
        if (!x || !y) return x.has_value() == y.has_value();
        return std::llabs(*x - *y) <= std::max<long long>(1, std::max(*x, *y) / 10);
    };
    return near(input_len, o.input_len) && near(output_len, o.output_len) && concurrency == o.concurrency;
}

}  // namespace inferlint::checks
