// A run window over a fleet from Prometheus: which replicas, their snapshots at the
// window's ends, their gauges as recordings, their gaps and counter resets; and the
// fleet's own evidence made from them (the summed gauges, the union snapshots).
#include "inferlint/run/prometheus.hpp"
#include "prometheus_internal.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/url.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace inferlint::run {

using namespace detail;

namespace {

std::string label_of(const std::map<std::string, std::string>& labels, const std::string& key) {
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
}

// Every replica's scrape at or before `at`: its snapshot, or why there is none.
void fleet_scrapes_at(const PromSource& src, const std::string& inner, FleetWindow& f, double at, bool end) {
    const std::string& key = f.replica_key;
    const std::string base = util::normalise_base_url(src.url);
    auto by = [&](const parse::PromAnswer& a) {
        std::map<std::string, std::vector<const parse::PromSeries*>> out;
        for (const auto& s : a.series) out[label_of(s.labels, key)].push_back(&s);
        return out;
    };
    const parse::PromAnswer all = prom_instant(src, prom_with(inner, R"(job=~".+",__name__!~"up|scrape_.+")"), at);
    const parse::PromAnswer up = prom_instant(src, "up" + prom_with(inner, ""), at);
    const parse::PromAnswer up_t = prom_instant(src, "timestamp(up" + prom_with(inner, "") + ")", at);
    const parse::PromAnswer took = prom_instant(src, "scrape_duration_seconds" + prom_with(inner, ""), at);
    auto series = by(all), ups = by(up), times = by(up_t), durations = by(took);
    const std::string where = end ? "the window's end" : "the window's start";
    const double stale_s = std::max(3 * f.step_s, 5.0);
    for (auto& r : f.replicas) {
        std::string& missing = end ? r.after_missing : r.before_missing;
        auto u = ups.find(r.name);
        auto t = times.find(r.name);
        if (u == ups.end() || t == times.end()) {
            missing = fmt::format("not scraped at or before {} ({})", where, prom_moment_text(at));
            continue;
        }
        if (u->second.front()->samples.back().value == 0) {
            missing = fmt::format("down at its last scrape before {} ({}): up is 0", where, prom_moment_text(at));
            continue;
        }
        const double scraped = t->second.front()->samples.back().value;
        if (at - scraped > stale_s) {
            missing = fmt::format("last scraped {:.1f} s before {}", at - scraped, where);
            continue;
        }
        auto got = series.find(r.name);
        std::vector<parse::PromSeries> mine;
        bool engine_series = false;
        if (got != series.end())
            for (const auto* s : got->second) {
                mine.push_back(*s);
                const std::string n = s->name();
                if (f.engine && n.rfind(f.engine->prefix, 0) == 0) engine_series = true;
            }
        if (!engine_series) {
            missing = fmt::format("no {} series in its scrape before {}", f.engine ? f.engine->name : "engine", where);
            continue;
        }
        std::sort(mine.begin(), mine.end(), [](const parse::PromSeries& a, const parse::PromSeries& b) {
            return a.name() != b.name() ? a.name() < b.name() : a.labels < b.labels;
        });
        Snapshot snap;
        snap.t_wall = scraped;
        snap.t_mono_ns = static_cast<long long>(std::llround(scraped * 1e9));
        auto d = durations.find(r.name);
        if (d != durations.end() && std::isfinite(d->second.front()->samples.back().value))
            snap.latency_s = d->second.front()->samples.back().value;
        snap.text = parse::exposition_text(mine, {"job", "instance", key});
        snap.url = fmt::format("{}#{}={}", base, key, r.name);
        snap.source = snap.url;
        (end ? r.after : r.before) = std::move(snap);
    }
}

// The step: the targets' scrape interval (the smallest among the fleet's targets), else
// the spacing of their `up` samples in the window.
void fleet_step(const PromSource& src, const std::string& inner, FleetWindow& f) {
    std::set<std::string> names;
    for (const auto& r : f.replicas) names.insert(r.name);
    try {
        const std::string base = util::normalise_base_url(src.url);
        const std::string body = prom_get(src, "/api/v1/targets?state=active", "targets");
        std::optional<double> best;
        for (const auto& t : parse::parse_prom_targets(body, base + " (targets)")) {
            if (!names.count(label_of(t.labels, f.replica_key)) || !t.scrape_interval_s) continue;
            if (!best || *t.scrape_interval_s < *best) best = t.scrape_interval_s;
        }
        if (best) {
            f.step_s = *best;
            f.step_from = "the targets' scrape interval";
            return;
        }
    } catch (const InputError&) {
        // Thanos, Mimir and VictoriaMetrics may not list targets: the samples say it then.
    }
    const long long window_s = std::max<long long>(1, std::llround(std::ceil(f.window.end - f.window.start)));
    const parse::PromAnswer up =
        prom_instant(src, fmt::format("up{}[{}s]", prom_with(inner, ""), window_s), f.window.end);
    std::optional<double> best;
    for (const auto& s : up.series) {
        if (!names.count(label_of(s.labels, f.replica_key)) || s.samples.size() < 2) continue;
        std::vector<double> gaps;
        for (std::size_t i = 1; i < s.samples.size(); ++i) gaps.push_back(s.samples[i].t - s.samples[i - 1].t);
        std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
        const double median = gaps[gaps.size() / 2];
        if (median > 0 && (!best || median < *best)) best = median;
    }
    if (!best)
        throw InputError(
            fmt::format("{}: cannot tell how often the replicas were scraped (no targets listed, and "
                        "under two `up` samples in the window): give --step",
                        util::normalise_base_url(src.url)));
    f.step_s = std::round(*best * 1000.0) / 1000.0;
    f.step_from = "the samples' spacing";
}

// Each replica's gauges every step, as `watch` would have recorded them.
void fleet_gauges(const PromSource& src, const std::string& inner, FleetWindow& f, std::size_t series_hint) {
    const Engine& engine = *f.engine;
    std::set<std::string> names;
    for (const auto& [field, name] : series_gauges(engine)) {
        names.insert(name);
        const std::string w = engine.witness(name);
        if (!w.empty()) names.insert(w);
    }
    std::string alt;
    for (const auto& n : names) alt += (alt.empty() ? "" : "|") + n;
    const std::string selector = prom_with(inner, "__name__=~\"" + alt + "\"");
    const parse::PromAnswer got = prom_range(src, selector, f.window.start, f.window.end, f.step_s, series_hint);
    // A step's value is the replica's last scrape at or before it, so the steps before a
    // replica's first scrape in the window hold one from before it (the load's warm-up,
    // xray's probe). Those steps are left out, as a gap: what a replica did before the
    // window is not in it. The raw samples of the running gauge over the window's first
    // lookback (Prometheus's default 5 minutes; no step after it holds an older scrape)
    // tell when each replica's first scrape in the window was.
    const double head_s = std::min(f.window.end - f.window.start, 300.0);
    const long long head_ms = std::max<long long>(1, std::llround(head_s * 1000.0));
    // One millisecond more than the head: a scrape at the window's very start is in it (a
    // range leaves out its own start in Prometheus 3).
    const parse::PromAnswer head =
        prom_instant(src, fmt::format("{}{}[{}ms]", engine.metrics.running, prom_with(inner, ""), head_ms + 1),
                     f.window.start + static_cast<double>(head_ms) / 1000.0);
    const long long start_ms = std::llround(f.window.start * 1000.0);
    std::map<std::string, long long> first_in;  // replica -> its first scrape in the window (ms)
    for (const auto& s : head.series)
        for (const auto& x : s.samples)
            if (const long long ms = std::llround(x.t * 1000.0); ms >= start_ms) {
                auto [it, fresh] = first_in.try_emplace(label_of(s.labels, f.replica_key), ms);
                if (!fresh) it->second = std::min(it->second, ms);
            }
    const long long head_end_ms = start_ms + head_ms;
    const std::string base = util::normalise_base_url(src.url);
    // replica -> time (ms) -> its samples then
    std::map<std::string, std::map<long long, std::vector<prom::Sample>>> at;
    for (const auto& s : got.series) {
        const std::string replica = label_of(s.labels, f.replica_key);
        const auto first = first_in.find(replica);
        const long long first_ms = first != first_in.end() ? first->second : head_end_ms + 1;
        prom::Labels labels;
        for (const auto& [k, v] : s.labels)
            if (k != "__name__" && k != "job" && k != "instance" && k != f.replica_key) labels.emplace_back(k, v);
        for (const auto& x : s.samples) {
            const long long ms = std::llround(x.t * 1000.0);
            if (ms < first_ms) continue;
            at[replica][ms].push_back(prom::Sample{s.name(), labels, x.value});
        }
    }
    for (auto& r : f.replicas) {
        const std::string url = fmt::format("{}#{}={}", base, f.replica_key, r.name);
        std::string text = python_json_line(series_header(engine, url, f.step_s)) + "\n";
        for (auto& [ms, samples] : at[r.name]) {
            prom::Metrics m(std::move(samples));
            try {
                text +=
                    python_json_line(series_sample(m, engine, static_cast<double>(ms) / 1000.0, std::nullopt)) + "\n";
            } catch (const std::runtime_error& e) {
                throw InputError(fmt::format("{}: {}", url, e.what()));
            }
        }
        r.series = series_from_text(text, url);
        r.gaps = series_gaps(r.series, f.window, f.step_s);
    }
}

// Counter resets in the window, per replica: resets() of each counter the checks read
// (one query each: resets() drops the metric's name, so several in one query collide).
void fleet_resets(const PromSource& src, const std::string& inner, FleetWindow& f) {
    const long long window_s = std::max<long long>(1, std::llround(std::ceil(f.window.end - f.window.start)));
    std::map<std::string, long long> n;
    for (const auto& [field, name] : series_gauges(*f.engine)) {
        if (name.size() < 6 || name.compare(name.size() - 6, 6, "_total") != 0) continue;
        const parse::PromAnswer got = prom_instant(
            src, fmt::format("sum by ({}) (resets({}{}[{}s]))", f.replica_key, name, prom_with(inner, ""), window_s),
            f.window.end);
        for (const auto& s : got.series)
            if (!s.samples.empty() && s.samples.back().value > 0)
                n[label_of(s.labels, f.replica_key)] += std::llround(s.samples.back().value);
    }
    for (auto& r : f.replicas)
        if (auto it = n.find(r.name); it != n.end()) r.resets = it->second;
}

}  // namespace

FleetWindow read_fleet_window(const PromSource& src, const PromWindow& window, std::optional<double> step,
                              const std::function<bool(const Engine*)>& accept) {
    const std::string base = util::normalise_base_url(src.url);
    if (!(window.end > window.start))
        throw InputError(fmt::format("{}: the window ends ({}) before it starts ({})", base,
                                     prom_moment_text(window.end), prom_moment_text(window.start)));
    const std::string inner = prom_matchers(src.selector);
    FleetWindow f;
    f.url = base;
    f.selector = src.selector.empty() ? std::string("{}") : src.selector;
    f.window = window;
    // Which series, replicas and engine: /api/v1/series over the window.
    const std::string match = prom_with(inner, R"(__name__=~"(vllm:|sglang:|trtllm_).+")");
    std::vector<std::string> warnings;
    const std::string what = "series " + match;
    const std::string body = prom_get(src,
                                      fmt::format("/api/v1/series?match%5B%5D={}&start={}&end={}", prom_escape(match),
                                                  prom_moment_text(window.start), prom_moment_text(window.end)),
                                      what);
    const auto sets = parse::parse_prom_label_sets(body, fmt::format("{} ({})", base, what), warnings);
    if (!warnings.empty()) {
        parse::PromAnswer a;
        a.warnings = warnings;
        refuse_partial(a, fmt::format("{} ({})", base, what));
    }
    if (sets.empty())
        throw InputError(
            fmt::format("{}: no series of vLLM, SGLang or TensorRT-LLM match {} between {} and {}: is the "
                        "server scraped, and does the selector name it?",
                        base, f.selector, prom_moment_text(window.start), prom_moment_text(window.end)));
    std::vector<std::string> names;
    bool pods = false;
    for (const auto& l : sets) {
        names.push_back(label_of(l, "__name__"));
        if (l.count("pod")) pods = true;
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::set<const Engine*> engines;
    for (const auto& n : names)
        if (const Engine* e = named_by({n})) engines.insert(e);
    if (engines.size() > 1) {
        std::string list;
        for (const Engine* e : engines) list += (list.empty() ? "" : " and ") + e->name;
        throw InputError(fmt::format("{}: {} matches series of {}: a fleet serves one engine; narrow --match", base,
                                     f.selector, list));
    }
    f.engine = engines.empty() ? nullptr : *engines.begin();
    if (!f.engine)
        throw InputError(fmt::format("{}: the series {} matches name no engine inferlint knows", base, f.selector));
    if (accept && !accept(f.engine)) {
        f.refused = true;
        return f;
    }
    f.replica_key = pods ? "pod" : "instance";
    std::set<std::string> replicas;
    std::size_t gauge_sets = 0;
    std::set<std::string> gauge_names;
    for (const auto& [field, name] : series_gauges(*f.engine)) gauge_names.insert(name);
    for (const auto& l : sets) {
        replicas.insert(label_of(l, f.replica_key));
        if (gauge_names.count(label_of(l, "__name__"))) ++gauge_sets;
    }
    for (const auto& name : replicas) {
        ReplicaWindow r;
        r.label = f.replica_key;
        r.name = name;
        f.replicas.push_back(std::move(r));
    }
    if (step) {
        f.step_s = *step;
        f.step_from = "--step";
    } else {
        fleet_step(src, inner, f);
    }
    fleet_scrapes_at(src, inner, f, window.start, false);
    fleet_scrapes_at(src, inner, f, window.end, true);
    fleet_gauges(src, inner, f, std::max<std::size_t>(gauge_sets * 2, 1));
    fleet_resets(src, inner, f);
    return f;
}

std::vector<std::pair<double, double>> series_gaps(const Series& series, const PromWindow& window, double step_s) {
    std::vector<std::pair<double, double>> gaps;
    const double slack = 1.5 * step_s;
    // The first scrape in the window comes up to a step after its start (the window's first
    // steps may hold one from before it, left out): a gap is more than 1.5 steps without one.
    double last = window.start;
    for (const auto& x : series.samples) {
        if (x.t_wall - last > slack) gaps.emplace_back(std::max(last, window.start), x.t_wall);
        last = x.t_wall;
    }
    if (window.end - last > slack) gaps.emplace_back(std::max(last, window.start), window.end);
    return gaps;
}

Series fleet_sum(const FleetWindow& fleet) {
    struct Sum {
        long long ms = 0;  // the bucket's first sample, to the millisecond
        double running = 0, waiting = 0;
        bool any_running = false, any_waiting = false;
    };
    // One bucket per step of the window, from its start: Prometheus's samples sit on the
    // steps exactly; a live recording's (xray on several servers, whose window starts at
    // the schedule's tick 0) a scrape's latency after each tick. A replica counts once a
    // step.
    auto bucket = [&](double t) {
        return fleet.step_s > 0 ? static_cast<long long>(std::floor((t - fleet.window.start) / fleet.step_s + 1e-6))
                                : std::llround(t * 1000.0);
    };
    std::map<long long, Sum> at;
    for (const auto& r : fleet.replicas) {
        std::set<long long> counted;
        for (const auto& x : r.series.samples) {
            const long long k = bucket(x.t_wall);
            if (!counted.insert(k).second) continue;
            const long long ms = std::llround(x.t_wall * 1000.0);
            auto [it, fresh] = at.try_emplace(k, Sum{ms});
            Sum& s = it->second;
            if (!fresh) s.ms = std::min(s.ms, ms);
            if (x.running) s.running += *x.running, s.any_running = true;
            if (x.waiting) s.waiting += *x.waiting, s.any_waiting = true;
        }
    }
    Series out;
    out.header = series_header(fleet.engine, fleet.url + "#fleet", fleet.step_s);
    if (fleet.engine) out.engine_key = fleet.engine->key;
    out.source = fleet.url + "#fleet";
    for (const auto& [k, s] : at) {
        SeriesSample x;
        x.t_wall = static_cast<double>(s.ms) / 1000.0;
        if (s.any_running) x.running = s.running;
        if (s.any_waiting) x.waiting = s.waiting;
        out.samples.push_back(x);
    }
    return out;
}

std::optional<Snapshot> fleet_snapshot(const FleetWindow& fleet, bool at_end, std::string& missing) {
    std::vector<parse::PromSeries> all;
    Snapshot out;
    bool first = true;
    for (const auto& r : fleet.replicas) {
        const auto& snap = at_end ? r.after : r.before;
        if (!snap) {
            missing = fmt::format("{}={}: {}", fleet.replica_key, r.name, at_end ? r.after_missing : r.before_missing);
            return std::nullopt;
        }
        for (const auto& x : snap->metrics().samples()) {
            parse::PromSeries s;
            for (const auto& [k, v] : x.labels) s.labels[k] = v;
            s.labels["__name__"] = x.name;
            s.labels[fleet.replica_key] = r.name;
            s.samples.push_back({snap->t_wall, x.value});
            all.push_back(std::move(s));
        }
        if (first || (at_end ? snap->t_wall > out.t_wall : snap->t_wall < out.t_wall)) out.t_wall = snap->t_wall;
        if (snap->latency_s && (!out.latency_s || *snap->latency_s > *out.latency_s)) out.latency_s = snap->latency_s;
        first = false;
    }
    std::sort(all.begin(), all.end(), [](const parse::PromSeries& a, const parse::PromSeries& b) {
        return a.name() != b.name() ? a.name() < b.name() : a.labels < b.labels;
    });
    out.text = parse::exposition_text(all, {});
    out.t_mono_ns = static_cast<long long>(std::llround(out.t_wall * 1e9));
    out.url = fleet.url + "#fleet";
    out.source = out.url;
    return out;
}

}  // namespace inferlint::run
