// xray's verdicts on one server: made once from the run folder and the live record, by the
// code `inferlint report DIR` runs (run::load_judged); said, kept, and drawn.
#include "inferlint/report/report.hpp"
#include "inferlint/run/gpu_record.hpp"
#include "inferlint/run/judge.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "xray_stages.hpp"

#include <algorithm>

namespace inferlint::xray::detail {

namespace {

bool listed(const Slot& s, const std::string& name) {
    return std::find(s.files.begin(), s.files.end(), s.prefix + name) != s.files.end();
}

}  // namespace

run::RunFileSet Pipeline::folder_files() const {
    const Slot& s = slots_.front();
    run::RunFileSet files;
    std::error_code ec;
    if (s.boot_log) files.boot_logs.push_back(*s.boot_log);
    if (listed(s, "before.snapshot.json")) files.before = s.dir / "before.snapshot.json";
    if (listed(s, "after.snapshot.json")) files.after = s.dir / "after.snapshot.json";
    if (fs::is_regular_file(s.dir / "run.series.jsonl", ec)) files.series = s.dir / "run.series.jsonl";
    if (live_.bench_result) files.bench = plan_.out / *live_.bench_result;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) files.load_log = plan_.out / "load.log";
    files.gpu = run::gpu_recording_in(plan_.out);
    return files;
}

// The run's verdicts, made once from its folder and live record, as `inferlint report DIR`
// makes them; said, kept for results.json, and the page written from them.
void Pipeline::judge() {
    run::write_live_record(plan_.out, live_);
    run::JudgeInput in{.files = folder_files(), .named = engine_, .accept = {}, .live = live_};
    checks::RunVerdicts verdicts;
    std::optional<run::LoadedRun> loaded;
    try {
        loaded = run::load_judged(in, verdicts);
    } catch (const InputError& e) {
        // A file of the run that cannot be read again (a log emptied since, a cut snapshot):
        // said, and only the live verdicts given.
        note(fmt::format("inferlint: the run's files cannot be read: {}", e.what()));
    }
    if (!loaded) loaded = run::load_judged({.named = engine_, .live = live_}, verdicts);
    verdicts.results = selected(verdicts.results);
    o_.results = verdicts.results;
    stage(Stage::report);
    const Slot& s = slots_.front();
    std::vector<std::string> sources = s.files;
    sources.insert(sources.end(), sources_.begin(), sources_.end());
    report::PageInfo page{plan_.title, util::local_time_text(), std::move(sources), plan_.only};
    report::Report rep = report::build_report(std::move(loaded->evidence), std::move(verdicts),
                                              std::move(loaded->series), loaded->boot_s, std::move(page));
    say("== verdicts (as `inferlint report` gives them from the run folder)");
    for (const auto& r : rep.results) say(terminal_line(r));
    if (s.boot_log || (listed(s, "before.snapshot.json") && listed(s, "after.snapshot.json"))) show_and_write(rep);
}

void Pipeline::finish() {
    if (!o_.problem.empty()) say(o_.problem);
    try {
        if (!fleet_) {
            judge();
        } else if (recorded_) {
            judge_fleet();
        } else {
            stopped_early();
        }
    } catch (const util::WriteError& e) {  // a full disk: said once, at the end
        if (o_.write_error.empty()) o_.write_error = e.what();
    } catch (const std::exception& e) {
        if (!fleet_) {
            note(fmt::format("inferlint: no report: {}", e.what()));
        } else {
            note(fmt::format("inferlint: the fleet could not be checked: {}", e.what()));
            stopped_early();
        }
    }
    list_files();
}

void Pipeline::show_and_write(const report::Report& rep) {
    o_.limits = report::limits(rep);
    if (!o_.limits.empty()) {
        say("== what limited this run");
        for (const auto& i : o_.limits) say(fmt::format("- {}. {}", i.title, i.text));
    }
    const fs::path html = plan_.out / "report.html";
    try {
        util::write_file(html, report::render_report_html(rep));
        o_.report = html;
    } catch (const util::WriteError& e) {  // a full disk: said once, at the end
        if (o_.write_error.empty()) o_.write_error = e.what();
    }
}

// The files the run wrote, for results.json: each server's, the run folder's own, then
// what comes last.
void Pipeline::list_files() {
    o_.files.clear();
    for (const auto& s : slots_) o_.files.insert(o_.files.end(), s.files.begin(), s.files.end());
    o_.files.insert(o_.files.end(), sources_.begin(), sources_.end());
    std::error_code ec;
    if (fs::is_regular_file(plan_.out / "load.log", ec)) o_.files.push_back("load.log");
    if (o_.report) o_.files.push_back("report.html");
    o_.files.push_back("results.json");
    o_.files.insert(o_.files.end(), plan_.later_files.begin(), plan_.later_files.end());
}

}  // namespace inferlint::xray::detail
