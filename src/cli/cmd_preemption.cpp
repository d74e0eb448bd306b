#include "registry.hpp"
#include "snapshots_input.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"

namespace inferlint::cli::preemption_cmd {
namespace {

struct Opts {
    std::string before, after, series, boot_log;
};

int run_preemption(const Opts& o, const Common& common) {
    auto snaps = load_snapshots(common, o.before, o.after);
    if (!snaps) return 2;
    checks::PauseEvidence pauses;
    if (!o.series.empty()) {
        SeriesSummary s = summarize_series_file(o.series);
        if (other_engine(common, s.named_engine(), o.series)) return 2;
        pauses.paused_readings = s.stats.paused_readings;
        pauses.paused_nonzero = s.stats.paused_nonzero;
        pauses.paused_max = s.stats.paused_max.value_or(0.0);
    }
    if (!o.boot_log.empty()) {
        parse::BootFacts facts = parse::parse_boot_log_file(o.boot_log, common.engine);
        if (facts.engine && other_engine(common, &by_key(*facts.engine), o.boot_log)) return 2;
        pauses.have_log = true;
        pauses.logged_pauses = facts.pauses;
        pauses.served_in_log = facts.served_in_log;
        if (facts.server_args && facts.server_args->is_object()) {
            auto it = facts.server_args->find("capacity_scheduler_policy");
            if (it != facts.server_args->end() && it->is_string()) pauses.scheduler_policy = it->get<std::string>();
        }
    }
    return emit({checks::check_no_preemption(snaps->first, snaps->second, pauses)}, common);
}

const Registrar reg{Command{
    .name = "preemption",
    .group = Group::saved,
    .order = 4,
    .summary = "T1: did the server preempt between two snapshots?",
    .takes_engine = TakesEngine::yes,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("before", o->before, "snapshot taken before the run")->required();
        app.add_option("after", o->after, "snapshot taken after the run")->required();
        app.add_option("--series", o->series, "recording of the run, for engines that count no preemptions");
        app.add_option("--boot-log", o->boot_log,
                       "the server's log, saved until after the run: TensorRT-LLM logs each pause there");
        return [o](const Common& common) { return run_preemption(*o, common); };
    }}};

}  // namespace
}  // namespace inferlint::cli::preemption_cmd
