// check-log LOG...: the log-based tripwires. Per log T12/T7, T5, T6 (and T12 unknown for
// lines in an unknown format); across several logs T4 and T11.
#include "registry.hpp"

#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::check_log_cmd {
namespace {

struct Opts {
    std::vector<std::string> logs;
};

int run_check_log(const Opts& o, const Common& common) {
    std::vector<std::filesystem::path> paths(o.logs.begin(), o.logs.end());
    std::vector<std::string> names = parse::log_labels(paths);
    std::vector<parse::BootFacts> all;
    std::vector<CheckResult> results;
    bool several = o.logs.size() > 1;
    for (std::size_t i = 0; i < o.logs.size(); ++i) {
        // One pass over the file in pieces: a long log costs time, not memory.
        auto scan = parse::scan_boot_log_file(o.logs[i], common.engine, [&](const Engine* found) {
            if (other_engine(common, found, o.logs[i])) return false;
            note_unknown(common, found, o.logs[i]);
            return true;
        });
        if (!scan) return 2;
        parse::BootFacts& facts = scan->facts;
        if (all.empty())
            if (auto note = parse::untested_version(facts)) std::cerr << "note: " << *note << "\n";
        std::vector<CheckResult> per{checks::check_boot_failure(scan->failure), checks::check_block_size(facts),
                                     checks::check_backend_honoured(facts)};
        if (auto u = checks::check_unparsed(facts)) per.push_back(std::move(*u));
        for (auto& r : per) {
            if (several) r.message = names[i] + ": " + r.message;
            results.push_back(std::move(r));
        }
        all.push_back(std::move(facts));
    }
    if (several) {
        for (auto& r : checks::check_same_pool(all, names)) results.push_back(std::move(r));
        for (auto& r : checks::check_kv_memory_stable(all, names)) results.push_back(std::move(r));
    }
    return emit(results, common);
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
