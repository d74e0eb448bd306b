#include "inferlint/run/compare_runs.hpp"

#include "inferlint/run/judge.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/run/xray.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace inferlint::run {

namespace {

struct XrayAccount {
    bool completed = true;
    std::string problem;
    std::vector<std::string> load_argv;
};

// What xray's results.json says of the run; nullopt when the folder has none.
std::optional<XrayAccount> read_xray_account(const fs::path& folder) {
    const fs::path file = folder / "results.json";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    Json doc = Json::parse(util::read_file(file), nullptr, false);
    if (!doc.is_object() || doc.value("schema", "") != xray::kResultsSchema)
        throw InputError(
            fmt::format("{}: not xray's results (expected a {} document)", file.string(), xray::kResultsSchema));
    XrayAccount x;
    x.completed = doc.value("completed", false) == true;
    if (auto p = doc.find("problem"); p != doc.end() && p->is_string()) x.problem = p->get<std::string>();
    if (x.problem.empty() && !x.completed) x.problem = "xray's results.json says it did not complete";
    const Json plan = doc.value("plan", Json::object());
    for (const char* key : {"load_as_run", "load"})
        if (auto it = plan.find(key); it != plan.end() && it->is_array() && x.load_argv.empty())
            for (const auto& a : *it)
                if (a.is_string()) x.load_argv.push_back(a.get<std::string>());
    return x;
}

// What the load command asked, for the fields its result does not hold.
checks::LoadShape asked_load(const std::vector<std::string>& argv) {
    checks::LoadShape s;
    s.client = xray::load_tool(argv);  // the engines' clients by their result's name, or the tool
    auto number = [&](std::string_view flag) -> std::optional<long long> {
        auto v = xray::flag_value(argv, flag);
        if (!v || v->empty() || v->size() > 18 || !std::all_of(v->begin(), v->end(), ::isdigit)) return std::nullopt;
        return std::stoll(*v);
    };
    s.input_len = number("--random-input-len");
    s.output_len = number("--random-output-len");
    s.concurrency = number("--max-concurrency");
    s.num_prompts = number("--num-prompts");
    if (auto e = xray::flag_value(argv, "--endpoint")) s.endpoint = *e;
    return s;
}

checks::ArmRun failed_run(const fs::path& folder, std::string why) {
    checks::ArmRun r;
    r.label = folder.string();
    r.failure = std::move(why);
    return r;
}

}  // namespace

bool is_run_folder(const fs::path& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return false;
    if (fs::is_regular_file(folder / "results.json", ec)) return true;
    RunFiles f = find_run_files(folder);
    return f.boot_log || f.before || f.after || f.series || f.bench;
}

std::vector<fs::path> expand_run_folders(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(fmt::format("{}: no such folder", path.string()));
    if (!fs::is_directory(path, ec))
        throw InputError(fmt::format("{}: not a folder (give a run folder)", path.string()));
    if (is_run_folder(path)) return {path};
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(path, ec))
        if (is_run_folder(e.path())) runs.push_back(e.path());
    std::sort(runs.begin(), runs.end());
    if (runs.empty())
        throw InputError(
            fmt::format("{}: not a run folder, and none of its subfolders is one (no results.json, "
                        "boot.log, snapshots, recording or load tool's result)",
                        path.string()));
    return runs;
}

std::optional<checks::ArmRun> read_arm_run(const fs::path& folder, const Engine* named, const AcceptEngine& accept) {
    auto xray = read_xray_account(folder);
    if (xray && !xray->completed) return failed_run(folder, xray->problem);
    if (auto replicas = fleet_replica_folders(folder); !replicas.empty())
        return failed_run(folder, fmt::format("a fleet's run ({} replicas): compare takes one server's runs, such as "
                                              "one replica's folder",
                                              replicas.size()));
    JudgeInput in = folder_input(folder);
    in.named = named;
    in.accept = accept;
    if (!in.files.before || !in.files.after)
        return failed_run(folder, !in.files.before && !in.files.after ? "no before or after snapshot"
                                  : !in.files.before                  ? "no before snapshot"
                                                                      : "no after snapshot");
    const std::vector<std::string> argv = xray ? xray->load_argv : std::vector<std::string>{};
    // A folder from before xray kept a live record: the command line's word on unique
    // prompts from its results.json (else the loader reads the client's line in load.log).
    if (!in.live) in.unique_prompts = xray::load_unique_prompts(argv);
    checks::RunVerdicts verdicts;
    auto loaded = load_judged(in, verdicts);
    if (!loaded) return std::nullopt;
    if (auto mixed = mixed_engines(loaded->engines)) throw InputError(fmt::format("{}: {}", folder.string(), *mixed));
    checks::RunEvidence& ev = loaded->evidence;

    checks::ArmRun r;
    r.label = folder.string();
    r.completed = true;
    r.engine = &ev.engine();
    r.figures = checks::run_figures(ev, verdicts, loaded->series ? &*loaded->series : nullptr);
    r.has_boot = !ev.boots.empty() && ev.boots.front().facts.ready;
    if (r.has_boot) {
        r.config = checks::realized_config(ev.boots.front().facts);
        r.kv_source = "boot log";
    } else if (auto pool = ev.after ? parse::pool_from_metrics(*ev.after) : std::nullopt) {
        // No boot log: the pool, block size and KV dtype /metrics states (C2 weighs them).
        r.config = checks::metrics_config(*pool);
        r.kv_source = pool->source;
    }
    r.load = checks::load_shape(ev.bench ? &*ev.bench : nullptr, asked_load(argv));
    r.verdicts = std::move(verdicts.results);
    r.notes = std::move(loaded->notes);
    return r;
}

std::optional<checks::Arm> read_arm(const std::string& name, const std::vector<std::string>& paths, const Engine* named,
                                    const AcceptEngine& accept) {
    checks::Arm arm;
    arm.name = name;
    for (const auto& p : paths)
        for (const auto& folder : expand_run_folders(p)) {
            auto run = read_arm_run(folder, named, accept);
            if (!run) return std::nullopt;
            arm.runs.push_back(std::move(*run));
        }
    if (arm.runs.empty()) throw InputError(fmt::format("{}: no runs given", name));
    const checks::ArmRun* first = nullptr;
    for (const checks::ArmRun* r : arm.completed()) {
        if (!first)
            first = r;
        else if (r->engine != first->engine)
            throw InputError(fmt::format("{}: {} came from {}, but {} came from {}: an arm is one configuration", name,
                                         first->label, first->engine->name, r->label, r->engine->name));
    }
    return arm;
}

}  // namespace inferlint::run
