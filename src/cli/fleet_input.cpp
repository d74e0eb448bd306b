#include "fleet_input.hpp"

#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/url.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::cli {

void add_fleet_options(CLI::App& app, FleetOptions& o) {
    auto prom = [&app](const char* name, auto& value, const std::string& help) {
        return app.add_option(name, value, "with --prometheus: " + help)->group("Prometheus");
    };
    app.add_option("--prometheus", o.prometheus,
                   "read the run's window from this Prometheus (or Thanos, Mimir, VictoriaMetrics) instead of files: "
                   "every replica --match names, and the fleet")
        ->group("Prometheus");
    prom("--match", o.match, "the label selector, e.g. '{job=\"vllm\",namespace=\"bench\"}'");
    prom("--start", o.start, "the window's start, Unix seconds or RFC 3339");
    prom("--end", o.end, "the window's end, Unix seconds or RFC 3339");
    prom("--run", o.run,
         "take the window from this xray run folder (its before and after snapshots; for a fleet, its replicas' "
         "earliest and latest)");
    prom("--step", o.step, "seconds between the gauges' samples (default: the targets' scrape interval)");
    prom("--timeout", o.timeout_s, "seconds to wait for each answer")->default_val(30)->check(CLI::Range(0.1, 3600.0));
}

void fleet_or_files(const FleetOptions& o, const std::string& command,
                    const std::vector<std::pair<std::string, const std::string*>>& files) {
    if (o.wanted()) {
        for (const auto& [name, value] : files)
            if (!value->empty()) throw InputError(fmt::format("{}: give {} or --prometheus, not both", command, name));
        return;
    }
    for (const auto& [opt, value] :
         {std::pair{"--match", &o.match}, std::pair{"--start", &o.start}, std::pair{"--end", &o.end},
          std::pair{"--run", &o.run}, std::pair{"--step", &o.step}})
        if (!value->empty()) throw InputError(fmt::format("{}: {} goes with --prometheus", command, opt));
    for (const auto& [name, value] : files)
        if (value->empty()) throw InputError(fmt::format("{} is required (see 'inferlint --help')", name));
}

namespace {

run::PromWindow window_of(const FleetOptions& o) {
    run::PromWindow w;
    if (!o.run.empty()) {
        if (!o.start.empty() || !o.end.empty())
            throw InputError("--run takes the window from the run folder: give it or --start and --end, not both");
        // A fleet's run folder: from the earliest replica's before to the latest one's after,
        // over the replicas that have both (one killed mid-run has no after snapshot: its
        // share of the window is what Prometheus kept of it, and its verdicts say so).
        const std::vector<std::filesystem::path> replicas = run::fleet_replica_folders(o.run);
        const std::vector<std::filesystem::path> folders =
            replicas.empty() ? std::vector<std::filesystem::path>{o.run} : replicas;
        w.start = INFINITY;
        w.end = -INFINITY;
        std::string lacking;
        for (const auto& folder : folders) {
            const run::RunFiles files = run::find_run_files(folder);
            if (!files.before || !files.after) {
                if (lacking.empty()) lacking = folder.string();
                continue;
            }
            const Snapshot before = load_snapshot(*files.before), after = load_snapshot(*files.after);
            if (!std::isfinite(before.t_wall) || !std::isfinite(after.t_wall))
                throw InputError(
                    fmt::format("{}: its snapshots carry no clock to take the window from", folder.string()));
            w.start = std::min(w.start, before.t_wall);
            w.end = std::max(w.end, after.t_wall);
        }
        if (!std::isfinite(w.start))
            throw InputError(folders.size() == 1
                                 ? fmt::format("{}: no before and after snapshots to take the window from", lacking)
                                 : fmt::format("{}: no replica has before and after snapshots to take the window from "
                                               "(the first without: {})",
                                               o.run, lacking));
        return w;
    }
    if (o.start.empty() || o.end.empty())
        throw InputError("--prometheus needs the run's window: --start and --end, or --run DIR");
    w.start = util::parse_moment(o.start, "--start");
    w.end = util::parse_moment(o.end, "--end");
    return w;
}

std::optional<double> step_of(const FleetOptions& o) {
    if (o.step.empty()) return std::nullopt;
    char* end = nullptr;
    const double s = std::strtod(o.step.c_str(), &end);
    if (end == o.step.c_str() || *end != '\0' || !std::isfinite(s) || s < 0.001 || s > 86400)
        throw InputError(fmt::format("--step: '{}' is not a number of seconds from 0.001 to 86400", o.step));
    return s;
}

std::vector<CheckResult> pick(const std::vector<CheckResult>& all, const std::vector<TripwireId>& shown,
                              const Common& common) {
    std::vector<CheckResult> out;
    for (const auto& r : all)
        if (shown.empty() || std::find(shown.begin(), shown.end(), r.tripwire) != shown.end()) out.push_back(r);
    return common.selected(std::move(out));
}

std::string seconds_from(double t, double start) { return fmt::format("+{:.1f} s", t - start); }

// "240 samples, no gap" / "gaps +12.0 s to +40.5 s; restarted (2 counter resets)"
std::string replica_words(const run::ReplicaWindow& r, const run::FleetWindow& f) {
    std::string out = fmt::format("{} sample{}", r.series.samples.size(), r.series.samples.size() == 1 ? "" : "s");
    if (r.series.samples.empty()) {
        out += ": none in the window (a gap, not zeros)";
    } else if (r.gaps.empty()) {
        out += ", no gap";
    } else {
        out += ", gap";
        out += r.gaps.size() == 1 ? " " : "s ";
        for (std::size_t i = 0; i < r.gaps.size() && i < 3; ++i)
            out += fmt::format("{}{} to {}", i ? ", " : "", seconds_from(r.gaps[i].first, f.window.start),
                               seconds_from(r.gaps[i].second, f.window.start));
        if (r.gaps.size() > 3) out += fmt::format(" and {} more", r.gaps.size() - 3);
    }
    if (r.resets > 0) out += fmt::format("; restarted ({} counter reset{})", r.resets, r.resets == 1 ? "" : "s");
    if (!r.before) out += "; no snapshot at the start: " + r.before_missing;
    if (!r.after) out += "; no snapshot at the end: " + r.after_missing;
    return out;
}

Json or_reason(const std::optional<Snapshot>& s, const std::string& why) { return s ? Json(nullptr) : Json(why); }

}  // namespace

run::PromSource prom_source_of(const FleetOptions& o) {
    run::PromSource src;
    src.url = o.prometheus;
    src.selector = o.match;
    src.limits.read_s = o.timeout_s;
    src.limits.connect_s = std::min(5.0, o.timeout_s);
    src.limits.total_s = 4 * o.timeout_s;
    src.limits.max_body_bytes = std::size_t{64} << 20;
    return src;
}

std::optional<FleetInput> read_fleet_input(const FleetOptions& o, const Common& common) {
    const run::PromSource src = prom_source_of(o);
    FleetInput in;
    const std::string what = fmt::format("the series {} matches in {}", o.match.empty() ? "{}" : o.match,
                                         util::normalise_base_url(o.prometheus));
    in.window = run::read_fleet_window(src, window_of(o), step_of(o),
                                       [&](const Engine* e) { return !other_engine(common, e, what); });
    if (in.window.refused) return std::nullopt;
    for (const auto& r : in.window.replicas) {
        checks::ReplicaEvidence e;
        e.name = r.name;
        e.resets = r.resets;
        e.evidence.named_engine = common.engine;
        e.evidence.before = r.before;
        e.evidence.after = r.after;
        e.evidence.series = summarize(r.series);
        in.replicas.push_back(std::move(e));
    }
    in.fleet.named_engine = common.engine;
    std::string missing;
    in.fleet.before = run::fleet_snapshot(in.window, false, missing);
    in.fleet.after = run::fleet_snapshot(in.window, true, missing);
    in.fleet_series = run::fleet_sum(in.window);
    in.fleet.series = summarize(in.fleet_series);
    return in;
}

Json fleet_json(const FleetInput& in, const checks::FleetVerdicts& v, const Common& common,
                const std::vector<TripwireId>& shown) {
    const auto& f = in.window;
    Json doc = Json::object();
    doc["schema"] = "inferlint.fleet/1";
    doc["prometheus"] = f.url;
    doc["match"] = f.selector;
    doc["window"] = Json{{"start", f.window.start}, {"end", f.window.end}};
    doc["step_s"] = f.step_s;
    doc["step_from"] = f.step_from;
    doc["engine"] = f.engine ? Json(f.engine->key) : Json(nullptr);
    doc["replica_label"] = f.replica_key;
    Json replicas = Json::array();
    for (std::size_t i = 0; i < f.replicas.size(); ++i) {
        const auto& r = f.replicas[i];
        Json gaps = Json::array();
        for (const auto& [a, b] : r.gaps) gaps.push_back(Json::array({a, b}));
        Json results = Json::array();
        for (const auto& x : pick(v.replicas[i].second.results, shown, common)) results.push_back(x.to_json());
        replicas.push_back(Json{{"replica", r.name},
                                {"samples", r.series.samples.size()},
                                {"gaps", std::move(gaps)},
                                {"resets", r.resets},
                                {"no_snapshot", Json{{"start", or_reason(r.before, r.before_missing)},
                                                     {"end", or_reason(r.after, r.after_missing)}}},
                                {"results", std::move(results)}});
    }
    doc["replicas"] = std::move(replicas);
    Json results = Json::array();
    const auto fleet = pick(v.fleet.results, shown, common);
    for (const auto& x : fleet) results.push_back(x.to_json());
    doc["fleet"] = Json{{"replicas", f.replicas.size()}, {"results", std::move(results)}};
    doc["counts"] = counts_summary(fleet);
    return doc;
}

std::string fleet_source_words(const run::FleetWindow& f) {
    return fmt::format("Prometheus {} {}: {} replica{} by {}, {:.3f} to {:.3f} ({:.1f} s), gauges every {:g} s ({})",
                       f.url, f.selector, f.replicas.size(), f.replicas.size() == 1 ? "" : "s", f.replica_key,
                       f.window.start, f.window.end, f.window.end - f.window.start, f.step_s, f.step_from);
}

int emit_fleet(const FleetInput& in, const checks::FleetVerdicts& v, const Common& common,
               const std::vector<TripwireId>& shown, const std::string& trailer) {
    const auto& f = in.window;
    Shown out;
    out.verdicts.command = common.command;
    out.verdicts.strict = common.strictness();
    out.verdicts.results = pick(v.fleet.results, shown, common);
    out.verdicts.suite_name = fmt::format("inferlint {} fleet", common.command);
    out.text = fleet_source_words(f) + "\n";
    for (std::size_t i = 0; i < f.replicas.size(); ++i) {
        const auto& r = f.replicas[i];
        out.text += fmt::format("-- replica {}: {}\n", r.name, replica_words(r, f));
        report::Verdicts suite;
        suite.command = common.command;
        suite.strict = common.strictness();
        suite.suite_name = fmt::format("inferlint {} replica {}", common.command, r.name);
        suite.results = pick(v.replicas[i].second.results, shown, common);
        for (const auto& x : suite.results) out.text += terminal_line(x) + "\n";
        out.verdicts.suites.push_back(std::move(suite));
    }
    out.text += fmt::format("-- fleet ({} replica{})\n", f.replicas.size(), f.replicas.size() == 1 ? "" : "s");
    for (const auto& x : out.verdicts.results) out.text += terminal_line(x) + "\n";
    out.text += trailer;
    out.json = fleet_json(in, v, common, shown).dump(1, ' ', false, Json::error_handler_t::replace);
    show(out, common);
    return exit_code(out.verdicts.results, common.strictness());
}

}  // namespace inferlint::cli

namespace inferlint::cli {

int run_fleet(const FleetOptions& o, const Common& common, const std::vector<TripwireId>& shown,
              const std::function<void(checks::RunEvidence& fleet)>& add) {
    auto in = read_fleet_input(o, common);
    if (!in) return 2;
    if (add) add(in->fleet);
    const checks::FleetVerdicts v = checks::check_fleet(in->replicas, in->fleet, in->window.step_s);
    return emit_fleet(*in, v, common, shown);
}

}  // namespace inferlint::cli
