// The comparison as the JSON document `compare --json` prints: every figure, interval,
// gate and check, and per arm its runs, the completed ones and the failed ones with why.
#include "compare_internal.hpp"

namespace inferlint::checks {

namespace {

Json interval_json(const std::optional<stats::Interval>& i) { return i ? Json::array({i->lo, i->hi}) : Json(nullptr); }

Json figures_json(const RunFigures& f) {
    Json j = Json::object();
    for (Figure fig : kFigures) j[std::string(figure_name(fig))] = or_null(f.value(fig));
    j["peak_running"] = or_null(f.peak_running);
    j["mean_running"] = or_null(f.mean_running);
    j["preemptions"] = or_null(f.preemptions);
    return j;
}

Json run_json(const ArmRun& r) {
    Json j = Json::object();
    j["run"] = r.label;
    j["completed"] = r.completed;
    j["failure"] = r.completed ? Json(nullptr) : Json(r.failure);
    j["engine"] = r.engine ? Json(r.engine->key) : Json(nullptr);
    j["figures"] = figures_json(r.figures);
    j["load"] = {{"client", or_null(r.load.client)},           {"endpoint", or_null(r.load.endpoint)},
                 {"input_len", or_null(r.load.input_len)},     {"output_len", or_null(r.load.output_len)},
                 {"concurrency", or_null(r.load.concurrency)}, {"num_prompts", or_null(r.load.num_prompts)}};
    Json verdicts = Json::array();
    for (const auto& v : r.verdicts) verdicts.push_back(v.to_json());
    j["results"] = std::move(verdicts);
    return j;
}

Json arm_json(const Arm& arm) {
    Json runs = Json::array(), completed = Json::array(), failures = Json::array();
    for (const auto& r : arm.runs) {
        runs.push_back(run_json(r));
        if (r.completed)
            completed.push_back(r.label);
        else
            failures.push_back({{"run", r.label}, {"reason", r.failure}});
    }
    return {{"name", arm.name},
            {"runs", std::move(runs)},
            {"completed", std::move(completed)},
            {"failed_runs", failures.size()},
            {"failures", std::move(failures)}};
}

Json figure_json(const FigureComparison& fc) {
    Json j = Json::object();
    j["figure"] = figure_name(fc.figure);
    j["unit"] = figure_unit(fc.figure);
    j["better"] = figure_better(fc.figure) == stats::Better::higher ? "higher" : "lower";
    j["a"] = fc.a;
    j["b"] = fc.b;
    j["a_mean"] = fc.a.empty() ? Json(nullptr) : Json(stats::mean_of(fc.a));
    j["b_mean"] = fc.b.empty() ? Json(nullptr) : Json(stats::mean_of(fc.b));
    j["relative_difference"] = or_null(fc.diff.relative);
    j["interval"] = interval_json(fc.diff.interval);
    j["gain"] = or_null(fc.gain.relative);
    j["gain_interval"] = interval_json(fc.gain.interval);
    j["problem"] = fc.diff.problem.empty() ? Json(nullptr) : Json(fc.diff.problem);
    j["statement"] = fc.statement;
    return j;
}

}  // namespace

Json Comparison::to_json() const {
    Json doc = Json::object();
    doc["schema"] = "inferlint.compare/1";
    doc["arms"] = {{"a", arm_json(*a)}, {"b", arm_json(*b)}};
    doc["paired"] = options.pairing == stats::Pairing::paired;
    doc["seed"] = options.seed;
    // Below kFewRuns completed runs an arm, relative_difference gives the delta method's t interval.
    const bool few = std::min(a->completed().size(), b->completed().size()) < stats::kFewRuns;
    doc["interval"] = {{"method", few ? "the delta method's standard error of the relative difference of the means, "
                                        "times Student's t (fewer than 5 runs an arm)"
                                      : "studentized bootstrap of the relative difference of the means"},
                       {"confidence", 0.95},
                       {"resamples", options.resamples}};
    doc["can_tell"] = !cant_tell.has_value();
    doc["cant_tell"] = or_null(cant_tell);
    Json figs = Json::array();
    for (const auto& fc : figures) figs.push_back(figure_json(fc));
    doc["figures"] = std::move(figs);
    Json gates_json = Json::array();
    for (const auto& g : gates)
        gates_json.push_back({{"gate", g.gate},
                              {"figure", figure_name(g.figure)},
                              {"status", status_value(g.status)},
                              {"message", g.message},
                              {"evidence", g.evidence}});
    doc["gates"] = std::move(gates_json);
    Json checks_json = Json::array();
    for (const auto& c : checks) checks_json.push_back(c.to_json());
    doc["checks"] = std::move(checks_json);
    doc["exit_status"] = exit_code();
    return doc;
}

}  // namespace inferlint::checks
