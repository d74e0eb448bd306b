// The suite: which tripwires a run's evidence allows, in the order the commands print
// them, each computed once.
#include "inferlint/checks/suite.hpp"

#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/checks/t16_prefix_cache.hpp"
#include "inferlint/checks/t17_realized_config.hpp"
#include "inferlint/checks/t18_chunks_not_tokens.hpp"
#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"
#include "inferlint/checks/t21_streams_vs_running.hpp"
#include "inferlint/checks/t22_known_engine_bug.hpp"
#include "inferlint/parse/metrics_pool.hpp"

#include <algorithm>

namespace inferlint::checks {

const Engine& RunEvidence::engine() const {
    std::vector<const Snapshot*> snaps;
    for (const auto* s : {&before, &after})
        if (*s) snaps.push_back(&**s);
    if (const Engine* e = snapshot_engine(snaps)) return *e;
    if (series && series->named_engine()) return series->engine();
    if (!boots.empty() && boots.front().facts.engine) return by_key(*boots.front().facts.engine);
    return named_engine ? *named_engine : vllm();
}

const Engine& RunEvidence::series_engine() const {
    if (series && series->named_engine()) return *series->named_engine();
    return named_engine ? *named_engine : vllm();
}

const parse::BootFacts* RunEvidence::first_facts() const { return boots.empty() ? nullptr : &boots.front().facts; }

const CheckResult* RunVerdicts::result(TripwireId tripwire) const {
    for (const auto& r : results)
        if (r.tripwire == tripwire) return &r;
    return nullptr;
}

std::vector<CheckResult> RunVerdicts::only(std::initializer_list<TripwireId> tripwires) const {
    return only(std::vector<TripwireId>(tripwires));
}

std::vector<CheckResult> RunVerdicts::only(const std::vector<TripwireId>& tripwires) const {
    std::vector<CheckResult> out;
    for (const auto& r : results)
        if (std::find(tripwires.begin(), tripwires.end(), r.tripwire) != tripwires.end()) out.push_back(r);
    return out;
}

std::vector<CheckResult> check_boots(const std::vector<BootStart>& boots, UnparsedLines unparsed) {
    std::vector<CheckResult> results;
    const bool several = boots.size() > 1;
    for (const auto& b : boots) {
        std::vector<CheckResult> per{check_boot_failure(b.failure), check_block_size(b.facts),
                                     check_backend_honoured(b.facts)};
        if (unparsed == UnparsedLines::report)
            if (auto u = check_unparsed(b.facts)) per.push_back(std::move(*u));
        for (auto& r : per) {
            if (several) r.message = b.label + ": " + r.message;
            results.push_back(std::move(r));
        }
    }
    if (several) {
        std::vector<parse::BootFacts> facts;
        std::vector<std::string> labels;
        for (const auto& b : boots) {
            facts.push_back(b.facts);
            labels.push_back(b.label);
        }
        for (auto& r : check_same_pool(facts, labels)) results.push_back(std::move(r));
        for (auto& r : check_kv_memory_stable(facts, labels)) results.push_back(std::move(r));
    }
    // Beyond the Python tool, after its verdicts so T1-T15 keep their order: T22 per start,
    // then T17 (which ends the list with its configuration diff across starts).
    for (const auto& b : boots) {
        CheckResult r = check_known_engine_bug(b.facts);
        if (several) r.message = b.label + ": " + r.message;
        results.push_back(std::move(r));
    }
    for (const auto& b : boots) {
        CheckResult r = check_kv_dtype_as_asked(b.facts, b.model_config ? &*b.model_config : nullptr);
        if (several) r.message = b.label + ": " + r.message;
        results.push_back(std::move(r));
    }
    if (several) {
        std::vector<const parse::BootFacts*> facts;
        std::vector<std::string> labels;
        for (const auto& b : boots) {
            facts.push_back(&b.facts);
            labels.push_back(b.label);
        }
        results.push_back(check_realized_config(facts, labels));
    }
    return results;
}

PauseEvidence pause_evidence(const SeriesSummary* series, const parse::BootFacts* facts) {
    PauseEvidence pauses;
    if (series) {
        pauses.paused_readings = series->stats.paused_readings;
        pauses.paused_nonzero = series->stats.paused_nonzero;
        pauses.paused_max = series->stats.paused_max.value_or(0.0);
    }
    if (facts) {
        pauses.have_log = true;
        pauses.logged_pauses = facts->pauses;
        pauses.served_in_log = facts->served_in_log;
        pauses.scheduler_policy = facts->asked.scheduler_policy;
        pauses.stats_lines = facts->realized.stats_lines;
        pauses.logged_preemptions = facts->realized.logged_preemptions;
        pauses.engine_version = facts->version();
        pauses.debug_lines = facts->realized.trt_debug_lines;
    }
    return pauses;
}

namespace {

const LoadResult* load_of(const RunEvidence& ev) { return ev.bench && ev.bench->load ? &*ev.bench->load : nullptr; }

// T14, T9 and T8, in that order, when there is a recording.
void check_recording(const RunEvidence& ev, RunVerdicts& out) {
    if (!ev.series) return;
    const SeriesSummary* series = &*ev.series;
    const Engine& engine = ev.series_engine();
    if (auto na = does_not_apply(TripwireId::T14, engine)) {
        out.results.push_back(std::move(*na));
    } else if (ev.after && !engine_of({&*ev.after}).metrics.cache_info.empty()) {
        NullBlockFinding t14 = null_block(series->stats, *ev.after);
        out.usable_blocks = t14.usable_blocks;
        out.measured.reported_blocks = t14.reported_blocks;
        out.measured.inferred_blocks = t14.inferred_blocks;
        out.results.push_back(std::move(t14.result));
    }
    // TensorRT-LLM's utilization gauge counts used of trtllm_kv_cache_max_blocks
    // (tensorrt_llm/metrics/collector.py log_iteration_stats @050f80de), so those are T9's
    // whole blocks. Only where no boot log is given (a fleet from Prometheus, snapshots
    // alone): with one, T9 stays the reference's.
    std::optional<parse::MetricsPool> pool;
    if (!out.usable_blocks && ev.boots.empty() && ev.after && engine.metrics.cache_info.empty())
        pool = parse::pool_from_metrics(*ev.after);
    if (pool && pool->blocks && *pool->blocks > 0) {
        CheckResult t9 = concurrency_ceiling(series->stats, engine, pool->blocks);
        if (t9.status != Status::unknown) {
            t9.evidence["pool_source"] = "metrics";
            t9.evidence["pool_series"] = pool->source;
        }
        out.results.push_back(std::move(t9));
    } else {
        out.results.push_back(concurrency_ceiling(series->stats, engine, out.usable_blocks));
    }
    if (series->stats.samples > 0) out.measured.peak_running = series->stats.peak_running;
    // Where the gauge lags (TensorRT-LLM), the client's streaming peak is T8's second witness.
    const std::optional<long long> streams = engine.gauges_lag ? client_streaming_peak(load_of(ev)) : std::nullopt;
    if (ev.requested)
        out.results.push_back(
            check_concurrency_reached(series->stats, engine, ev.requested->value(), ev.first_facts(), streams));
}

}  // namespace

RunVerdicts check_load(const RunEvidence& ev) {
    RunVerdicts out;
    if (ev.before && ev.after) {
        const SeriesSummary* series = ev.series ? &*ev.series : nullptr;
        out.results.push_back(
            check_no_preemption(*ev.before, *ev.after, pause_evidence(series, ev.first_facts()), &out.measured));
        out.results.push_back(precise_rate(*ev.before, *ev.after, ev.rate_counter, &out.measured));
    }
    check_recording(ev, out);
    if (auto t16 = check_prefix_cache_hits(ev, &out.measured)) out.results.push_back(std::move(*t16));
    return out;
}

std::optional<CheckResult> check_prefix_cache_hits(const RunEvidence& ev, Measured* measured) {
    if (!ev.before || !ev.after) return std::nullopt;
    return check_prefix_cache(*ev.before, *ev.after, {.facts = ev.first_facts(), .unique_prompts = ev.unique_prompts},
                              measured);
}

namespace {

// Whether the snapshots show the server emitting more than one token per step.
bool suite_speculating(const Snapshot& before, const Snapshot& after) {
    Json unused = Json::object();
    Deltas delta(before, after);
    auto tps = tokens_per_step(before, after, delta, unused);
    return tps && *tps > 1.0;
}

}  // namespace

ClientCountVerdicts check_client_counts(const RunEvidence& ev) {
    ClientCountVerdicts out;
    if (!ev.before || !ev.after) return out;
    const BenchResult* bench = ev.bench ? &*ev.bench : nullptr;
    if (bench || suite_speculating(*ev.before, *ev.after))
        out.t18 = check_chunks_not_tokens(bench, *ev.before, *ev.after, ev.untimed_requests);
    if (bench)
        out.t15 = check_client_server_agree(*bench, *ev.before, *ev.after, ev.untimed_requests,
                                            out.t18 ? &*out.t18 : nullptr);
    return out;
}

std::optional<CheckResult> check_streams(const RunEvidence& ev) {
    const LoadResult* load = load_of(ev);
    if (!load) return std::nullopt;
    if (!ev.series && client_streams(*load).timed == 0) return std::nullopt;
    return check_streams_vs_running(load, ev.series ? &*ev.series : nullptr,
                                    ev.running.empty() ? nullptr : &ev.running);
}

std::optional<CheckResult> check_client_server(const RunEvidence& ev) { return check_client_counts(ev).t15; }

RunVerdicts check_run(const RunEvidence& ev) {
    RunVerdicts out;
    out.results = check_boots(ev.boots, ev.unparsed);
    // The last live result per tripwire (the teardown's T2, not the start-of-run gate's),
    // in the order each first appeared; none the logs already gave.
    std::vector<TripwireId> order;
    for (const auto& r : ev.live)
        if (std::find(order.begin(), order.end(), r.tripwire) == order.end()) order.push_back(r.tripwire);
    for (const auto& t : order) {
        if (out.result(t)) continue;
        const CheckResult* last = nullptr;
        for (const auto& r : ev.live)
            if (r.tripwire == t) last = &r;
        out.results.push_back(*last);
    }
    ClientCountVerdicts counts = check_client_counts(ev);
    if (counts.t15) out.results.push_back(std::move(*counts.t15));
    RunVerdicts load = check_load(ev);
    for (auto& r : load.results) out.results.push_back(std::move(r));
    out.usable_blocks = load.usable_blocks;
    out.measured = load.measured;
    // After the load's verdicts, so that T1..T15 keep the order the reference prints.
    if (counts.t18) out.results.push_back(std::move(*counts.t18));
    if (ev.gpu) {
        std::vector<long long> pids;
        for (const auto& b : ev.boots)
            for (long long p : server_pids_of(b.facts.processes)) pids.push_back(p);
        out.results.push_back(check_gpu_shared(*ev.gpu, pids));
    }
    if (ev.bench || (ev.before && ev.after))
        out.results.push_back(check_failed_requests(ev.bench ? &*ev.bench : nullptr, ev.before ? &*ev.before : nullptr,
                                                    ev.after ? &*ev.after : nullptr, ev.max_failed_share));
    if (auto t21 = check_streams(ev)) out.results.push_back(std::move(*t21));
    return out;
}

}  // namespace inferlint::checks
