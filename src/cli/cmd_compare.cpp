// `inferlint compare A_RUN... --vs B_RUN... [--name-a N] [--name-b N] [--paired] [--seed S]
// [--require-gain METRIC[:MIN%]] [--floor [METRIC:]F] [--max-spread [METRIC:]S] [-o FILE]`:
// is B really better than A? Each figure's difference with its interval, the gates a script
// asks for, and the checks that say whether the two arms can be compared at all.
#include "output.hpp"
#include "registry.hpp"

#include "inferlint/checks/compare.hpp"
#include "inferlint/report/compare_page.hpp"
#include "inferlint/run/compare_runs.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iostream>

namespace inferlint::cli::compare_cmd {
namespace {

struct Opts {
    std::vector<std::string> a, b, require_gain;
    std::string name_a = "A", name_b = "B", floor, max_spread, out;
    bool paired = false;
    std::uint64_t seed = 1;
};

double compare_number(std::string_view text, const std::string& option) {
    double v = 0.0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        throw InputError(fmt::format("{} {}: '{}' is not a number", option, text, text));
    return v;
}

checks::Figure compare_figure(std::string_view name, const std::string& option) {
    auto f = checks::figure_named(name);
    if (!f)
        throw InputError(
            fmt::format("{}: unknown figure '{}' (known: output_throughput, request_throughput, "
                        "ttft_p50, ttft_p99, tpot_p50, tpot_p99)",
                        option, name));
    return *f;
}

// METRIC[:MIN%]
checks::GainGate gain_gate_of(const std::string& arg) {
    checks::GainGate g;
    auto colon = arg.find(':');
    g.figure = compare_figure(std::string_view(arg).substr(0, colon), "--require-gain");
    if (colon != std::string::npos) {
        std::string_view min = std::string_view(arg).substr(colon + 1);
        if (min.ends_with('%')) min.remove_suffix(1);
        g.min_pct = compare_number(min, "--require-gain");
    }
    return g;
}

// [METRIC:]VALUE
checks::ShareGate share_gate_of(const std::string& arg, const std::string& option) {
    checks::ShareGate g;
    auto colon = arg.find(':');
    if (colon != std::string::npos) g.figure = compare_figure(std::string_view(arg).substr(0, colon), option);
    g.value = compare_number(colon == std::string::npos ? arg : arg.substr(colon + 1), option);
    if (g.value <= 0) throw InputError(fmt::format("{} {}: give a value above 0", option, arg));
    return g;
}

checks::CompareOptions options_of(const Opts& o) {
    checks::CompareOptions c;
    c.pairing = o.paired ? stats::Pairing::paired : stats::Pairing::unpaired;
    c.seed = o.seed;
    for (const auto& g : o.require_gain) c.require_gain.push_back(gain_gate_of(g));
    if (!o.floor.empty()) c.floor = share_gate_of(o.floor, "--floor");
    if (!o.max_spread.empty()) c.max_spread = share_gate_of(o.max_spread, "--max-spread");
    return c;
}

std::string arm_line(const checks::Arm& arm) {
    std::string line = fmt::format("{}: {} run{}, {} completed", arm.name, arm.runs.size(),
                                   arm.runs.size() == 1 ? "" : "s", arm.completed().size());
    for (const auto& r : arm.runs)
        if (!r.completed) line += fmt::format("\n  did not complete: {} ({})", r.label, r.failure);
    return line;
}

std::string mean_text(const std::vector<double>& v) {
    return v.empty() ? std::string("-") : fmt::format("{:.2f}", stats::mean_of(v));
}

// The terminal's lines.
std::string compare_text(const checks::Comparison& c) {
    std::string out = arm_line(*c.a) + "\n" + arm_line(*c.b) + "\n\n";
    out += fmt::format("{:<20} {:>12} {:>12}  {} against {}\n", "figure", c.a->name, c.b->name, c.b->name, c.a->name);
    for (const auto& fc : c.figures)
        out += fmt::format("{:<20} {:>12} {:>12}  {}\n", checks::figure_name(fc.figure), mean_text(fc.a),
                           mean_text(fc.b), fc.statement);
    out += "\n";
    for (const auto& r : c.checks) out += r.terminal_line() + "\n";
    for (const auto& g : c.gates) out += fmt::format("[gate] {}  {} {}\n", status_label(g.status), g.gate, g.message);
    if (c.cant_tell) out += "can't tell: " + *c.cant_tell + "\n";
    return out;
}

// The rows --format junit|github|markdown show: each comparability check, each gate,
// and a Can't tell, labelled as themselves, not as tripwires; and for JUnit a suite per run.
report::Verdicts compare_verdicts(const checks::Comparison& c, const Common& common) {
    report::Verdicts v;
    v.command = "compare";
    v.strict = common.strictness();
    auto row = [&](Status status, std::string message, Json evidence, std::string code, std::string title) {
        v.results.push_back(
            CheckResult{.status = status, .message = std::move(message), .evidence = std::move(evidence)});
        v.labels.push_back({std::move(code), std::move(title)});
    };
    for (const auto& r : c.checks)
        row(r.status, r.message, r.evidence, std::string(checks::code(r.id)),
            fmt::format("{} {}", checks::code(r.id), checks::comparison_title(r.id)));
    for (const auto& g : c.gates)
        row(g.status, g.message, g.evidence, "gate", fmt::format("gate {} {}", g.gate, checks::figure_name(g.figure)));
    if (c.cant_tell) row(Status::unknown, *c.cant_tell, Json::object(), "compare", "compare: enough completed runs");
    // JUnit: one more suite per run, with the run's tripwires; a run that did not complete
    // is an <error> saying why.
    for (const auto* arm : {c.a, c.b})
        for (const auto& r : arm->runs) {
            report::Verdicts run;
            run.command = "compare";
            run.suite_name = fmt::format("inferlint compare {}: {}", arm->name, r.label);
            run.strict = v.strict;
            run.results = r.verdicts;
            if (!r.completed) run.problem = "the run did not complete: " + r.failure;
            v.suites.push_back(std::move(run));
        }
    return v;
}

int run_compare(Opts o, const Common& common) {
    if (o.a.empty()) throw InputError("compare: no runs for A (give A's run folders before --vs)");
    if (o.b.empty()) throw InputError("compare: no runs for B (give B's run folders after --vs)");
    if (o.name_a == o.name_b) throw InputError(fmt::format("--name-a and --name-b are both '{}'", o.name_a));
    const checks::CompareOptions options = options_of(o);
    auto accept = refuse_other_engine(common);
    auto a = run::read_arm(o.name_a, o.a, common.engine, accept);
    if (!a) return 2;
    auto b = run::read_arm(o.name_b, o.b, common.engine, accept);
    if (!b) return 2;
    for (auto* arm : {&*a, &*b})
        for (auto& r : arm->runs) {
            r.verdicts = common.selected(std::move(r.verdicts));
            for (const auto& n : r.notes) std::cerr << n << "\n";
        }
    checks::Comparison c = checks::compare_arms(*a, *b, options);
    int status = c.exit_code();
    if (common.strict && status != 1)
        for (const auto& r : c.checks)
            if (r.status == Status::warn) status = 1;
    if (!o.out.empty()) util::write_file(o.out, report::render_compare_html(c, util::local_time_text()));
    Shown shown;
    shown.verdicts = compare_verdicts(c, common);
    Json doc = c.to_json();
    doc["exit_status"] = status;
    shown.json = doc.dump(1, ' ', false, Json::error_handler_t::replace);
    shown.text = compare_text(c);
    if (!o.out.empty()) shown.text += "-> " + o.out + "\n";
    show(shown, common);
    return status;
}

const Registrar reg{Command{
    .name = "compare",
    .group = Group::saved,
    .order = 8,
    .summary = "is B really better than A? differences with intervals, gates, and whether the arms compare",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("runs", o->a, "A's run folders (a folder of run folders counts as its runs)");
        app.add_option("--vs", o->b, "B's run folders")->expected(1, -1);
        app.add_option("--name-a", o->name_a, "A's name (default: A)");
        app.add_option("--name-b", o->name_b, "B's name (default: B)");
        app.add_flag("--paired", o->paired, "run i of A against run i of B, as an interleaved campaign gives them");
        app.add_option("--seed", o->seed, "the bootstrap's seed (default: 1): the same seed, the same intervals");
        app.add_option("--require-gain", o->require_gain,
                       "METRIC[:MIN%]: fail unless the interval's lower bound of B's gain is above MIN (default 0)")
            ->allow_extra_args(false);
        app.add_option("--floor", o->floor,
                       "[METRIC:]F: fail unless B's best run reaches F x A's best "
                       "(default METRIC: output_throughput)");
        app.add_option("--max-spread", o->max_spread,
                       "[METRIC:]S: fail unless B's run-to-run spread (sd / mean) is under S; a tiebreak after "
                       "--floor");
        app.add_option("-o,--out", o->out, "write the comparison's HTML page here");
        app.footer(
            "\nFigures: output_throughput and request_throughput (higher is better); ttft_p50, ttft_p99, "
            "tpot_p50, tpot_p99 (lower is better).\nExit status: 0 no gate or check failed, 1 one did, "
            "2 can't tell (fewer than 3 completed runs an arm) or bad input.");
        return [o](const Common& common) { return run_compare(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::compare_cmd
