// Beyond the reference: a whole run folder's verdicts (inferlint.run, as `inferlint report
// RUN` gives them) and two arms of runs weighed against each other (inferlint.compare, as
// `inferlint compare A... --vs B...`). Both read through the same loader and suite as the CLI.
#include "convert.hpp"

#include "inferlint/checks/compare.hpp"
#include "inferlint/run/compare_runs.hpp"
#include "inferlint/run/judge.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/error.hpp"

#include <fmt/format.h>

namespace inferlint::python {

namespace {

namespace fs = std::filesystem;

// With an engine named, an input from another engine is refused, as the CLI's --engine does.
run::AcceptEngine refuse_other(const Engine* named) {
    if (!named) return {};
    return [named](const Engine* found, const std::string& what) {
        if (found && found != named)
            throw InputError(
                fmt::format("engine '{}' was named, but {} came from {}. Check the file, or name the "
                            "engine it came from.",
                            named->key, what, found->name));
        return true;
    };
}

// A folder with no run file in it is refused as `report` refuses it.
void require_run_folder(const fs::path& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw InputError(fmt::format("{}: not a run folder (no such folder)", folder.string()));
    run::RunFiles found = run::find_run_files(folder);
    if (!found.boot_log && !found.before && !found.after && !found.series)
        throw InputError(
            fmt::format("no run files in {} (looked for boot.log, before.snapshot.json, after.snapshot.json, "
                        "run.series.jsonl, or files like *boot*.log, *before*.json, *after*.json, *.series.jsonl)",
                        folder.string()));
}

// The verdicts `inferlint report DIR` gives: the one path (run::load_judged), with the
// live record xray left in the folder.
std::vector<CheckResult> run_verdicts(const fs::path& folder, std::optional<long long> requested, const Engine* named,
                                      std::optional<std::string> unique_prompts) {
    require_run_folder(folder);
    run::JudgeInput in = run::folder_input(folder);
    in.named = named;
    in.accept = refuse_other(named);
    if (requested) in.requested = checks::Requested::of(*requested);
    in.unique_prompts = std::move(unique_prompts);
    checks::RunVerdicts verdicts;
    auto loaded = run::load_judged(in, verdicts);
    if (!loaded) throw InputError(fmt::format("{}: an input came from another engine", folder.string()));
    if (auto mixed = run::mixed_engines(loaded->engines); mixed && !named)
        throw InputError(*mixed + ". Give the files of one run.");
    return verdicts.results;
}

checks::Figure figure_of(const std::string& name) {
    auto f = checks::figure_named(name);
    if (!f)
        throw py::value_error("unknown figure '" + name +
                              "' (known: output_throughput, request_throughput, ttft_p50, ttft_p99, tpot_p50, "
                              "tpot_p99)");
    return *f;
}

// A share gate given as a number (output throughput) or as (figure, number).
checks::ShareGate share_gate(py::handle arg, const char* name) {
    checks::ShareGate g;
    if (py::isinstance<py::tuple>(arg) || py::isinstance<py::list>(arg)) {
        auto pair = arg.cast<std::pair<std::string, double>>();
        g.figure = figure_of(pair.first);
        g.value = pair.second;
    } else {
        g.value = arg.cast<double>();
    }
    if (!(g.value > 0)) throw py::value_error(std::string(name) + ": give a value above 0");
    return g;
}

checks::CompareOptions compare_options(bool paired, std::uint64_t seed, int resamples, std::optional<py::dict> gain,
                                       py::handle floor, py::handle max_spread) {
    checks::CompareOptions c;
    c.pairing = paired ? stats::Pairing::paired : stats::Pairing::unpaired;
    c.seed = seed;
    if (resamples < 1) throw py::value_error("resamples: give a number above 0");
    c.resamples = resamples;
    if (gain)
        for (auto [k, v] : *gain) c.require_gain.push_back({figure_of(k.cast<std::string>()), v.cast<double>()});
    if (!floor.is_none()) c.floor = share_gate(floor, "floor");
    if (!max_spread.is_none()) c.max_spread = share_gate(max_spread, "max_spread");
    return c;
}

std::vector<std::string> path_list(const py::iterable& paths) {
    std::vector<std::string> out;
    for (auto p : paths) out.push_back(path_of(p).string());
    return out;
}

}  // namespace

void bind_runs(py::module_& m) {
    m.def(
        "run",
        [](py::handle folder, std::optional<long long> requested, std::optional<std::string> engine,
           std::optional<std::string> unique_prompts) {
            if (requested && *requested < 1) throw py::value_error("requested: give a whole number above 0");
            const Engine* named = engine_named(engine);
            auto path = path_of(folder);
            std::vector<CheckResult> results;
            {
                py::gil_scoped_release unlocked;
                results = run_verdicts(path, requested, named, std::move(unique_prompts));
            }
            return check_results(results);
        },
        py::arg("folder"), py::kw_only(), py::arg("requested") = py::none(), py::arg("engine") = py::none(),
        py::arg("unique_prompts") = py::none(),
        "Every verdict a run folder's files allow, in the order `inferlint report` prints them (all\n"
        "tripwires, T16-T18 included). `requested` defaults to the load tool's max_concurrency.\n"
        "Raises InputError (the CLI's one line) for a folder without run files or a file that cannot be read.");
    m.def(
        "compare",
        [](const py::iterable& a_runs, const py::iterable& b_runs, const std::string& name_a, const std::string& name_b,
           bool paired, std::uint64_t seed, int resamples, std::optional<py::dict> gain, py::object floor,
           py::object max_spread, std::optional<std::string> engine) {
            if (name_a == name_b) throw py::value_error("name_a and name_b are both '" + name_a + "'");
            auto options = compare_options(paired, seed, resamples, std::move(gain), floor, max_spread);
            const Engine* named = engine_named(engine);
            auto a_paths = path_list(a_runs), b_paths = path_list(b_runs);
            if (a_paths.empty()) throw InputError("compare: no runs for A (give A's run folders before --vs)");
            if (b_paths.empty()) throw InputError("compare: no runs for B (give B's run folders after --vs)");
            Json doc;
            {
                py::gil_scoped_release unlocked;
                auto a = run::read_arm(name_a, a_paths, named, refuse_other(named));
                auto b = run::read_arm(name_b, b_paths, named, refuse_other(named));
                if (!a || !b) throw InputError("compare: an input came from another engine");
                checks::Comparison c = checks::compare_arms(*a, *b, options);
                doc = c.to_json();
                doc["exit_status"] = c.exit_code();
            }
            return to_python(doc);
        },
        py::arg("a_runs"), py::arg("b_runs"), py::kw_only(), py::arg("name_a") = "A", py::arg("name_b") = "B",
        py::arg("paired") = false, py::arg("seed") = 1, py::arg("resamples") = 4000,
        py::arg("require_gain") = py::none(), py::arg("floor") = py::none(), py::arg("max_spread") = py::none(),
        py::arg("engine") = py::none(),
        "Is arm B better than arm A? The runs of each arm (run folders, or folders of them) read as\n"
        "`inferlint compare A... --vs B...` reads them. Returns its --json document as a dict: each\n"
        "figure's difference with its interval, the comparability checks C1-C7, the gates\n"
        "(require_gain={figure: min_pct}, floor=F or (figure, F), max_spread=S or (figure, S)) and\n"
        "exit_status (0, 1 or 2, as the CLI exits).");
}

}  // namespace inferlint::python
