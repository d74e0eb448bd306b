// T9: with the KV cache full, floor(1 / share) requests fit, where share is the fraction
// of the cache one running request holds. The share grows with each request's sequence,
// so the ceiling falls during a run and one "max concurrency" figure describes none of it.
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/core/blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace inferlint::checks {

namespace {

long long ceiling_of(const BusyReading& r, std::optional<long long> usable_blocks) {
    try {
        return predict_concurrency(r.kv_usage, r.running, usable_blocks);
    } catch (const std::invalid_argument&) {
        // Only a reading below half a block can get here; whole-block arithmetic has
        // nothing to say about it, the plain ratio still does.
        return predict_concurrency(r.kv_usage, r.running);
    }
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

// Engines whose gauges move only when a request completes: say how little was seen.
std::string lag_note(const Engine& engine, long long samples, Json& ev) {
    if (!engine.gauges_lag) return "";
    ev["gauges_lag"] = true;
    return fmt::format(" (from {} readings; {} updates its gauges only when a request completes)", samples,
                       engine.name);
}

}  // namespace

CheckResult concurrency_ceiling(const SeriesStats& stats, const Engine& engine, std::optional<long long> usable_blocks,
                                double saturated) {
    // vLLM's gauge is the KV cache; SGLang's is its fullest pool, which for a hybrid
    // model can be the per-request state slots rather than the KV cache.
    const std::string pool =
        engine.id == EngineId::sglang ? "the fullest memory pool (KV cache or request state)" : "the cache";
    if (stats.busy_samples == 0 || !stats.fullest) {
        std::string msg = "no sample with requests running and KV in use";
        if (!engine.gauges_hint.empty() && !stats.any_running) msg += "; " + engine.gauges_hint;
        return {TripwireId::T9, Status::unknown, msg};
    }
    const auto& busy = stats.busy();
    bool any_full = std::any_of(busy.begin(), busy.end(), [&](const auto& r) { return r.kv_usage >= saturated; });
    const std::string basis = any_full ? "saturated" : "busy";

    long long lo = std::numeric_limits<long long>::max(), hi = std::numeric_limits<long long>::min();
    double share_lo = std::numeric_limits<double>::infinity(), share_hi = -share_lo;
    long long samples = 0;
    for (const auto& r : busy) {
        if (any_full && r.kv_usage < saturated) continue;
        long long c = ceiling_of(r, usable_blocks);
        lo = std::min(lo, c);
        hi = std::max(hi, c);
        double share = r.kv_usage / r.running;
        share_lo = std::min(share_lo, share);
        share_hi = std::max(share_hi, share);
        samples += r.count;
    }
    long long at_fullest = ceiling_of(*stats.fullest, usable_blocks);

    Json ev = {
        {"ceiling_min", lo},
        {"ceiling_max", hi},
        {"ceiling_at_fullest", at_fullest},
        {"share_min", share_lo},
        {"share_max", share_hi},
        {"samples", samples},
        {"basis", basis},
        {"usable_blocks", or_null(usable_blocks)},
    };
    if (usable_blocks && *usable_blocks != 0) {
        ev["blocks_per_request_min"] = share_lo * static_cast<double>(*usable_blocks);
        ev["blocks_per_request_max"] = share_hi * static_cast<double>(*usable_blocks);
    }
    if (lo == hi) {
        std::string held = percent(share_lo) == percent(share_hi)
                               ? percent(share_lo)
                               : fmt::format("{} to {}", percent(share_lo), percent(share_hi));
        std::string msg = fmt::format("one request holds {} of {}; ceiling = floor(1/share) = {} on every {} sample",
                                      held, pool, lo, basis);
        msg += lag_note(engine, samples, ev);
        return {TripwireId::T9, Status::pass, msg, ev};
    }
    std::string msg = fmt::format(
        "ceiling moved between {} and {} as requests grew (one request held {} to {} of {}); concurrency was "
        "not a constant of this run",
        lo, hi, percent(share_lo), percent(share_hi), pool);
    msg += lag_note(engine, samples, ev);
    return {TripwireId::T9, Status::warn, msg, ev};
}

}  // namespace inferlint::checks
