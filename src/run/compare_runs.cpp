#include "inferlint/run/compare_runs.hpp"

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
        throw InputError(fmt::format("{}: not xray's results (expected a {} document)", file.string(), xray::kResultsSchema));
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

std::optional<std::string> client_of(const std::vector<std::string>& argv) {
    auto c = xray::load_client(argv);
    if (!c) return std::nullopt;
    switch (*c) {
        case EngineId::vllm: return "vllm bench serve";
        case EngineId::sglang: return "sglang bench_serving";
        case EngineId::trtllm: return "tensorrt_llm benchmark_serving";
    }
    return std::nullopt;
}

// What the load command asked, for the fields its result does not hold.
checks::LoadShape asked_load(const std::vector<std::string>& argv) {
    checks::LoadShape s;
    s.client = client_of(argv);
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

void refuse_mixed_engines(const fs::path& folder, const LoadedRun& loaded) {
    const std::pair<const Engine*, std::string>* first = nullptr;
    for (const auto& e : loaded.engines) {
        if (!e.first) continue;
        if (!first) first = &e;
        else if (e.first != first->first)
            throw InputError(fmt::format("{}: {} came from {}, but {} came from {}: the files are from different runs",
                                         folder.string(), first->second, first->first->name, e.second, e.first->name));
    }
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
    if (!fs::is_directory(path, ec)) throw InputError(fmt::format("{}: not a folder (give a run folder)", path.string()));
    if (is_run_folder(path)) return {path};
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(path, ec))
        if (is_run_folder(e.path())) runs.push_back(e.path());
    std::sort(runs.begin(), runs.end());
    if (runs.empty())
        throw InputError(fmt::format("{}: not a run folder, and none of its subfolders is one (no results.json, "
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
    RunFiles found = find_run_files(folder);
    if (!found.before || !found.after)
        return failed_run(folder, !found.before && !found.after ? "no before or after snapshot"
                                  : !found.before              ? "no before snapshot"
                                                               : "no after snapshot");
    RunFileSet files;
    if (found.boot_log) files.boot_logs.push_back(*found.boot_log);
    files.before = found.before;
    files.after = found.after;
    files.series = found.series;
    files.bench = found.bench;
    files.load_log = found.load_log;
    files.gpu = found.gpu;
    auto loaded = load_run(files, named, accept);
    if (!loaded) return std::nullopt;
    refuse_mixed_engines(folder, *loaded);
    checks::RunEvidence& ev = loaded->evidence;
    const std::vector<std::string> argv = xray ? xray->load_argv : std::vector<std::string>{};
    if (ev.bench && ev.bench->max_concurrency) ev.requested = checks::Requested::of(*ev.bench->max_concurrency);
    // The command line's word first (xray's account); else what the loader read from the
    // client's own Namespace line in load.log.
    if (auto unique = xray::load_unique_prompts(argv)) ev.unique_prompts = unique;
    checks::RunVerdicts verdicts = checks::check_run(ev);

    checks::ArmRun r;
    r.label = folder.string();
    r.completed = true;
    r.engine = &ev.engine();
    r.figures = checks::run_figures(ev, verdicts, loaded->series ? &*loaded->series : nullptr);
    r.has_boot = !ev.boots.empty() && ev.boots.front().facts.ready;
    if (r.has_boot) r.config = checks::realized_config(ev.boots.front().facts);
    r.load = checks::load_shape(ev.bench ? &*ev.bench : nullptr, asked_load(argv));
    r.verdicts = std::move(verdicts.results);
    r.notes = std::move(loaded->notes);
    return r;
}

std::optional<checks::Arm> read_arm(const std::string& name, const std::vector<std::string>& paths,
                                    const Engine* named, const AcceptEngine& accept) {
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
        if (!first) first = r;
        else if (r->engine != first->engine)
            throw InputError(fmt::format("{}: {} came from {}, but {} came from {}: an arm is one configuration",
                                         name, first->label, first->engine->name, r->label, r->engine->name));
    }
    return arm;
}

}  // namespace inferlint::run
