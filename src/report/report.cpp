// Building a report: which tripwires the files allow, and what the files say happened.
#include "inferlint/report/report.hpp"

#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/parse/failures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string_view>

namespace inferlint::report {

namespace {

// vLLM's finished_reason label values, in the order the page lists them.
constexpr std::string_view kReasons[] = {"length", "stop", "repetition", "abort", "error"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// Seconds since 2000-01-01 of the first "MM-DD hh:mm:ss" stamp in the line (vLLM and its
// peers stamp month-day and time, no year); nullopt when none or an impossible date.
std::optional<long long> stamp_seconds(std::string_view line) {
    constexpr std::string_view shape = "dd-dd dd:dd:dd";
    if (line.size() < shape.size()) return std::nullopt;
    for (std::size_t i = 0; i + shape.size() <= line.size(); ++i) {
        if (i > 0 && is_word(line[i - 1])) continue;
        bool ok = true;
        for (std::size_t k = 0; k < shape.size() && ok; ++k)
            ok = shape[k] == 'd' ? is_digit(line[i + k]) : line[i + k] == shape[k];
        if (!ok) continue;
        std::size_t end = i + shape.size();
        if (end < line.size() && is_word(line[end])) continue;
        auto two = [&](std::size_t at) { return (line[i + at] - '0') * 10 + (line[i + at + 1] - '0'); };
        int mo = two(0), d = two(3), h = two(6), mi = two(9), se = two(12);
        // 2000 is a leap year, so 02-29 is a date.
        static constexpr int days_in[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (mo < 1 || mo > 12 || d < 1 || d > days_in[mo - 1] || h > 23 || mi > 59 || se > 59) return std::nullopt;
        long long day = d - 1;
        for (int m = 1; m < mo; ++m) day += days_in[m - 1];
        return ((day * 24 + h) * 60 + mi) * 60 + se;
    }
    return std::nullopt;
}

CheckResult prefixed(CheckResult r, const std::string& name) {
    r.message = name + ": " + r.message;
    return r;
}

std::string default_title(const std::vector<std::pair<std::string, parse::BootFacts>>& boots, const Engine& engine) {
    if (!boots.empty()) {
        if (auto v = boots.front().second.version(); v && !v->empty()) return fmt::format("{} {} run", engine.name, *v);
        return fmt::format("{} run", engine.name);
    }
    return "Tripwire report";
}

const Engine& found_engine(const ReportInputs& in, const std::vector<std::pair<std::string, parse::BootFacts>>& boots) {
    std::vector<std::string> names;
    for (const auto* s : {&in.before, &in.after}) {
        if (*s) {
            auto n = (*s)->metrics().names();
            names.insert(names.end(), n.begin(), n.end());
        }
    }
    if (const Engine* e = named_by(names)) return *e;
    if (in.series && in.series->named_engine()) return in.series->engine();
    if (!boots.empty() && boots.front().second.engine) return by_key(*boots.front().second.engine);
    return in.engine ? *in.engine : vllm();
}

std::optional<double> mean_of(const Snapshot& before, const Snapshot& after, const std::string& histogram) {
    if (histogram.empty()) return std::nullopt;
    auto total = counter_delta(before, after, histogram + "_sum");
    auto count = counter_delta(before, after, histogram + "_count");
    if (!total || !count || *count == 0) return std::nullopt;
    return *total / *count;
}

std::optional<long long> as_count(std::optional<double> v) {
    if (!v) return std::nullopt;
    return static_cast<long long>(*v);
}

Summary summarize_run(const std::optional<Snapshot>& before, const std::optional<Snapshot>& after,
                      const std::optional<Series>& s, const Engine& engine) {
    const MetricNames& names = engine.metrics;
    Summary sm;
    if (s && !s->samples.empty()) {
        if (auto peak = s->peak_running()) sm.peak_running = static_cast<long long>(*peak);
        auto it = s->header.find("interval_s");
        if (it != s->header.end() && it->is_number()) sm.interval_s = it->get<double>();
        sm.readings = static_cast<long long>(s->samples.size());
        auto u = s->header.find("url");
        if (u != s->header.end() && u->is_string()) sm.url = u->get<std::string>();
    }
    if (!before || !after) return sm;
    if (!sm.url) sm.url = after->url;
    if (!std::isnan(before->t_wall) && !std::isnan(after->t_wall)) {
        sm.started = before->t_wall;
        sm.ended = after->t_wall;
    }
    try {
        sm.span_s = span_s(*before, *after).seconds;
    } catch (const std::runtime_error&) {
        // no clock (bare Prometheus text), or the clocks disagree: no span
    }
    try {
        if (!names.finished_reason_label.empty()) {
            for (std::string_view reason : kReasons) {
                auto n = counter_delta(*before, *after, names.request_success, "",
                                       {{names.finished_reason_label, std::string(reason)}});
                if (n) sm.finished.emplace_back(std::string(reason), static_cast<long long>(*n));
            }
        } else {
            sm.finished_total = as_count(counter_delta(*before, *after, names.request_success));
        }
        sm.output_tokens = as_count(counter_delta(*before, *after, names.generation_tokens));
        sm.prompt_tokens = as_count(counter_delta(*before, *after, names.prompt_tokens));
        if (!names.preemptions.empty())
            sm.preemptions = as_count(
                counter_delta(*before, *after, names.preemptions, engine.witness(names.preemptions)));
        sm.mean_latency_s = mean_of(*before, *after, names.e2e_latency);
        sm.mean_first_token_s = mean_of(*before, *after, names.first_token);
        sm.mean_queue_s = mean_of(*before, *after, names.queue_time);
    } catch (const ServerRestarted&) {
        Summary kept;
        kept.peak_running = sm.peak_running;
        kept.interval_s = sm.interval_s;
        kept.readings = sm.readings;
        kept.url = sm.url;
        kept.restarted = true;
        return kept;
    }
    return sm;
}

std::string local_now() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char buf[64];
    std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M %Z", &tm);
    std::string out(buf, n);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace

std::optional<long long> Summary::done() const {
    if (!finished.empty()) {
        long long n = 0;
        for (const auto& [_, k] : finished) n += k;
        return n;
    }
    return finished_total;
}

long long Summary::finished_with(const std::string& reason) const {
    for (const auto& [r, n] : finished)
        if (r == reason) return n;
    return 0;
}

const CheckResult* Report::result(std::string_view tripwire) const {
    for (const auto& r : results)
        if (r.tripwire == tripwire) return &r;
    return nullptr;
}

void StampTrail::line(std::string_view line, long long lineno) {
    // A stamp sits near the start of a line; a very long line is not searched whole.
    auto t = stamp_seconds(line.substr(0, 512));
    if (t && (changes_.empty() || changes_.back().second != *t)) changes_.emplace_back(lineno, *t);
}

std::optional<double> StampTrail::boot_seconds(std::optional<long long> ready_lineno) const {
    if (!ready_lineno || changes_.empty() || changes_.front().first > *ready_lineno) return std::nullopt;
    // The last change at or before the ready line holds the stamp that line ran under.
    auto after = std::upper_bound(changes_.begin(), changes_.end(), *ready_lineno,
                                  [](long long n, const auto& change) { return n < change.first; });
    long long first = changes_.front().second, last = std::prev(after)->second;
    if (last < first) return std::nullopt;  // a boot across New Year: not guessed
    return static_cast<double>(last - first);
}

std::vector<CheckResult> run_checks(const std::optional<Snapshot>& before, const std::optional<Snapshot>& after,
                                    const std::optional<Series>& series, std::optional<long long> requested,
                                    const parse::BootFacts* facts) {
    std::vector<CheckResult> results;
    std::optional<SeriesSummary> summary;
    if (series) summary = summarize(*series);
    if (before && after) {
        checks::PauseEvidence pauses;
        if (summary) {
            pauses.paused_readings = summary->stats.paused_readings;
            pauses.paused_nonzero = summary->stats.paused_nonzero;
            pauses.paused_max = summary->stats.paused_max.value_or(0.0);
        }
        if (facts) {
            pauses.have_log = true;
            pauses.logged_pauses = facts->pauses;
            pauses.served_in_log = facts->served_in_log;
            if (facts->server_args && facts->server_args->is_object()) {
                auto it = facts->server_args->find("capacity_scheduler_policy");
                if (it != facts->server_args->end() && it->is_string())
                    pauses.scheduler_policy = it->get<std::string>();
            }
        }
        results.push_back(checks::check_no_preemption(*before, *after, pauses));
        results.push_back(checks::precise_rate(*before, *after));
    }
    if (!summary) return results;
    std::optional<long long> usable;
    const Engine& engine = summary->engine();
    if (auto na = checks::does_not_apply("T14", engine)) {
        results.push_back(std::move(*na));
    } else if (after && !checks::engine_of({&*after}).metrics.cache_info.empty()) {
        CheckResult t14 = checks::check_null_block(summary->stats, *after);
        auto it = t14.evidence.find("inferred_usable_blocks");
        if (t14.status == Status::pass && it != t14.evidence.end() && it->is_number_integer())
            usable = it->get<long long>();
        results.push_back(std::move(t14));
    }
    results.push_back(checks::concurrency_ceiling(summary->stats, engine, usable));
    if (requested && *requested != 0)
        results.push_back(checks::check_concurrency_reached(summary->stats, engine, *requested, facts));
    return results;
}

Report build_report(ReportInputs in) {
    Report rep;
    std::optional<double> boot_s;
    std::vector<std::filesystem::path> paths = in.boot_logs;
    std::vector<std::string> labels = parse::log_labels(paths);
    const bool many = paths.size() > 1;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        // Read in pieces: a log of any length costs the memory of its longest line.
        const bool first = rep.boots.empty();
        StampTrail trail;
        auto scan = parse::scan_boot_log_file(paths[i], in.engine, {}, [&](std::string_view line, long long n) {
            if (first) trail.line(line, n);
        });
        parse::BootFacts facts = std::move(scan->facts);
        if (first) {
            boot_s = trail.boot_seconds(facts.ready_lineno);
            if (!facts.vllm_version && in.server_version) facts.server_version = in.server_version;
        }
        for (CheckResult r : {checks::check_boot_failure(scan->failure), checks::check_block_size(facts),
                              checks::check_backend_honoured(facts)})
            rep.results.push_back(many ? prefixed(std::move(r), labels[i]) : std::move(r));
        rep.boots.emplace_back(labels[i], std::move(facts));
    }
    if (many) {
        std::vector<parse::BootFacts> all;
        for (const auto& [_, f] : rep.boots) all.push_back(f);
        for (auto& r : checks::check_same_pool(all, labels)) rep.results.push_back(std::move(r));
        for (auto& r : checks::check_kv_memory_stable(all, labels)) rep.results.push_back(std::move(r));
    }
    // The last result per tripwire (the teardown's T2, not the start-of-run gate's), in the
    // order each tripwire first appeared; none the files already gave.
    std::vector<std::string> order;
    for (const auto& r : in.extra)
        if (std::find(order.begin(), order.end(), r.tripwire) == order.end()) order.push_back(r.tripwire);
    for (const auto& t : order) {
        if (rep.result(t)) continue;
        const CheckResult* last = nullptr;
        for (const auto& r : in.extra)
            if (r.tripwire == t) last = &r;
        rep.results.push_back(*last);
    }
    const parse::BootFacts* first_facts = rep.boots.empty() ? nullptr : &rep.boots.front().second;
    for (auto& r : run_checks(in.before, in.after, in.series, in.requested, first_facts))
        rep.results.push_back(std::move(r));

    if (const CheckResult* t14 = rep.result("T14"); t14 && t14->status == Status::pass) {
        auto it = t14->evidence.find("inferred_usable_blocks");
        if (it != t14->evidence.end() && it->is_number_integer()) rep.usable_blocks = it->get<long long>();
    }
    const Engine& engine = found_engine(in, rep.boots);
    rep.engine = &engine;
    rep.summary = summarize_run(in.before, in.after, in.series, engine);
    rep.summary.boot_s = boot_s;
    rep.title = in.title && !in.title->empty() ? *in.title : default_title(rep.boots, engine);
    rep.generated = local_now();
    rep.requested = in.requested;
    rep.sources = std::move(in.sources);
    rep.before = std::move(in.before);
    rep.after = std::move(in.after);
    rep.series = std::move(in.series);
    rep.bench = std::move(in.bench);
    return rep;
}

}  // namespace inferlint::report
