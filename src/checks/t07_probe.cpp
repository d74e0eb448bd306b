#include "inferlint/checks/t07_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace inferlint::checks {

Json ProbeReply::to_json() const {
    Json j = Json::object();
    j["ok"] = ok;
    j["status"] = or_null(status);
    j["seconds"] = seconds;
    j["tokens"] = tokens;
    j["error"] = error;
    return j;
}

CheckResult probe_verdict(const ProbeRecord& r) {
    if (r.model.empty())
        return CheckResult{TripwireId::T7, Status::fail, fmt::format("cannot list models: {}", r.list_error),
                           Json::object()};
    Json ev = Json::object();
    ev["model"] = r.model;
    if (!r.first || !r.first->ok) {
        ev["first"] = r.first ? r.first->to_json() : Json(nullptr);
        ev["alive_after"] = r.alive_after.value_or(false);
        std::string why = r.first ? r.first->error : "not sent";
        return CheckResult{TripwireId::T7, Status::fail, fmt::format("first request failed: {}", why), ev};
    }
    ev["first"] = r.first->to_json();
    auto failed = std::count_if(r.burst.begin(), r.burst.end(), [](const ProbeReply& x) { return !x.ok; });
    double max_s = 0.0;
    Json requests = Json::array();
    for (const auto& x : r.burst) {
        max_s = std::max(max_s, x.seconds);
        requests.push_back(x.to_json());
    }
    ev["burst"] = Json{
        {"concurrency", r.concurrency}, {"failed", failed}, {"max_seconds", max_s}, {"requests", std::move(requests)}};
    const bool alive = r.alive_after.value_or(false);
    ev["alive_after"] = alive;
    if (failed > 0)
        return CheckResult{TripwireId::T7, Status::fail,
                           fmt::format("{}/{} burst requests failed", failed, r.concurrency), ev};
    if (!alive) return CheckResult{TripwireId::T7, Status::fail, "server died after burst", ev};
    return CheckResult{TripwireId::T7, Status::pass,
                       fmt::format("1 + {} concurrent requests served, server alive", r.concurrency), ev};
}

}  // namespace inferlint::checks
