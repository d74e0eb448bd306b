// C8: do the arms' failed shares differ beyond their noise? An arm that lost a quarter of its
// requests is measured on its survivors, the easy ones; against an arm that lost none, its
// latency and throughput are not the same quantity.
//
// Each arm's requests are pooled over its completed runs (the failed and the sent counts its
// runs' T20 read: the load tool's, else the server's). The failures are taken as binomial
// draws, and the difference of the two shares gets Newcombe's hybrid Wilson-score interval
// (Newcombe 1998, method 10): each share's 95% Wilson interval, combined into one for
// B - A. Closed form, so nothing is simulated and no seed is needed; unlike the normal
// approximation it stays inside [-1, 1] and is sound at 0 failures, the usual case. The arms
// are refused when the interval leaves out 0.
#include "compare_internal.hpp"

#include <fmt/format.h>

#include <cmath>

namespace inferlint::checks::compare_detail {

namespace {

constexpr double kC8Z95 = 1.959963984540054;

struct C8Pooled {
    long long failed = 0, sent = 0;
    std::vector<std::string> unknown;  // runs with no count
    double share() const { return sent ? static_cast<double>(failed) / static_cast<double>(sent) : 0.0; }
};

// A run's failed and sent requests, from its T20 verdict's evidence.
std::optional<std::pair<long long, long long>> c8_run_counts(const ArmRun& run) {
    for (const auto& v : run.verdicts) {
        if (v.tripwire != TripwireId::T20 || v.status == Status::unknown) continue;
        const Json& e = v.evidence;
        auto num = [&](const char* k) -> std::optional<double> {
            if (e.contains(k) && e[k].is_number()) return e[k].get<double>();
            return std::nullopt;
        };
        if (auto f = num("client_failed"), c = num("client_completed"); f && c && *f >= 0 && *c >= 0)
            return std::pair{std::llround(*f), std::llround(*f + *c)};
        if (auto f = num("server_failed"), n = num("server_finished"); f && n && *f >= 0 && *n >= *f)
            return std::pair{std::llround(*f), std::llround(*n)};
    }
    return std::nullopt;
}

C8Pooled c8_pooled(const Arm& arm) {
    C8Pooled p;
    for (const ArmRun* run : arm.completed()) {
        if (auto c = c8_run_counts(*run)) {
            p.failed += c->first;
            p.sent += c->second;
        } else {
            p.unknown.push_back(run->label);
        }
    }
    return p;
}

// The 95% Wilson score interval of x successes in n.
std::pair<double, double> c8_wilson(long long x, long long n) {
    const double nn = static_cast<double>(n), p = static_cast<double>(x) / nn, z2 = kC8Z95 * kC8Z95;
    const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    const double half = kC8Z95 * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::string c8_shown(const Arm& arm, const C8Pooled& p) {
    return fmt::format("{} {:.1f}% ({} of {})", arm.name, 100 * p.share(), p.failed, p.sent);
}

}  // namespace

ComparisonResult failed_share_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C8, Status::unknown, "", Json::object()};
    const C8Pooled pa = c8_pooled(a), pb = c8_pooled(b);
    for (const auto& [arm, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
        r.evidence[arm->name] = {{"failed", p->failed},
                                 {"sent", p->sent},
                                 {"share", p->sent ? Json(p->share()) : Json()},
                                 {"runs_without_count", p->unknown}};
    std::vector<std::string> unknown;
    for (const auto& [arm, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
        if (!p->unknown.empty() || p->sent == 0)
            unknown.push_back(p->unknown.empty() ? arm->name : fmt::format("{} ({})", arm->name, join(p->unknown)));
    if (!unknown.empty()) {
        r.message = "no failed-request count (T20) for " + join(unknown, "; ") +
                    ": give each run's load-tool result, or snapshots of a server that counts aborted requests";
        return r;
    }
    const auto [la, ua] = c8_wilson(pa.failed, pa.sent);
    const auto [lb, ub] = c8_wilson(pb.failed, pb.sent);
    const double d = pb.share() - pa.share();
    const double lo = d - std::sqrt((pb.share() - lb) * (pb.share() - lb) + (ua - pa.share()) * (ua - pa.share()));
    const double hi = d + std::sqrt((ub - pb.share()) * (ub - pb.share()) + (pa.share() - la) * (pa.share() - la));
    r.evidence["difference"] = d;
    r.evidence["interval"] = {lo, hi};
    const std::string shares = fmt::format("failed {}, {}", c8_shown(a, pa), c8_shown(b, pb));
    if (lo > 0 || hi < 0) {
        r.status = Status::fail;
        r.message = fmt::format(
            "{}: {} - {} = {:+.1f} points, 95% interval [{:+.1f}, {:+.1f}], beyond their noise; each arm's figures "
            "cover only its survivors, and they are not the same requests",
            shares, b.name, a.name, 100 * d, 100 * lo, 100 * hi);
    } else {
        r.status = Status::pass;
        r.message = fmt::format("{}: within their noise (95% interval of {} - {}: [{:+.1f}, {:+.1f}] points)", shares,
                                b.name, a.name, 100 * lo, 100 * hi);
    }
    return r;
}

}  // namespace inferlint::checks::compare_detail
