// T1. vLLM preempts silently: no log line at the default level, only a counter. A
// preempted request loses its KV and is recomputed from scratch, so latency figures
// from such a run describe recomputation, not generation.
#include "inferlint/checks/snapshot_checks.hpp"

#include <fmt/format.h>

namespace inferlint::checks {

namespace {

std::string plural(long long n) { return n == 1 ? "" : "s"; }

// Releases whose scheduler logs "request ID N -> pause" at INFO: 1.3.0rc29, as the
// reference's recorded runs show ("[TRT-LLM] [I] [batchmgr][RANK 0] MaxUtilizationScheduler:
// request ID 72 -> pause"). Others may log it at DEBUG (cpp/tensorrt_llm/batch_manager/
// capacityScheduler.cpp at NVIDIA/TensorRT-LLM cf6abc45df6e3470d8c378366896882e1f43e60c), or
// not at all (the Python PyCapacityScheduler, tensorrt_llm/_torch/pyexecutor/scheduler.py at
// 034fffb0900632b2aefdec1ce9a5b5cbe63d22ba).
bool pauses_shown_at_info(const std::optional<std::string>& version) {
    return version && version->rfind("1.3.0rc29", 0) == 0;
}

// TensorRT-LLM exports only a gauge of paused requests. Its log (INFO) names each pause;
// without the log a recording can show that pauses happened, never that none did.
CheckResult paused_in_recording(const Engine& engine, const PauseEvidence& p, Measured* measured) {
    Json ev = Json::object();
    ev["engine"] = engine.key;
    ev["series"] = engine.metrics.paused;
    if (p.have_log && p.logged_pauses) {
        long long logged = *p.logged_pauses;
        long long served = p.served_in_log.value_or(0);
        ev["paused_in_log"] = logged;
        ev["served_in_log"] = served;
        if (logged) {
            ev["preemptions"] = logged;
            if (measured) measured->preemptions = static_cast<double>(logged);
            return {TripwireId::T1, Status::fail,
                    fmt::format("{} request{} paused for recompute during the run, from the server log ({} "
                                "counts none)",
                                logged, plural(logged), engine.name),
                    ev};
        }
        ev["preemptions"] = 0;
        // A log at INFO shows no pause of a release that logs them at DEBUG: no line is then
        // no evidence. The reference's release (1.3.0rc29) logs them at INFO.
        if (!p.debug_lines && !pauses_shown_at_info(p.engine_version)) {
            ev["debug_lines"] = false;
            ev["engine_version"] = p.engine_version ? Json(*p.engine_version) : Json(nullptr);
            return {TripwireId::T1, Status::unknown,
                    fmt::format("no pause in the server log, which covers {} answered requests, but it has no DEBUG "
                                "line and TensorRT-LLM {} may log pauses at DEBUG only; start it with "
                                "TLLM_LOG_LEVEL=DEBUG to see them",
                                served, p.engine_version ? *p.engine_version : "of an unknown release"),
                    ev};
        }
        if (measured) measured->preemptions = 0.0;
        return {TripwireId::T1, Status::pass,
                fmt::format("no pause in the server log, which covers {} answered requests", served), ev};
    }
    if (p.paused_readings == 0) {
        return {TripwireId::T1, Status::unknown,
                fmt::format("{} counts no {}s; it logs each one, so the server log saved until after the run "
                            "is needed to count them",
                            engine.name, engine.preemption),
                ev};
    }
    const long long seen = p.paused_readings, busy = p.paused_nonzero;
    const double max_seen = p.paused_max;
    ev["readings"] = seen;
    ev["readings_with_paused"] = busy;
    ev["paused_max"] = max_seen;
    if (busy) {
        return {TripwireId::T1, Status::fail,
                fmt::format("requests were paused for recompute in {} of {} readings, up to {:g} at once ({} "
                            "counts no pauses, so the number is unknown)",
                            busy, seen, max_seen, engine.name),
                ev};
    }
    if (p.scheduler_policy && *p.scheduler_policy == "GUARANTEED_NO_EVICT") {
        ev["capacity_scheduler_policy"] = *p.scheduler_policy;
        return {TripwireId::T1, Status::pass,
                fmt::format("no paused request in {} readings, and the scheduler policy ({}) admits a request "
                            "only when its whole output fits",
                            seen, *p.scheduler_policy),
                ev};
    }
    return {TripwireId::T1, Status::unknown,
            fmt::format("no paused request in {} readings; {} counts no pauses, so one between readings cannot "
                        "be ruled out without the server log saved until after the run",
                        seen, engine.name),
            ev};
}

}  // namespace

CheckResult restarted(TripwireId id, Status status, const Restart& restart) {
    Json ev = Json::object();
    ev["restarted"] = true;
    ev.update(restart.evidence);
    return {id, status, restart.message, ev};
}

CheckResult check_no_preemption(const Snapshot& before, const Snapshot& after, const PauseEvidence& pauses,
                                Measured* measured) {
    const Engine& engine = engine_of({&before, &after});
    const std::string& word = engine.preemption;
    if (engine.metrics.preemptions.empty()) return paused_in_recording(engine, pauses, measured);
    const std::string& name = engine.metrics.preemptions;
    Deltas delta(before, after);
    std::optional<double> n = delta(name, engine.witness(name));
    if (delta.restart()) {
        if (measured) measured->restarted = true;
        return restarted(TripwireId::T1, Status::fail, *delta.restart());
    }
    Json ev = Json::object();
    ev["engine"] = engine.key;
    ev["series"] = name;
    // The log's own count, only where its stats lines printed one (reference logs never do).
    const std::optional<long long>& logged = pauses.logged_preemptions;
    if (logged) {
        ev["stats_lines"] = pauses.stats_lines;
        ev["preemptions_in_log"] = *logged;
        if (measured) measured->preemptions_in_log = *logged;
    }
    if (!n) {
        if (logged && *logged > 0) {
            ev["preemptions"] = *logged;
            if (measured) measured->preemptions = static_cast<double>(*logged);
            return {TripwireId::T1, Status::fail,
                    fmt::format("{} {}{} in the server log's periodic stats lines ({} absent from a snapshot)", *logged,
                                word, plural(*logged), name),
                    ev};
        }
        return {TripwireId::T1, Status::unknown,
                fmt::format("{} absent from a snapshot; {} cannot be ruled out", name, word), ev};
    }
    if (*n > 0) {
        std::string msg = fmt::format("{:g} {}{} during the run", *n, word, *n == 1 ? "" : "s");
        if (logged)
            msg += fmt::format(" (the server log's stats lines count {})", *logged);
        else if (engine.logs_preemptions)
            msg += fmt::format(" ({} logs a warning for each)", engine.name);
        ev["preemptions"] = *n;
        if (measured) measured->preemptions = *n;
        return {TripwireId::T1, Status::fail, msg, ev};
    }
    ev["preemptions"] = 0;
    if (measured) measured->preemptions = 0.0;
    // The log may cover more than the snapshots' window (warm-up, an earlier run).
    if (logged && *logged > 0)
        return {TripwireId::T1, Status::pass,
                fmt::format("no {}s between the snapshots (the server log's stats lines count {} outside them)", word,
                            *logged),
                ev};
    return {TripwireId::T1, Status::pass, fmt::format("no {}s", word), ev};
}

}  // namespace inferlint::checks
