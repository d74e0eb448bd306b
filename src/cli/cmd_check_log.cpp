// check-log LOG... [--model-config PATH]: the log-based tripwires. Per log T12/T7, T5, T6
// (and T12 unknown for lines in an unknown format); across several logs T4 and T11; then
// T17 per log and, across several, the configuration each ran.
#include "registry.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/run/loader.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::check_log_cmd {
namespace {

struct Opts {
    std::vector<std::string> logs;
    std::vector<std::string> model_configs;  // one for every log, or one per log
};

// --model-config: one for every log, or one per log in order. Read before the logs, so a
// bad config.json stops the command before any verdict.
std::vector<parse::ModelConfig> read_model_configs(const Opts& o) {
    if (o.model_configs.size() > 1 && o.model_configs.size() != o.logs.size())
        throw InputError(
            fmt::format("--model-config: given {} times for {} logs; give it once for every log, or "
                        "once per log",
                        o.model_configs.size(), o.logs.size()));
    std::vector<parse::ModelConfig> out;
    for (const auto& p : o.model_configs) out.push_back(run::read_model_config(p));
    return out;
}

int run_check_log(const Opts& o, const Common& common) {
    std::vector<std::filesystem::path> paths(o.logs.begin(), o.logs.end());
    std::vector<parse::ModelConfig> configs = read_model_configs(o);
    // One pass over each file in pieces: a long log costs time, not memory.
    auto boots = run::read_boot_starts(paths, common.engine, [&](const Engine* found, const std::string& what) {
        if (other_engine(common, found, what)) return false;
        note_unknown(common, found, what);
        return true;
    });
    if (!boots) return 2;
    for (std::size_t i = 0; i < boots->size() && !configs.empty(); ++i)
        (*boots)[i].model_config = configs[configs.size() == 1 ? 0 : i];
    if (!boots->empty())
        if (auto note = parse::untested_version(boots->front().facts)) std::cerr << "note: " << *note << "\n";
    return emit(checks::check_boots(*boots, checks::UnparsedLines::report), common);
}

const Registrar reg{Command{
    .name = "check-log",
    .group = Group::saved,
    .order = 2,
    .summary = "the log-based tripwires (T4 T5 T6 T7 T11 T12 T17) on boot logs",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("logs", o->logs, "one or more server boot logs")->required();
        app.add_option("--model-config", o->model_configs,
                       "the model's config.json (or its folder), for T17 to name why the KV cache dtype differs; "
                       "once for every log, or once per log")
            ->allow_extra_args(false)
            ->take_all();
        return [o](const Common& common) { return run_check_log(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::check_log_cmd
