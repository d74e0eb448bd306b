#include "inferlint/checks/fleet.hpp"

#include "inferlint/checks/t17_realized_config.hpp"
#include "inferlint/parse/metrics_pool.hpp"

#include <fmt/format.h>

#include <cmath>

namespace inferlint::checks {

namespace {

// T1 of a replica Prometheus saw restart (its counters reset in the window) where its
// snapshots could not tell (no *_created stamps, and counters grown past where they were).
void restart_seen(RunVerdicts& v, long long resets) {
    if (v.measured.restarted) return;  // its snapshots said so already
    v.measured.restarted = true;
    v.measured.forget(TripwireId::T1);
    for (auto& r : v.results) {
        if (r.tripwire != TripwireId::T1) continue;
        Json ev = Json::object();
        ev["restarted"] = true;
        ev["resets"] = resets;
        r = CheckResult{TripwireId::T1, Status::fail,
                        fmt::format("server restarted in the window (Prometheus saw {} counter reset{}): "
                                    "preemptions before the restart are not counted",
                                    resets, resets == 1 ? "" : "s"),
                        ev};
    }
}

// T8's message and evidence say how often the running requests were sampled.
CheckResult with_sampling(CheckResult r, double step_s) {
    if (r.status == Status::not_applicable) return r;
    r.message += fmt::format(
        " (running requests sampled every {:g} s: a sampled peak is a lower bound, a shorter "
        "peak between samples is not seen)",
        step_s);
    if (!r.evidence.is_object()) r.evidence = Json::object();
    r.evidence["sampling_interval_s"] = step_s;
    r.evidence["peak_is_lower_bound"] = true;
    return r;
}

int rank(Status s) {
    switch (s) {
        case Status::fail:
            return 4;
        case Status::unknown:
            return 3;
        case Status::warn:
            return 2;
        case Status::pass:
            return 1;
        default:
            return 0;
    }
}

}  // namespace

CheckResult across_replicas(TripwireId tripwire, const std::vector<std::pair<std::string, const CheckResult*>>& each) {
    Json per = Json::object();
    const CheckResult* worst = nullptr;
    std::string worst_name;
    int n_worst = 0, counted = 0;
    std::vector<CheckResult> none;  // a replica without this verdict: Can't tell there
    none.reserve(each.size());
    for (auto [name, r] : each) {
        if (!r) {
            none.push_back({tripwire, Status::unknown,
                            "no verdict from this replica (a snapshot or its samples are missing)", Json::object()});
            r = &none.back();
        }
        ++counted;
        per[name] = r->to_json();
        if (!worst || rank(r->status) > rank(worst->status)) {
            worst = r, worst_name = name, n_worst = 1;
        } else if (rank(r->status) == rank(worst->status)) {
            ++n_worst;
        }
    }
    Json ev = Json::object();
    ev["replicas"] = per;
    if (!worst) return {tripwire, Status::unknown, "no replica in the window", ev};
    if (worst->status == Status::not_applicable) return {tripwire, Status::not_applicable, worst->message, ev};
    if (worst->status == Status::pass) {
        return {tripwire, Status::pass,
                counted == 1 ? worst->message
                             : fmt::format("all {} replicas pass (e.g. {}: {})", counted, worst_name, worst->message),
                ev};
    }
    const std::string more =
        n_worst > 1 ? fmt::format(", and {} more replica{}", n_worst - 1, n_worst == 2 ? "" : "s") : "";
    return {tripwire, worst->status, fmt::format("replica {}: {}{}", worst_name, worst->message, more), ev};
}

namespace {

// T17 across replicas without boot logs (a fleet read from a Prometheus): their KV pools
// as /metrics states them, once at least two state one.
std::optional<CheckResult> fleet_pools(const std::vector<ReplicaEvidence>& replicas) {
    if (replicas.size() < 2) return std::nullopt;
    std::vector<std::pair<std::string, std::optional<parse::MetricsPool>>> pools;
    std::size_t stated = 0;
    for (const auto& r : replicas) {
        if (!r.evidence.boots.empty()) return std::nullopt;  // the logs' T17 is the one to give
        const auto& snap = r.evidence.after ? r.evidence.after : r.evidence.before;
        pools.emplace_back(r.name, snap ? parse::pool_from_metrics(*snap) : std::nullopt);
        stated += pools.back().second.has_value();
    }
    if (stated < 2) return std::nullopt;
    return check_metrics_config(pools);
}

}  // namespace

FleetVerdicts check_fleet(const std::vector<ReplicaEvidence>& replicas, const RunEvidence& fleet, double step_s) {
    FleetVerdicts out;
    const bool several = replicas.size() > 1;
    for (const auto& r : replicas) {
        RunEvidence ev = r.evidence;
        // The requested concurrency is the fleet's: one replica's share of it is not known.
        if (several) ev.requested.reset();
        // The failed share a user accepts (T20) is the fleet's, and so each replica's.
        ev.max_failed_share = fleet.max_failed_share;
        RunVerdicts v = check_run(ev);
        if (r.resets > 0) restart_seen(v, r.resets);
        if (several) {
            for (auto& x : v.results)
                if (x.tripwire == TripwireId::T8)
                    x = CheckResult{TripwireId::T8, Status::not_applicable,
                                    "the fleet's T8 holds the requested concurrency against the sum over replicas",
                                    Json::object()};
        }
        out.replicas.emplace_back(r.name, std::move(v));
    }
    out.fleet = check_run(fleet);
    for (auto& x : out.fleet.results) {
        std::vector<std::pair<std::string, const CheckResult*>> each;
        for (const auto& [name, v] : out.replicas) each.emplace_back(name, v.result(x.tripwire));
        if (x.tripwire == TripwireId::T8) {
            x = with_sampling(x, step_s);
            continue;
        }
        CheckResult across = across_replicas(x.tripwire, each);
        // T9 and T14 are each replica's; for the rest a replica that fails fails the fleet.
        const bool per_replica = x.tripwire == TripwireId::T9 || x.tripwire == TripwireId::T14;
        if (per_replica || (across.status == Status::fail && x.status != Status::fail)) {
            out.fleet.measured.forget(x.tripwire);
            x = std::move(across);
        }
    }
    // A tripwire the replicas give that the fleet's evidence could not (no union snapshot,
    // because a replica has none at an end): the replicas' verdicts, as one.
    for (const auto& [name, v] : out.replicas)
        for (const auto& x : v.results) {
            if (x.tripwire == TripwireId::T8 || out.fleet.result(x.tripwire)) continue;
            std::vector<std::pair<std::string, const CheckResult*>> each;
            for (const auto& [n2, v2] : out.replicas) each.emplace_back(n2, v2.result(x.tripwire));
            out.fleet.results.push_back(across_replicas(x.tripwire, each));
        }
    if (auto t17 = fleet_pools(replicas)) out.fleet.results.push_back(std::move(*t17));
    out.fleet.usable_blocks.reset();
    if (!several && !out.replicas.empty()) out.fleet.usable_blocks = out.replicas.front().second.usable_blocks;
    return out;
}

}  // namespace inferlint::checks
