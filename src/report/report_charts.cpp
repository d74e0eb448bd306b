// The charts of "What the server did", drawn from the recording and the boot log. Long
// recordings are thinned to what a pixel column can show (its first, last, lowest and
// highest readings), so a million samples make a page of a few MB with every peak and
// preemption still on it.
#include "html_parts.hpp"

#include "inferlint/core/blocks.hpp"
#include "inferlint/parse/series_digest.hpp"
#include "inferlint/report/insights.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace inferlint::report::html {

namespace {

using Ys = std::vector<std::optional<double>>;

std::vector<double> times(const Series& s) {
    std::vector<double> xs;
    xs.reserve(s.samples.size());
    bool mono = std::all_of(s.samples.begin(), s.samples.end(), [](const auto& x) { return x.t_mono_ns.has_value(); });
    if (mono) {
        long long t0 = *s.samples.front().t_mono_ns;
        for (const auto& x : s.samples) xs.push_back(static_cast<double>(*x.t_mono_ns - t0) / 1e9);
    } else {
        double t0 = s.samples.front().t_wall;
        for (const auto& x : s.samples) xs.push_back(x.t_wall - t0);
    }
    return xs;
}

std::vector<svg::Event> preemption_events(const Series& s, const std::vector<double>& xs) {
    struct Raw {
        double x;
        long long n;
    };
    std::vector<Raw> raw;
    std::optional<double> prev;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        auto p = s.samples[i].preemptions;
        if (p && prev && *p > *prev) raw.push_back({xs[i], static_cast<long long>(*p - *prev)});
        if (p) prev = p;
    }
    auto word = [](long long n) { return n > 1 ? "preemptions" : "preemption"; };
    std::vector<svg::Event> out;
    if (raw.size() <= 2 * kChartColumns) {
        for (const auto& r : raw) out.push_back({r.x, fmt::format("{} {} at {:.1f} s", r.n, word(r.n), r.x)});
        return out;
    }
    // Too many markers to tell apart: one per pixel column, with the count they share.
    double x0 = xs.front(), x1 = xs.back();
    double width = (x1 - x0) / static_cast<double>(kChartColumns);
    std::size_t i = 0;
    while (i < raw.size()) {
        double col_end = x0 + (std::floor((raw[i].x - x0) / width) + 1) * width;
        long long n = 0;
        double first = raw[i].x, last = raw[i].x;
        while (i < raw.size() && raw[i].x < col_end) {
            n += raw[i].n;
            last = raw[i].x;
            ++i;
        }
        std::string label = first == last ? fmt::format("{} {} at {:.1f} s", n, word(n), first)
                                          : fmt::format("{} {} at {:.1f} to {:.1f} s", n, word(n), first, last);
        out.push_back({first, std::move(label)});
    }
    return out;
}

// How many requests of the current size fit in the full cache, from a reading near full.
std::optional<double> fits_at(const SeriesSample& x, std::optional<long long> usable) {
    if (x.running && *x.running != 0 && x.kv_usage && *x.kv_usage != 0 && *x.kv_usage >= 0.9) {
        try {
            return static_cast<double>(predict_concurrency(*x.kv_usage, *x.running, usable));
        } catch (const std::invalid_argument&) {}
    }
    return std::nullopt;
}

Ys ceiling(const Series& s, std::optional<long long> usable) {
    Ys out;
    out.reserve(s.samples.size());
    for (const auto& x : s.samples) out.push_back(fits_at(x, usable));
    return out;
}

// Output tokens per second over a sliding window, from the server's own counter.
Ys throughput(const Series& s, const std::vector<double>& xs, double window_s = 1.0) {
    Ys out;
    out.reserve(xs.size());
    std::size_t j = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        while (j < i && xs[i] - xs[j] > window_s) ++j;
        auto gi = s.samples[i].generation_tokens, gj = s.samples[j].generation_tokens;
        if (j == i || !gi || !gj || xs[i] == xs[j] || *gi < *gj)
            out.emplace_back(std::nullopt);
        else
            out.emplace_back((*gi - *gj) / (xs[i] - xs[j]));
    }
    return out;
}

std::map<long long, double> time_at_level(const Series& s, const std::vector<double>& xs) {
    std::map<long long, double> spent;
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
        auto r = s.samples[i].running;
        if (r && *r != 0) spent[static_cast<long long>(*r)] += xs[i + 1] - xs[i];
    }
    return spent;
}

template <typename T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& idx) {
    std::vector<T> out;
    out.reserve(idx.size());
    for (std::size_t i : idx) out.push_back(v[i]);
    return out;
}

std::string whole(double v) { return grouped(v, 0); }

// At most 18 characters' worth of bytes, cut before a whole UTF-8 character, with an ellipsis.
std::string short_label(const std::string& n) {
    if (n.size() <= 18) return n;
    std::size_t cut = 17;
    while (cut > 0 && (static_cast<unsigned char>(n[cut]) & 0xC0) == 0x80) --cut;
    return fmt::format("{}\u2026", std::string_view(n).substr(0, cut));
}

// What the charts of one recording share: the readings' times, the preemptions marked on
// them, and the caption's sentence for an engine whose gauges lag.
struct RunCharts {
    const Report& rep;
    const Series& s;
    std::vector<double> all_xs;
    std::vector<svg::Event> events;
    std::string lag;

    // Each chart keeps what its own lines need at pixel resolution.
    struct Thinned {
        std::vector<double> xs;
        std::vector<Ys> ys;
        std::string note;
    };
    Thinned thin(std::vector<const Ys*> lines) const {
        std::vector<std::size_t> keep = svg::keep_indices(all_xs, lines, kChartColumns);
        Thinned t;
        t.xs = pick(all_xs, keep);
        for (const Ys* l : lines) t.ys.push_back(pick(*l, keep));
        if (keep.size() < all_xs.size())
            t.note = fmt::format(
                " The chart and its table show {} of the {} readings: the first, last, lowest and "
                "highest in each pixel column, so peaks and dips are kept.",
                grouped(double(keep.size())), grouped(double(all_xs.size())));
        return t;
    }
};
using Thinned = RunCharts::Thinned;

// t: running, waiting, fit in cache.
std::string requests_chart(const RunCharts& ctx, const Thinned& t) {
    const auto& xs = t.xs;
    const Ys &run = t.ys[0], &wait = t.ys[1], &fit = t.ys[2];
    svg::TimeChart c;
    c.id = "requests";
    c.xs = xs;
    c.lines = {{"waiting", wait, "s2", svg::LineKind::line},
               {"running", run, "s1", svg::LineKind::line},
               {"fit in cache", fit, "s3", svg::LineKind::step}};
    c.y_unit = "requests";
    if (ctx.rep.requested && *ctx.rep.requested)
        c.refs.push_back({double(*ctx.rep.requested), fmt::format("asked for {}", *ctx.rep.requested)});
    c.events = ctx.events;
    c.event_label = "preemption";
    c.aria = "Requests running and waiting over time";
    std::vector<std::tuple<Key, std::string, std::string>> keys{
        {Key::line, "s1", "running"}, {Key::line, "s2", "waiting"}, {Key::line, "s3", "how many fit in the cache"}};
    if (!c.refs.empty()) keys.emplace_back(Key::ref, "", "concurrency asked for");
    if (!ctx.events.empty()) keys.emplace_back(Key::event, "", "preemption");
    std::vector<std::vector<std::string>> rows;
    rows.reserve(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        rows.push_back({fmt::format("{:.2f}", xs[i]), fmt_n(run[i]), fmt_n(wait[i]), fmt_n(fit[i])});
    std::string cap =
        "Requests the server was working on, the ones queued behind them, and how many requests of their "
        "current size the cache could hold when full. Triangles along the top mark preemptions." +
        ctx.lag + escape_html(t.note);
    return figure("fig-requests", "Requests over time", cap, svg::render_time(c), legend(keys),
                  table({"seconds", "running", "waiting", "fit in cache"}, rows));
}

// A chart of t's one line over time, and its table's rows: seconds, and the value to one decimal.
svg::TimeChart one_line_chart(const Thinned& t, const char* id, const char* name, svg::LineKind kind,
                              const char* y_unit, const char* aria) {
    svg::TimeChart c;
    c.id = id;
    c.xs = t.xs;
    c.lines = {{name, t.ys[0], "s1", kind}};
    c.y_unit = y_unit;
    c.aria = aria;
    return c;
}
std::vector<std::vector<std::string>> one_line_rows(const Thinned& t) {
    std::vector<std::vector<std::string>> rows;
    rows.reserve(t.xs.size());
    for (std::size_t i = 0; i < t.xs.size(); ++i)
        rows.push_back({fmt::format("{:.2f}", t.xs[i]), fmt_n(t.ys[0][i], 1)});
    return rows;
}

std::string kv_chart(const RunCharts& ctx, const Thinned& t) {
    svg::TimeChart c = one_line_chart(t, "kv", "KV cache in use", svg::LineKind::area, "%", "KV cache usage over time");
    c.y_max = 100;
    c.y_fmt = [](double v) { return fmt::format("{:.0f}%", v); };
    c.events = ctx.events;
    c.event_label = "preemption";
    std::string steps =
        ctx.rep.usable_blocks
            ? fmt::format(" The reading moves in steps of 1/{}: one block is held back (T14).", *ctx.rep.usable_blocks)
            : "";
    std::string leg = ctx.events.empty() ? "" : legend({{Key::event, "", "preemption"}});
    return figure(
        "fig-kv", "KV cache in use",
        "The share of the cache holding requests' tokens." + escape_html(steps) + ctx.lag + escape_html(t.note),
        svg::render_time(c), leg, table({"seconds", "% in use"}, one_line_rows(t)));
}

std::string tput_chart(const RunCharts& ctx, const Thinned& t) {
    svg::TimeChart c =
        one_line_chart(t, "tput", "tokens/s", svg::LineKind::line, "tokens/s", "Output tokens per second over time");
    return figure("fig-tput", "Output tokens per second",
                  "Tokens generated over the last second at each reading, from the server's own counter." + ctx.lag +
                      escape_html(t.note),
                  svg::render_time(c), "", table({"seconds", "tokens/s"}, one_line_rows(t)));
}

std::string levels_chart(const RunCharts& ctx, const std::map<long long, double>& spent) {
    if (spent.empty()) return "";
    std::vector<svg::Bar> bars;
    std::vector<std::vector<std::string>> rows;
    for (auto it = spent.rbegin(); it != spent.rend(); ++it) {
        bars.push_back({fmt::format("{} at once", it->first), it->second,
                        fmt::format("{} running at once for {:.1f} s", it->first, it->second)});
        rows.push_back({std::to_string(it->first), fmt::format("{:.2f}", it->second)});
    }
    svg::BarChart c;
    c.id = "levels";
    c.bars = std::move(bars);
    c.unit = "seconds";
    c.aria = "Seconds spent at each number of running requests";
    std::string asked;
    if (ctx.rep.requested && *ctx.rep.requested) {
        long long top = spent.rbegin()->first;
        asked = fmt::format(" The load tool asked for {} the whole time", *ctx.rep.requested) +
                (top < *ctx.rep.requested ? fmt::format(", but the server never ran more than {}.", top) : ".");
    }
    return figure("fig-levels", "How many requests ran at once, and for how long",
                  "Each bar is the total time the server spent working on exactly that many requests together." +
                      escape_html(asked),
                  svg::render_bars(c), "", table({"running at once", "seconds"}, rows));
}

// A long recording, from its digest: the same charts, drawn from the readings it kept.
std::string digest_charts(const Report& rep, const SeriesDigest& d) {
    static_assert(kChartDigestColumns == kChartColumns, "the digest keeps the charts' columns");
    const bool mono = d.all_mono();
    auto at = [mono](const DigestTimes& x) { return mono ? x.mono : x.wall; };
    const auto points = d.points();
    RunCharts ctx{rep, *rep.series, {}, {}, ""};
    const Engine& engine = *rep.engine;
    ctx.lag = engine.gauges_lag ? fmt::format(
                                      " {} updates these readings only when a request completes, so "
                                      "between completions a line holds its last value.",
                                      escape_html(engine.name))
                                : "";
    auto word = [](long long n) { return n > 1 ? "preemptions" : "preemption"; };
    if (const auto& raw = d.preemptions()) {
        for (const auto& [x, n] : *raw)
            ctx.events.push_back({at(x), fmt::format("{} {} at {:.1f} s", n, word(n), at(x))});
    } else {
        for (const auto& p : d.preemptions_per_stretch()) {
            double first = at(p.first), last = at(p.last);
            ctx.events.push_back({first, first == last ? fmt::format("{} {} at {:.1f} s", p.total, word(p.total), first)
                                                       : fmt::format("{} {} at {:.1f} to {:.1f} s", p.total,
                                                                     word(p.total), first, last)});
        }
    }
    Thinned t;
    Ys running, waiting, fits, usage, tput;
    for (const auto& p : points) {
        const SeriesSample& x = p.sample;
        t.xs.push_back(at(p.x));
        running.push_back(x.running);
        waiting.push_back(x.waiting);
        fits.push_back(fits_at(x, rep.usable_blocks));
        usage.push_back(x.kv_usage ? std::optional<double>(*x.kv_usage * 100) : std::nullopt);
        tput.push_back(engine.tokens_at_finish ? std::nullopt : mono ? p.tput_mono : p.tput_wall);
    }
    if (static_cast<long long>(points.size()) < d.samples())
        t.note = fmt::format(
            " The chart and its table show {} of the {} readings: the first, last, lowest and "
            "highest in each pixel column, so peaks and dips are kept.",
            grouped(double(points.size())), grouped(double(d.samples())));
    auto with = [&t](std::vector<Ys> ys) {
        Thinned one{t.xs, std::move(ys), t.note};
        return one;
    };
    std::string out = requests_chart(ctx, with({running, waiting, fits})) + kv_chart(ctx, with({usage}));
    if (std::any_of(tput.begin(), tput.end(), [](const auto& v) { return v.has_value(); }))
        out += tput_chart(ctx, with({tput}));
    std::map<long long, double> spent;
    for (const auto& [level, x] : d.level_s()) spent[level] = at(x);
    return out + levels_chart(ctx, spent);
}

}  // namespace

std::string run_charts(const Report& rep) {
    if (!rep.series || rep.series->samples.size() < 2) return "";
    if (rep.series->digest) return digest_charts(rep, *rep.series->digest);
    const Series& s = *rep.series;
    const Engine& engine = *rep.engine;
    RunCharts ctx{rep, s, times(s), {}, ""};
    ctx.events = preemption_events(s, ctx.all_xs);
    ctx.lag = engine.gauges_lag ? fmt::format(
                                      " {} updates these readings only when a request completes, so "
                                      "between completions a line holds its last value.",
                                      escape_html(engine.name))
                                : "";

    Ys running, waiting, usage;
    running.reserve(s.samples.size());
    for (const auto& x : s.samples) {
        running.push_back(x.running);
        waiting.push_back(x.waiting);
        usage.push_back(x.kv_usage ? std::optional<double>(*x.kv_usage * 100) : std::nullopt);
    }
    Ys fits = ceiling(s, rep.usable_blocks);
    Ys tput = engine.tokens_at_finish ? Ys(s.samples.size()) : throughput(s, ctx.all_xs);
    std::string out = requests_chart(ctx, ctx.thin({&running, &waiting, &fits})) + kv_chart(ctx, ctx.thin({&usage}));
    if (std::any_of(tput.begin(), tput.end(), [](const auto& v) { return v.has_value(); }))
        out += tput_chart(ctx, ctx.thin({&tput}));
    return out + levels_chart(ctx, time_at_level(s, ctx.all_xs));
}

std::string tput_note(const Report& rep) {
    if (!rep.engine->tokens_at_finish || !rep.series || rep.series->samples.size() < 2) return "";
    return fmt::format(
        "<p class=\"note\">No output-tokens-per-second chart: {} adds a request's tokens to its counter only when "
        "the request finishes, so readings taken during the run show completions, not generation. The load "
        "tool's figure and T10 cover the whole run.</p>",
        escape_html(rep.engine->name));
}

std::string cache_chart(const Report& rep) {
    auto need = cache_need(rep);
    if (!need) return "";
    const double pool = double(need->pool), total = need->total();
    std::string load = fmt::format("{} requests at full length", need->concurrency);
    svg::BarChart c;
    c.id = "cache";
    c.bars = {
        {"KV cache", pool, fmt::format("the cache holds {} tokens", grouped(pool))},
        {load, total, fmt::format("{} x {} tokens = {}", need->concurrency, grouped(need->allocated), grouped(total))}};
    c.unit = "tokens";
    c.fmt = whole;
    c.aria = "Tokens the KV cache holds, and tokens the load needs";
    c.label_width = 190;
    std::string fit = total > pool
                          ? fmt::format(" {} of them fit.", static_cast<long long>(std::floor(pool / need->allocated)))
                          : fmt::format(" The cache has {} tokens to spare.", grouped(pool - total));
    std::string rounded = need->block && need->allocated != need->per_request
                              ? fmt::format(", {} in whole {}-token blocks", grouped(need->allocated), *need->block)
                              : "";
    std::string cap =
        fmt::format(
            "A request holds its prompt and the output it has written so far: about {} tokens by its end{}. All {} "
            "at the end of their output need {}.",
            grouped(need->per_request), rounded, need->concurrency, grouped(total)) +
        fit;
    return figure("fig-cache", "The KV cache and the load", escape_html(cap), svg::render_bars(c), "",
                  table({"", "tokens"}, {{"KV cache", grouped(pool)}, {load, grouped(total)}}));
}

std::string memory_chart(const parse::BootFacts& f) {
    std::vector<std::pair<std::string, std::optional<double>>> parts{{"Model weights", f.model_load_gib},
                                                                     {"KV cache", f.available_kv_cache_gib},
                                                                     {"CUDA graphs", f.cudagraph_actual_gib},
                                                                     {"Activation peak", f.peak_activation_gib}};
    std::vector<svg::Bar> bars;
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : parts) {
        if (!v || *v == 0) continue;
        bars.push_back({k, *v, fmt::format("{}: {:g} GiB", k, *v)});
        rows.push_back({k, fmt::format("{:g}", *v)});
    }
    if (bars.size() < 2) return "";
    svg::BarChart c;
    c.id = "memory";
    c.bars = std::move(bars);
    c.unit = "GiB";
    c.fmt = [](double v) { return grouped(v, 2) + " GiB"; };
    c.aria = "GPU memory per part, from the boot log";
    c.label_width = 150;
    return figure("fig-memory", "GPU memory at start-up",
                  "What the boot log says each part took. The KV cache gets whatever the engine's memory setting "
                  "leaves after the rest, so a change in any other part changes it too (T4, T11).",
                  svg::render_bars(c), "", table({"part", "GiB"}, rows));
}

std::string pools_chart(const Report& rep) {
    std::vector<std::pair<std::string, long long>> pooled;
    for (const auto& [n, f] : rep.boots)
        if (f.kv_pool_tokens && *f.kv_pool_tokens) pooled.emplace_back(n, *f.kv_pool_tokens);
    if (pooled.size() < 2) return "";
    svg::BarChart c;
    std::vector<std::vector<std::string>> rows;
    for (const auto& [n, p] : pooled) {
        std::string shown = short_label(n);
        c.bars.push_back({shown, double(p), fmt::format("{}: {} tokens", n, grouped(double(p)))});
        rows.push_back({n, grouped(double(p))});
    }
    c.id = "pools";
    c.unit = "tokens";
    c.fmt = whole;
    c.aria = "KV pool drawn by each boot";
    c.label_width = 150;
    return figure("fig-pools", "KV pool per boot",
                  "The pool each start drew. Compare results only between starts that drew the same pool (T4).",
                  svg::render_bars(c), "", table({"boot log", "pool tokens"}, rows));
}

}  // namespace inferlint::report::html
