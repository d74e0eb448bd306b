// The difference of B against A per figure, and the gates: whether the evidence shows B
// better, by how much, and whether what a script asked for holds. The sign of a difference
// alone never passes a gate: its interval must.
#include "compare_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::checks {

namespace {

using compare_detail::join;

std::string unsigned_pct(double share) { return fmt::format("{:.1f}%", std::fabs(share) * 100); }

std::vector<double> values_of(const Arm& arm, Figure f, bool keep_absent, std::vector<bool>* present = nullptr) {
    std::vector<double> out;
    for (const ArmRun* r : arm.completed()) {
        auto v = r->figures.value(f);
        if (present) present->push_back(v.has_value());
        if (v || keep_absent) out.push_back(v.value_or(std::nan("")));
    }
    return out;
}

std::string statement_of(const FigureComparison& fc, const Arm& b) {
    const auto& g = fc.gain;
    if (!g.interval) return "can't tell: " + g.problem;
    const auto& iv = *g.interval;
    if (iv.lo > 0)
        return fmt::format("{} is faster by {} [{}, {}]", b.name, unsigned_pct(*g.relative), unsigned_pct(iv.lo),
                           unsigned_pct(iv.hi));
    if (iv.hi < 0)
        return fmt::format("{} is slower by {} [{}, {}]", b.name, unsigned_pct(*g.relative), unsigned_pct(iv.hi),
                           unsigned_pct(iv.lo));
    return fmt::format("no difference shown: [{}, {}] includes 0", signed_pct(iv.lo), signed_pct(iv.hi));
}

FigureComparison compare_figure(const Arm& a, const Arm& b, Figure f, const CompareOptions& o) {
    FigureComparison fc;
    fc.figure = f;
    stats::DiffOptions d{.pairing = o.pairing, .seed = o.seed, .resamples = o.resamples};
    if (o.pairing == stats::Pairing::paired) {
        // Pairs by position: a pair in which either run lacks the figure is left out whole.
        std::vector<bool> pa, pb;
        auto va = values_of(a, f, true, &pa), vb = values_of(b, f, true, &pb);
        for (std::size_t i = 0; i < std::min(va.size(), vb.size()); ++i)
            if (pa[i] && pb[i]) {
                fc.a.push_back(va[i]);
                fc.b.push_back(vb[i]);
            }
        if (va.size() != vb.size()) {
            fc.diff.problem = fmt::format("paired arms need as many completed runs ({} has {}, {} has {})", a.name,
                                          va.size(), b.name, vb.size());
            fc.gain = fc.diff;
            fc.statement = "can't tell: " + fc.diff.problem;
            return fc;
        }
    } else {
        fc.a = values_of(a, f, false);
        fc.b = values_of(b, f, false);
    }
    fc.diff = stats::relative_difference(fc.a, fc.b, d);
    if (fc.diff.problem == "a figure is not a number")
        fc.diff.problem = "a run's " + std::string(figure_name(f)) + " is not a number";
    if (fc.a.empty() || fc.b.empty()) fc.diff.problem = "no run of an arm gives " + std::string(figure_name(f));
    fc.gain = stats::as_gain(fc.diff, figure_better(f));
    fc.statement = statement_of(fc, b);
    return fc;
}

const FigureComparison* find_figure(const std::vector<FigureComparison>& v, Figure f) {
    for (const auto& x : v)
        if (x.figure == f) return &x;
    return nullptr;
}

GateResult gain_gate(const Comparison& c, const GainGate& g) {
    GateResult r{"require-gain", g.figure, Status::unknown, "", Json::object()};
    const FigureComparison* fc = find_figure(c.figures, g.figure);
    r.evidence = {{"min_pct", g.min_pct}};
    const std::string name(figure_name(g.figure));
    if (c.cant_tell || !fc || !fc->gain.interval) {
        r.message = fmt::format("{}: can't tell ({})", name, c.cant_tell ? *c.cant_tell : fc ? fc->gain.problem : "");
        return r;
    }
    const double lo = fc->gain.interval->lo;
    r.evidence["gain_lower_bound_pct"] = lo * 100;
    const bool pass = lo * 100 > g.min_pct;
    r.status = pass ? Status::pass : Status::fail;
    r.message = fmt::format("{}: the gain's lower bound {} is {} {}{}", name, signed_pct(lo),
                            pass ? "above" : "not above", signed_pct(g.min_pct / 100),
                            !pass && *fc->gain.relative > 0 ? " (a positive sign alone does not pass)" : "");
    return r;
}

// The best run of an arm: the highest throughput, the lowest latency.
std::optional<double> best_of(const std::vector<double>& v, Figure f) {
    if (v.empty()) return std::nullopt;
    return figure_better(f) == stats::Better::higher ? *std::max_element(v.begin(), v.end())
                                                     : *std::min_element(v.begin(), v.end());
}

GateResult floor_gate(const Comparison& c, const ShareGate& g) {
    GateResult r{"floor", g.figure, Status::unknown, "", Json::object()};
    const FigureComparison* fc = find_figure(c.figures, g.figure);
    const std::string name(figure_name(g.figure));
    const double best_a = fc ? best_of(fc->a, g.figure).value_or(0.0) : 0.0;
    const double best_b = fc ? best_of(fc->b, g.figure).value_or(0.0) : 0.0;
    const bool both = fc && !fc->a.empty() && !fc->b.empty();
    r.evidence = {{"floor", g.value},
                  {"best_a", both ? Json(best_a) : Json(nullptr)},
                  {"best_b", both ? Json(best_b) : Json(nullptr)}};
    if (c.cant_tell || !both || best_a == 0 || best_b == 0) {
        r.message = fmt::format("{}: can't tell ({})", name, c.cant_tell.value_or("an arm's best run has no value"));
        return r;
    }
    // For a lower-is-better figure, reaching F x A's best means B's best is at most A's / F.
    const bool higher = figure_better(g.figure) == stats::Better::higher;
    const double share = higher ? best_b / best_a : best_a / best_b;
    r.evidence["share"] = share;
    r.status = share >= g.value ? Status::pass : Status::fail;
    r.message = fmt::format("{}: {}'s best run is {:.3f}x {}'s best ({} {:.2f}, {} {:.2f}); the floor is {:g}", name,
                            c.b->name, share, c.a->name, c.b->name, best_b, c.a->name, best_a, g.value);
    return r;
}

GateResult spread_gate(const Comparison& c, const ShareGate& g, bool floor_failed) {
    GateResult r{"max-spread", g.figure, Status::unknown, "", Json::object()};
    const FigureComparison* fc = find_figure(c.figures, g.figure);
    const std::string name(figure_name(g.figure));
    r.evidence = {{"max_spread", g.value}};
    if (floor_failed) {
        r.status = Status::not_applicable;
        r.message = fmt::format("{}: not weighed: {} missed the floor, and spread is only a tiebreak after it", name,
                                c.b->name);
        return r;
    }
    if (c.cant_tell || !fc || fc->b.size() < 2) {
        r.message = fmt::format("{}: can't tell ({})", name, c.cant_tell.value_or("fewer than 2 runs of B give it"));
        return r;
    }
    const double spread = stats::sd_of(fc->b) / std::fabs(stats::mean_of(fc->b));
    r.evidence["spread"] = spread;
    r.status = spread < g.value ? Status::pass : Status::fail;
    r.message = fmt::format("{}: {}'s run-to-run spread (sd / mean) is {:.2f}%, {} {:.2f}%", name, c.b->name,
                            spread * 100, spread < g.value ? "under" : "not under", g.value * 100);
    return r;
}

}  // namespace

std::string signed_pct(double share) { return fmt::format("{:+.1f}%", share * 100); }

Comparison compare_arms(const Arm& a, const Arm& b, const CompareOptions& o) {
    Comparison c;
    c.a = &a;
    c.b = &b;
    c.options = o;
    std::vector<std::string> short_of;
    for (const Arm* arm : {&a, &b})
        if (arm->completed().size() < kMinCompletedRuns)
            short_of.push_back(fmt::format("{} has {} completed run{}", arm->name, arm->completed().size(),
                                           arm->completed().size() == 1 ? "" : "s"));
    if (!short_of.empty())
        c.cant_tell = fmt::format("{}; a difference needs at least {} completed runs per arm", join(short_of, " and "),
                                  kMinCompletedRuns);
    for (Figure f : kFigures) {
        c.figures.push_back(compare_figure(a, b, f, o));
        if (c.cant_tell)
            c.figures.back().statement =
                fmt::format("can't tell: fewer than {} completed runs an arm", kMinCompletedRuns);
    }
    c.checks = comparability_checks(a, b);
    for (const auto& g : o.require_gain) c.gates.push_back(gain_gate(c, g));
    bool floor_failed = false;
    if (o.floor) {
        c.gates.push_back(floor_gate(c, *o.floor));
        floor_failed = c.gates.back().status == Status::fail;
    }
    if (o.max_spread) c.gates.push_back(spread_gate(c, *o.max_spread, floor_failed));
    return c;
}

int Comparison::exit_code() const {
    bool unknown = cant_tell.has_value();
    for (const auto& g : gates) {
        if (g.status == Status::fail) return 1;
        unknown |= g.status == Status::unknown;
    }
    for (const auto& r : checks)
        if (r.status == Status::fail) return 1;
    return unknown ? 2 : 0;
}

}  // namespace inferlint::checks
