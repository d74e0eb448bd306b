// Building a report's model: the suite's verdicts, and what the files say happened.
#include "inferlint/report/report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace inferlint::report {

namespace {

// vLLM's finished_reason label values, in the order the page lists them.
constexpr std::string_view kReasons[] = {"length", "stop", "repetition", "abort", "error"};

std::string default_title(const std::vector<std::pair<std::string, parse::BootFacts>>& boots, const Engine& engine) {
    if (!boots.empty()) {
        if (auto v = boots.front().second.version(); v && !v->empty()) return fmt::format("{} {} run", engine.name, *v);
        return fmt::format("{} run", engine.name);
    }
    return "Tripwire report";
}

std::optional<double> mean_of(Deltas& delta, const std::string& histogram) {
    if (histogram.empty()) return std::nullopt;
    auto total = delta(histogram + "_sum");
    auto count = delta(histogram + "_count");
    if (!total || !count || *count == 0) return std::nullopt;
    return *total / *count;
}

std::optional<long long> as_count(std::optional<double> v) {
    if (!v) return std::nullopt;
    return static_cast<long long>(*v);
}

Summary summarize_run(const std::optional<Snapshot>& before, const std::optional<Snapshot>& after,
                      const std::optional<SeriesSummary>& s, const Engine& engine) {
    const MetricNames& names = engine.metrics;
    Summary sm;
    if (s && s->stats.samples > 0) {
        if (auto peak = s->stats.peak_running) sm.peak_running = static_cast<long long>(*peak);
        auto it = s->header.find("interval_s");
        if (it != s->header.end() && it->is_number()) sm.interval_s = it->get<double>();
        sm.readings = s->stats.samples;
        auto u = s->header.find("url");
        if (u != s->header.end() && u->is_string()) sm.url = u->get<std::string>();
    }
    if (!before || !after) return sm;
    if (!sm.url) sm.url = after->url;
    if (!std::isnan(before->t_wall) && !std::isnan(after->t_wall)) {
        sm.started = before->t_wall;
        sm.ended = after->t_wall;
    }
    try {
        sm.span_s = span_s(*before, *after).seconds;
    } catch (const std::runtime_error&) {
        // no clock (bare Prometheus text), or the clocks disagree: no span
    }
    Deltas delta(*before, *after);
    if (!names.finished_reason_label.empty()) {
        for (std::string_view reason : kReasons) {
            auto n = delta(names.request_success, "", {{names.finished_reason_label, std::string(reason)}});
            if (n) sm.finished.emplace_back(std::string(reason), static_cast<long long>(*n));
        }
    } else {
        sm.finished_total = as_count(delta(names.request_success));
    }
    sm.output_tokens = as_count(delta(names.generation_tokens));
    sm.prompt_tokens = as_count(delta(names.prompt_tokens));
    if (!names.preemptions.empty())
        sm.preemptions = as_count(delta(names.preemptions, engine.witness(names.preemptions)));
    sm.mean_latency_s = mean_of(delta, names.e2e_latency);
    sm.mean_first_token_s = mean_of(delta, names.first_token);
    sm.mean_queue_s = mean_of(delta, names.queue_time);
    if (delta.restart()) {
        // Nothing between two server processes is a figure of this run: only what the recording says.
        Summary kept;
        kept.peak_running = sm.peak_running;
        kept.interval_s = sm.interval_s;
        kept.readings = sm.readings;
        kept.url = sm.url;
        kept.restarted = true;
        return kept;
    }
    return sm;
}

}  // namespace

std::optional<long long> Summary::done() const {
    if (!finished.empty()) {
        long long n = 0;
        for (const auto& [_, k] : finished) n += k;
        return n;
    }
    return finished_total;
}

long long Summary::finished_with(const std::string& reason) const {
    for (const auto& [r, n] : finished)
        if (r == reason) return n;
    return 0;
}

const CheckResult* Report::result(TripwireId tripwire) const {
    for (const auto& r : results)
        if (r.tripwire == tripwire) return &r;
    return nullptr;
}

Report build_report(checks::RunEvidence ev, checks::RunVerdicts verdicts, std::optional<Series> series,
                    std::optional<double> boot_s, PageInfo page) {
    Report rep;
    rep.results = std::move(verdicts.results);
    rep.usable_blocks = verdicts.usable_blocks;
    rep.measured = verdicts.measured;
    for (auto& b : ev.boots) rep.boots.emplace_back(std::move(b.label), std::move(b.facts));
    const Engine& engine = ev.engine();
    rep.engine = &engine;
    rep.summary = summarize_run(ev.before, ev.after, ev.series, engine);
    rep.summary.boot_s = boot_s;
    rep.title = page.title && !page.title->empty() ? *page.title : default_title(rep.boots, engine);
    rep.generated = std::move(page.generated);
    if (ev.requested) rep.requested = ev.requested->value();
    rep.sources = std::move(page.sources);
    rep.shown = std::move(page.shown);
    rep.before = std::move(ev.before);
    rep.after = std::move(ev.after);
    rep.series = std::move(series);
    rep.bench = std::move(ev.bench);
    return rep;
}

}  // namespace inferlint::report
