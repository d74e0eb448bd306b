#include "inferlint/run/loader.hpp"

#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/gpu_record.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/parse/log_stamps.hpp"
#include "inferlint/parse/series_digest.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

namespace inferlint::run {

std::optional<checks::BootStart> read_boot_start(const fs::path& path, std::string label, const Engine* named,
                                                 const AcceptEngine& accept, std::optional<double>* boot_s) {
    parse::StampTrail trail;
    std::function<bool(const Engine*)> ask;
    if (accept) ask = [&](const Engine* found) { return accept(found, path.string()); };
    std::function<void(std::string_view, long long)> each_line;
    if (boot_s) each_line = [&](std::string_view line, long long n) { trail.line(line, n); };
    // Read in pieces: a log of any length costs the memory of its longest line.
    auto scan = parse::scan_boot_log_file(path, named, ask, each_line);
    if (!scan) return std::nullopt;
    if (boot_s) *boot_s = trail.boot_seconds(scan->facts.ready_lineno);
    auto config = model_config_named_in(scan->facts);
    return checks::BootStart{std::move(label), std::move(scan->facts), std::move(scan->failure), std::move(config)};
}

namespace {

// A config.json is small; anything past this is not one.
constexpr std::size_t kModelConfigBytes = std::size_t{16} << 20;

fs::path config_json_of(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec) ? path / "config.json" : path;
}

}  // namespace

parse::ModelConfig read_model_config(const fs::path& path) {
    fs::path file = config_json_of(path);
    parse::ModelConfig config =
        parse::parse_model_config(util::read_file(file, util::AllowEmpty::no, kModelConfigBytes), file.string());
    if (config.problem) throw InputError(fmt::format("{}: {}", file.string(), *config.problem));
    return config;
}

std::optional<parse::ModelConfig> model_config_named_in(const parse::BootFacts& facts) {
    const std::optional<Json>& args = facts.non_default_args ? facts.non_default_args : facts.server_args;
    if (!args || !args->is_object()) return std::nullopt;
    for (const char* key : {"model", "model_path"}) {
        auto it = args->find(key);
        if (it == args->end() || !it->is_string()) continue;
        fs::path file = fs::path(it->get<std::string>()) / "config.json";
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) continue;
        try {
            return parse::parse_model_config(util::read_file(file, util::AllowEmpty::no, kModelConfigBytes),
                                             file.string());
        } catch (const InputError& e) {
            parse::ModelConfig unreadable;
            unreadable.path = file.string();
            unreadable.problem = e.what();
            return unreadable;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<checks::BootStart>> read_boot_starts(const std::vector<fs::path>& paths, const Engine* named,
                                                               const AcceptEngine& accept) {
    std::vector<std::string> labels = parse::log_labels(paths);
    std::vector<checks::BootStart> starts;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        auto start = read_boot_start(paths[i], labels[i], named, accept);
        if (!start) return std::nullopt;
        starts.push_back(std::move(*start));
    }
    return starts;
}

std::optional<std::string> mixed_engines(const std::vector<std::pair<const Engine*, std::string>>& engines) {
    const std::pair<const Engine*, std::string>* first = nullptr;
    for (const auto& e : engines) {
        if (!e.first) continue;
        if (!first)
            first = &e;
        else if (e.first != first->first)
            return fmt::format("{} came from {}, but {} came from {}: the files are from different runs", first->second,
                               first->first->name, e.second, e.first->name);
    }
    return std::nullopt;
}

std::optional<LoadedRun> load_run(const RunFileSet& files, const Engine* named, const AcceptEngine& accept) {
    LoadedRun run;
    checks::RunEvidence& ev = run.evidence;
    ev.named_engine = named;
    auto said = [&](const Engine* found, const std::string& what) {
        run.engines.emplace_back(found, what);
        return !accept || accept(found, what);
    };
    for (auto [path, snap] : {std::pair{&files.before, &ev.before}, std::pair{&files.after, &ev.after}}) {
        if (!*path) continue;
        *snap = load_snapshot(**path);
        if (!said(snapshot_engine({&**snap}), (*snap)->source.empty() ? "a snapshot" : (*snap)->source))
            return std::nullopt;
    }
    if (files.series) {
        // One pass: the checks' summary, and the recording (or, when long, its digest) for the charts.
        ChartSeries read = read_series_for_charts(*files.series, kChartExactLimit, kChartDigestColumns);
        run.series = std::move(read.series);
        if (!said(run.series->named_engine(), files.series->string())) return std::nullopt;
        ev.series = std::move(read.summary);
        if (const long long n = run.series->skipped_lines; n > 0)
            run.notes.push_back(fmt::format("note: {}: skipped {} line{} that {} not JSON", files.series->string(), n,
                                            n == 1 ? "" : "s", n == 1 ? "is" : "are"));
    }
    for (const auto& log : files.boot_logs) {
        // The engine, from the log's head: the walk stops there.
        const Engine* engine = nullptr;
        parse::scan_boot_log_file(log, nullptr, [&](const Engine* e) {
            engine = e;
            return false;
        });
        if (!said(engine, log.string())) return std::nullopt;
    }
    if (files.bench) ev.bench = load_bench_result(*files.bench);
    // T21 lines each reading of the running gauge up with the client's streams: a second
    // pass, only when the load tool's result has per-request times to line them up with.
    if (files.series && ev.bench && ev.bench->load && checks::client_streams(*ev.bench->load).streamed > 0)
        scan_series(*files.series, [&](const SeriesSample& s) {
            if (!s.running) return;
            std::optional<double> mono;
            if (s.t_mono_ns) mono = static_cast<double>(*s.t_mono_ns) / 1e9;
            ev.running.push_back({s.t_wall, mono, *s.running});
        });
    if (ev.bench && ev.before && ev.after && files.load_log) ev.untimed_requests = untimed_requests_in(*files.load_log);
    // The load's arguments as its client printed them: a random dataset meant unique prompts (T16).
    if (files.load_log) ev.unique_prompts = unique_prompts_in(*files.load_log);
    // Else the load tool's own result, where it says its prompts were meant to be unique.
    if (!ev.unique_prompts && ev.bench && ev.bench->load && ev.bench->load->prompts == PromptSharing::unique)
        ev.unique_prompts = "the load tool's result says its prompts were unique";
    if (files.gpu) {
        ev.gpu = parse::parse_gpu_recording(util::read_file(*files.gpu, util::AllowEmpty::yes));
        if (!ev.gpu)
            throw InputError(fmt::format("{}: not a GPU recording (no inferlint.gpu/1 header)", files.gpu->string()));
        if (const long long n = ev.gpu->skipped_lines; n > 0)
            run.notes.push_back(fmt::format("note: {}: skipped {} line{} that {} not a reading", files.gpu->string(), n,
                                            n == 1 ? "" : "s", n == 1 ? "is" : "are"));
    }

    std::vector<std::string> labels = parse::log_labels(files.boot_logs);
    for (std::size_t i = 0; i < files.boot_logs.size(); ++i) {
        std::optional<double>* boot_s = i == 0 ? &run.boot_s : nullptr;
        auto start = read_boot_start(files.boot_logs[i], labels[i], named, {}, boot_s);
        ev.boots.push_back(std::move(*start));
    }
    return run;
}

}  // namespace inferlint::run
