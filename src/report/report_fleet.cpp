// A fleet's page: the replica table (samples, gaps, restarts, verdicts) and, per replica,
// its running and waiting requests and its KV cache over the window, each thinned to the
// chart's pixel columns so sixteen replicas of an hour stay a page of a few hundred KB.
#include "html_parts.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/report/svgchart.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace inferlint::report::html {

namespace {

using Ys = std::vector<std::optional<double>>;

std::string gap_words(const FleetReplica& r, double start) {
    if (r.series.samples.empty()) return "no sample in the window";
    if (r.gaps.empty()) return "none";
    double total = 0;
    for (const auto& [a, b] : r.gaps) total += b - a;
    return fmt::format("{} ({:.1f} s, first at +{:.1f} s)", r.gaps.size(), total, r.gaps.front().first - start);
}

std::string counts(const FleetReplica& r) {
    int fail = 0, unknown = 0, warn = 0, pass = 0;
    for (const auto& x : r.results) {
        fail += x.status == Status::fail;
        unknown += x.status == Status::unknown;
        warn += x.status == Status::warn;
        pass += x.status == Status::pass;
    }
    return fmt::format("{} failed, {} can't tell, {} warn, {} pass", fail, unknown, warn, pass);
}

std::string replica_chart(const FleetReplica& r, std::size_t i, double start) {
    const auto& s = r.series.samples;
    if (s.size() < 2) return "";
    std::vector<double> xs;
    Ys running, waiting, kv;
    for (const auto& x : s) {
        xs.push_back(x.t_wall - start);
        running.push_back(x.running);
        waiting.push_back(x.waiting);
        kv.push_back(x.kv_usage ? std::optional<double>(*x.kv_usage * 100) : std::nullopt);
    }
    // A gap breaks the lines: a null reading where no sample was.
    std::vector<double> gx;
    Ys gr, gw, gk;
    for (std::size_t k = 0; k < xs.size(); ++k) {
        if (k > 0 && !r.gaps.empty())
            for (const auto& [a, b] : r.gaps)
                if (a - start >= xs[k - 1] && b - start <= xs[k] + 1e-9 && b > a) {
                    gx.push_back((a + b) / 2 - start);
                    gr.emplace_back();
                    gw.emplace_back();
                    gk.emplace_back();
                }
        gx.push_back(xs[k]);
        gr.push_back(running[k]);
        gw.push_back(waiting[k]);
        gk.push_back(kv[k]);
    }
    std::vector<std::size_t> keep = svg::keep_indices(gx, {&gr, &gw, &gk}, kChartColumns);
    auto pick = [&](const auto& v) {
        std::decay_t<decltype(v)> out;
        for (std::size_t k : keep) out.push_back(v[k]);
        return out;
    };
    svg::TimeChart c;
    c.id = fmt::format("replica{}", i);
    c.xs = pick(gx);
    c.lines = {{"waiting", pick(gw), "s2", svg::LineKind::line}, {"running", pick(gr), "s1", svg::LineKind::line}};
    c.y_unit = "requests";
    c.aria = fmt::format("Requests running and waiting on {} over time", r.name);
    svg::TimeChart k;
    k.id = fmt::format("replica{}kv", i);
    k.xs = c.xs;
    k.lines = {{"KV cache in use", pick(gk), "s1", svg::LineKind::area}};
    k.y_unit = "%";
    k.y_max = 100;
    k.y_fmt = [](double v) { return fmt::format("{:.0f}%", v); };
    k.aria = fmt::format("KV cache usage on {} over time", r.name);
    std::vector<std::vector<std::string>> rows;
    const auto& cx = c.xs;
    for (std::size_t j = 0; j < cx.size(); ++j)
        rows.push_back({fmt::format("{:.2f}", cx[j]), fmt_n(c.lines[1].ys[j]), fmt_n(c.lines[0].ys[j]),
                        fmt_n(k.lines[0].ys[j], 1)});
    const bool any_kv = std::any_of(gk.begin(), gk.end(), [](const auto& v) { return v.has_value(); });
    std::string cap = "Requests running and waiting on this replica, as Prometheus sampled them every " +
                      escape_html(fmt::format("{:g}", r.series.header.value("interval_s", 0.0))) +
                      " s; a gap in the line is a stretch with no sample, never a zero.";
    return figure(fmt::format("fig-replica{}", i), "Replica " + r.name, cap,
                  svg::render_time(c) + (any_kv ? svg::render_time(k) : std::string()),
                  legend({{Key::line, "s1", "running"}, {Key::line, "s2", "waiting"}}),
                  table({"seconds", "running", "waiting", "% KV in use"}, rows));
}

}  // namespace

std::string fleet_section(const Report& rep) {
    if (!rep.fleet) return "";
    const FleetPage& f = *rep.fleet;
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : f.replicas) {
        std::optional<double> peak, kv;
        for (const auto& x : r.series.samples) {
            if (x.running && (!peak || *x.running > *peak)) peak = x.running;
            if (x.kv_usage && (!kv || *x.kv_usage > *kv)) kv = x.kv_usage;
        }
        rows.push_back({r.name, fmt_n(double(r.series.samples.size())), gap_words(r, f.start),
                        r.resets > 0 ? fmt::format("yes ({} counter resets)", r.resets) : "no", fmt_n(peak),
                        kv ? fmt::format("{:.1f}%", *kv * 100) : "-", counts(r), r.missing.empty() ? "-" : r.missing});
    }
    std::string charts;
    for (std::size_t i = 0; i < f.replicas.size(); ++i) charts += replica_chart(f.replicas[i], i, f.start);
    return "<section class=\"fleet\" aria-labelledby=\"h-fleet\"><h2 id=\"h-fleet\">Replicas</h2><p class=\"note\">" +
           escape_html(f.source) +
           ". The verdicts above are the fleet's: T8 holds the concurrency asked for against the sum of the "
           "replicas' running requests at each step, T9 and T14 are each replica's, and a replica that fails "
           "fails the fleet.</p>" +
           table({f.replica_label, "samples", "gaps", "restarted", "peak running", "peak KV", "verdicts", "snapshots"},
                 rows) +
           charts + "</section>";
}

}  // namespace inferlint::report::html
