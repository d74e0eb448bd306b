#include "inferlint/report/compare_page.hpp"

#include "html_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::report {

namespace {

using namespace html;
using checks::Figure;
using checks::FigureComparison;

constexpr int kCmpWidth = 720, kCmpLabel = 150, kCmpRight = 24, kCmpRow = 30;

std::string cmp_pct(double share) { return checks::signed_pct(share); }

// The gains with their intervals on one percent axis, 0 marked: a forest plot.
std::string gains_chart(const checks::Comparison& c) {
    double lo = 0.0, hi = 0.0;
    for (const auto& fc : c.figures)
        if (fc.gain.interval) {
            lo = std::min(lo, fc.gain.interval->lo);
            hi = std::max(hi, fc.gain.interval->hi);
        }
    if (hi - lo < 0.02) hi = lo + 0.02;
    const double pad = (hi - lo) * 0.08;
    const int height = kCmpRow * static_cast<int>(c.figures.size()) + 40;
    svg::Scale x{lo - pad, hi + pad, double(kCmpLabel), double(kCmpWidth - kCmpRight)};
    std::string out = fmt::format(
        R"(<svg viewBox="0 0 {} {}" role="img" aria-label="{}">)", kCmpWidth, height,
        escape_html("Gain of " + c.b->name + " against " + c.a->name + " per figure, with its 95% interval"));
    for (double t : svg::nice_ticks(lo - pad, hi + pad, 6)) {
        out += fmt::format(R"(<line class="grid" x1="{0}" x2="{0}" y1="10" y2="{1}"/>)", svg::num(x(t)), height - 24);
        out += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>)", svg::num(x(t)),
                           height - 8, escape_html(cmp_pct(t)));
    }
    out += fmt::format(R"(<line class="axis" x1="{0}" x2="{0}" y1="6" y2="{1}"/>)", svg::num(x(0)), height - 20);
    for (std::size_t i = 0; i < c.figures.size(); ++i) {
        const FigureComparison& fc = c.figures[i];
        const double y = 24 + kCmpRow * static_cast<double>(i);
        out += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>)", kCmpLabel - 8,
                           svg::num(y + 4), escape_html(checks::figure_name(fc.figure)));
        if (!fc.gain.interval) {
            out += fmt::format(R"(<text class="tick" x="{}" y="{}">can't tell</text>)", kCmpLabel + 4, svg::num(y + 4));
            continue;
        }
        const auto& iv = *fc.gain.interval;
        const std::string tip = fmt::format("{}: {} [{}, {}]", checks::figure_name(fc.figure),
                                            cmp_pct(*fc.gain.relative), cmp_pct(iv.lo), cmp_pct(iv.hi));
        out += fmt::format(R"(<g><title>{}</title><line class="mark s1" x1="{}" x2="{}" y1="{}" y2="{}" )"
                           R"(stroke-width="3"/><circle class="cmp-dot s1" cx="{}" cy="{}" r="5"/></g>)",
                           escape_html(tip), svg::num(x(iv.lo)), svg::num(x(iv.hi)), svg::num(y), svg::num(y),
                           svg::num(x(*fc.gain.relative)), svg::num(y));
    }
    return out + "</svg>";
}

// Each run's value of one figure, A's row over B's, each arm's mean as a bar across its dots.
std::string runs_chart(const FigureComparison& fc, const checks::Comparison& c) {
    std::vector<double> all = fc.a;
    all.insert(all.end(), fc.b.begin(), fc.b.end());
    if (all.empty()) return "";
    double lo = *std::min_element(all.begin(), all.end()), hi = *std::max_element(all.begin(), all.end());
    const double pad = std::max((hi - lo) * 0.1, std::fabs(hi) * 0.01 + 1e-9);
    svg::Scale x{lo - pad, hi + pad, double(kCmpLabel), double(kCmpWidth - kCmpRight)};
    const int height = 2 * kCmpRow + 44;
    const std::string unit(checks::figure_unit(fc.figure));
    std::string out = fmt::format(R"(<svg viewBox="0 0 {} {}" role="img" aria-label="{}">)", kCmpWidth, height,
                                  escape_html(std::string(checks::figure_name(fc.figure)) + " of each run, per arm"));
    for (double t : svg::nice_ticks(lo - pad, hi + pad, 6)) {
        out += fmt::format(R"(<line class="grid" x1="{0}" x2="{0}" y1="10" y2="{1}"/>)", svg::num(x(t)), height - 24);
        out += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>)", svg::num(x(t)),
                           height - 8, escape_html(grouped(t, std::fabs(hi) < 100 ? 2 : 0)));
    }
    int row = 0;
    for (const auto* arm : {&fc.a, &fc.b}) {
        const std::string cls = row == 0 ? "s2" : "s1";
        const std::string& name = row == 0 ? c.a->name : c.b->name;
        const double y = 28 + kCmpRow * row++;
        out += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>)", kCmpLabel - 8,
                           svg::num(y + 4), escape_html(name));
        for (double v : *arm)
            out += fmt::format(R"(<circle class="cmp-dot {}" cx="{}" cy="{}" r="5"><title>{}</title></circle>)", cls,
                               svg::num(x(v)), svg::num(y), escape_html(name + ": " + grouped(v, 2) + " " + unit));
        if (!arm->empty()) {
            const double m = stats::mean_of(*arm);
            out += fmt::format(
                R"(<line class="mark {0}" x1="{2}" x2="{2}" y1="{3}" y2="{4}" stroke-width="2"><title>{1}</title></line>)",
                cls, escape_html(name + " mean: " + grouped(m, 2) + " " + unit), svg::num(x(m)), svg::num(y - 11),
                svg::num(y + 11));
        }
    }
    return out + "</svg>";
}

std::string runs_table(const FigureComparison& fc, const checks::Comparison& c) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < std::max(fc.a.size(), fc.b.size()); ++i)
        rows.push_back({std::to_string(i + 1), i < fc.a.size() ? grouped(fc.a[i], 2) : std::string(kDash),
                        i < fc.b.size() ? grouped(fc.b[i], 2) : std::string(kDash)});
    return table({"run", c.a->name, c.b->name}, rows);
}

std::string checks_section(const checks::Comparison& c) {
    std::string items;
    for (const auto& r : c.checks)
        items += fmt::format("<li class=\"finding {}\">{}<p><strong>{} {}</strong>. {}</p></li>",
                             status_value(r.status), pill(r.status), checks::code(r.id),
                             escape_html(checks::comparison_title(r.id)), escape_html(r.message));
    return "<section aria-labelledby=\"h-checks\"><h2 id=\"h-checks\">Can the arms be compared?</h2>"
           "<ol class=\"findings\">" +
           items + "</ol></section>";
}

std::string verdict_section(const checks::Comparison& c) {
    std::string items;
    if (c.cant_tell)
        items +=
            "<li class=\"finding unknown\">" + pill(Status::unknown) + "<p>" + escape_html(*c.cant_tell) + "</p></li>";
    for (const auto& g : c.gates)
        items += fmt::format("<li class=\"finding {}\">{}<p><strong>{}</strong>: {}</p></li>", status_value(g.status),
                             pill(g.status), escape_html(g.gate), escape_html(g.message));
    std::vector<std::vector<std::string>> rows;
    for (const auto& fc : c.figures)
        rows.push_back({std::string(checks::figure_name(fc.figure)), std::string(checks::figure_unit(fc.figure)),
                        fc.a.empty() ? std::string(kDash) : grouped(stats::mean_of(fc.a), 2),
                        fc.b.empty() ? std::string(kDash) : grouped(stats::mean_of(fc.b), 2), fc.statement});
    return "<section aria-labelledby=\"h-verdict\"><h2 id=\"h-verdict\">Verdict</h2>" +
           (items.empty() ? std::string() : "<ol class=\"findings\">" + items + "</ol>") +
           table({"figure", "unit", c.a->name + " mean", c.b->name + " mean", c.b->name + " against " + c.a->name},
                 rows) +
           "</section>";
}

std::string runs_section(const checks::Comparison& c) {
    std::vector<std::vector<std::string>> rows;
    for (const auto* arm : {c.a, c.b})
        for (const auto& r : arm->runs)
            rows.push_back({arm->name, r.label, r.completed ? "completed" : "did not complete: " + r.failure,
                            fmt_n(r.figures.output_throughput, 1), fmt_n(r.figures.peak_running),
                            fmt_n(r.figures.mean_running, 1), fmt_n(r.figures.preemptions)});
    return "<section aria-labelledby=\"h-runs\"><h2 id=\"h-runs\">Runs</h2>" +
           table({"arm", "run", "state", "output tokens/s", "peak running", "mean running", "preemptions"}, rows) +
           "</section>";
}

}  // namespace

std::string render_compare_html(const checks::Comparison& c, const std::string& generated) {
    const std::string title = c.b->name + " against " + c.a->name;
    std::string meta = escape_html(fmt::format(
        "{}: {} of {} runs completed \u00b7 {}: {} of {} runs completed \u00b7 {} \u00b7 seed {}", c.a->name,
        c.a->completed().size(), c.a->runs.size(), c.b->name, c.b->completed().size(), c.b->runs.size(),
        c.options.pairing == stats::Pairing::paired ? "paired by position" : "unpaired", c.options.seed));
    std::string charts;
    std::vector<std::vector<std::string>> gain_rows;
    for (const auto& fc : c.figures)
        gain_rows.push_back({std::string(checks::figure_name(fc.figure)),
                             fc.gain.relative ? cmp_pct(*fc.gain.relative) : std::string(kDash),
                             fc.gain.interval ? cmp_pct(fc.gain.interval->lo) : std::string(kDash),
                             fc.gain.interval ? cmp_pct(fc.gain.interval->hi) : std::string(kDash)});
    charts += figure("cmp-gains", "Gain of " + c.b->name + " per figure",
                     escape_html("Positive is better: higher throughput, lower latency. The bar is the 95% interval "
                                 "(studentized bootstrap); an interval across 0 shows no difference."),
                     gains_chart(c), "", table({"figure", "gain", "lower", "upper"}, gain_rows));
    for (const auto& fc : c.figures) {
        std::string svg = runs_chart(fc, c);
        if (svg.empty()) continue;
        const std::string name(checks::figure_name(fc.figure));
        charts += figure("cmp-" + name, name + " (" + std::string(checks::figure_unit(fc.figure)) + ")",
                         escape_html(fc.statement), svg,
                         legend({{Key::line, "s2", c.a->name}, {Key::line, "s1", c.b->name}}), runs_table(fc, c));
    }
    std::string body = verdict_section(c) + checks_section(c) +
                       "<section class=\"charts\"><h2>The runs and the differences</h2>" + charts + "</section>" +
                       runs_section(c);
    return html::page(title, meta, "", body,
                      "Made " + escape_html(generated) +
                          " by inferlint " INFERLINT_VERSION ". Every figure is drawn from the runs' own files.");
}

}  // namespace inferlint::report
