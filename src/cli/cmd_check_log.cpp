// check-log LOG...: the log-based tripwires. Per log T12/T7, T5, T6 (and T12 unknown for
// lines in an unknown format); across several logs T4 and T11.
#include "registry.hpp"

#include "inferlint/checks/suite.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/run/loader.hpp"

#include <iostream>

namespace inferlint::cli::check_log_cmd {
namespace {

struct Opts {
    std::vector<std::string> logs;
};

int run_check_log(const Opts& o, const Common& common) {
    std::vector<std::filesystem::path> paths(o.logs.begin(), o.logs.end());
    // One pass over each file in pieces: a long log costs time, not memory.
    auto boots = run::read_boot_starts(paths, common.engine, [&](const Engine* found, const std::string& what) {
        if (other_engine(common, found, what)) return false;
        note_unknown(common, found, what);
        return true;
    });
    if (!boots) return 2;
    if (!boots->empty())
        if (auto note = parse::untested_version(boots->front().facts)) std::cerr << "note: " << *note << "\n";
    return emit(checks::check_boots(*boots, checks::UnparsedLines::report), common);
}

const Registrar reg{Command{
    .name = "check-log",
    .group = Group::saved,
    .order = 2,
    .summary = "the log-based tripwires (T4 T5 T6 T7 T11 T12) on boot logs",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("logs", o->logs, "one or more server boot logs")->required();
        return [o](const Common& common) { return run_check_log(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::check_log_cmd
