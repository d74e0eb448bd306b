// results.json: what a script reads after an xray run. A run that did not complete is
// written too, saying so, with everything it got to.
#include "inferlint/run/xray.hpp"
#include "inferlint/util/files.hpp"

#include <cmath>
#include "xray_internal.hpp"

namespace inferlint::xray {

namespace {

Json path_or_null(const std::optional<fs::path>& p) { return p ? Json(p->string()) : Json(nullptr); }

Json plan_json(const Plan& p, const Outcome& o) {
    Json j = Json::object();
    j["out"] = p.out.string();
    j["load"] = p.load;
    j["load_as_run"] = o.load_argv;  // with the flags that save the client's result
    j["url"] = p.url;
    j["serve"] = or_null(p.serve);
    j["boot_log"] = path_or_null(p.boot_log);
    j["requested"] = or_null(p.requested);
    j["bench_result"] = path_or_null(p.bench_result);
    j["interval_s"] = p.interval_s;
    j["ready_timeout_s"] = p.ready_timeout_s;
    j["load_timeout_s"] = or_null(p.load_timeout_s);
    j["probe"] = p.probe;
    j["title"] = or_null(p.title);
    j["engine"] = p.engine ? Json(p.engine->key) : Json(nullptr);
    j["strict"] = p.strict == Strict::yes;
    if (!p.replicas.empty()) {
        Json reps = Json::array();
        for (const auto& r : p.replicas)
            reps.push_back(Json{{"name", r.name},
                                {"url", r.url},
                                {"folder", r.folder},
                                {"serve", or_null(r.serve)},
                                {"boot_log", path_or_null(r.boot_log)}});
        j["replicas"] = std::move(reps);
    }
    return j;
}

Json signal_or_null(int sig) { return sig ? Json(detail::signal_name(sig)) : Json(nullptr); }

// Why xray stopped the load itself, and how.
Json load_stop_json(const std::optional<LoadStop>& stop) {
    if (!stop) return nullptr;
    Json signals = Json::array();
    for (int sig : stop->signals) signals.push_back(detail::signal_name(sig));
    return Json{{"reason", stop->why == LoadStop::Why::timeout ? "load_timeout" : "server_exited"},
                {"after_s", std::round(stop->after_s * 1000.0) / 1000.0},
                {"signals", std::move(signals)}};
}

}  // namespace

Json results_document(const Plan& plan, const Outcome& o) {
    Json doc = Json::object();
    doc["schema"] = kResultsSchema;
    doc["completed"] = o.completed;
    doc["exit_status"] = exit_code(o, plan.strict);
    doc["interrupted"] = o.interrupted_by != 0;
    doc["problem"] = o.problem.empty() ? Json(nullptr) : Json(o.problem);
    doc["load_exit"] = or_null(o.load_exit);
    doc["versions"] = Json{{"inferlint", INFERLINT_VERSION},
                           {"engine", o.engine.empty() ? Json(nullptr) : Json(o.engine)},
                           {"server", or_null(o.server_version)}};
    doc["plan"] = plan_json(plan, o);
    doc["counts"] = counts_summary(o.results);
    Json results = Json::array();
    for (const auto& r : o.results) results.push_back(r.to_json());
    doc["results"] = std::move(results);
    Json limits = Json::array();
    for (const auto& i : o.limits)
        limits.push_back(Json{{"key", i.key},
                              {"title", i.title},
                              {"text", i.text},
                              {"tone", i.tone == report::Tone::limit ? "limit" : "ok"}});
    doc["limits"] = std::move(limits);
    doc["files"] = o.files;
    doc["stopped_at"] = o.stopped_at ? Json(std::string(stage_name(*o.stopped_at))) : Json(nullptr);
    doc["signal"] = signal_or_null(o.interrupted_by);
    doc["load_signal"] = signal_or_null(o.load_signal);
    doc["load_stopped"] = load_stop_json(o.load_stop);
    if (!plan.replicas.empty()) {
        Json reps = Json::array();
        for (const auto& r : o.replicas) {
            Json rs = Json::array();
            for (const auto& x : r.results) rs.push_back(x.to_json());
            reps.push_back(Json{{"name", r.name},
                                {"url", r.url},
                                {"folder", r.folder},
                                {"counts", counts_summary(r.results)},
                                {"results", std::move(rs)},
                                {"files", r.files}});
        }
        doc["replicas"] = std::move(reps);
    }
    return doc;
}

void write_results(const Plan& plan, const Outcome& outcome) {
    util::write_file(plan.out / "results.json",
                     results_document(plan, outcome).dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace inferlint::xray
