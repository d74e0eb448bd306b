// T19 and T2 from DCGM (checks/dcgm_gpu.hpp).
#include "inferlint/checks/dcgm_gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace inferlint::checks {

namespace {

long long dcgm_mib(double v) { return std::llround(v); }

struct DcgmGpuSpan {
    const parse::DcgmReading* first = nullptr;  // its first reading in the window
    const parse::DcgmReading* peak = nullptr;   // its highest
    std::set<double> times;
};

struct DcgmTenant {
    const parse::DcgmReading* first = nullptr;  // when it was first seen
    double max_mib = 0;                         // the GPU's memory used while it was there
};

}  // namespace

CheckResult check_gpu_shared_dcgm(const std::vector<parse::DcgmReading>& readings,
                                  const std::vector<std::string>& server_pods, const std::string& query,
                                  long long growth_threshold_mib) {
    CheckResult r{.tripwire = TripwireId::T19};
    const std::set<std::string> ours(server_pods.begin(), server_pods.end());
    std::set<std::string> gpus;
    for (const auto& x : readings)
        if (ours.count(x.pod)) gpus.insert(x.uuid);
    r.evidence = {{"source", "dcgm"}, {"query", query}, {"server_pods", server_pods}};
    if (gpus.empty()) {
        r.message = fmt::format(
            "Can't tell: DCGM names none of the server's pods ({}) on a GPU in the window ({} found nothing): "
            "is dcgm-exporter scraped, with its Kubernetes pod mapping on?",
            fmt::join(server_pods, ", "), query);
        return r;
    }
    std::map<std::string, DcgmGpuSpan> span;
    std::map<std::string, DcgmTenant> tenants;  // "namespace/pod on GPU" -> when first seen
    for (const auto& x : readings) {
        if (!gpus.count(x.uuid)) continue;
        DcgmGpuSpan& s = span[x.uuid];
        if (!s.first) s.first = &x;
        if (!s.peak || x.mib > s.peak->mib) s.peak = &x;
        s.times.insert(x.t);
        if (x.pod.empty() || ours.count(x.pod)) continue;
        DcgmTenant& t = tenants[parse::dcgm_pod_words(x) + " on " + parse::dcgm_gpu_words(x)];
        if (!t.first) t.first = &x;
        t.max_mib = std::max(t.max_mib, x.mib);
    }
    std::size_t fewest = SIZE_MAX;
    for (const auto& [uuid, s] : span) fewest = std::min(fewest, s.times.size());
    r.evidence["gpus"] = gpus.size();
    r.evidence["readings_per_gpu"] = fewest;
    Json others = Json::array(), growth = Json::array();
    std::vector<std::string> said;
    for (const auto& [what, t] : tenants) {
        others.push_back({{"pod", t.first->pod},
                          {"namespace", t.first->space},
                          {"gpu", t.first->gpu},
                          {"uuid", t.first->uuid},
                          {"host", t.first->host},
                          {"gpu_used_mib", dcgm_mib(t.max_mib)}});
        said.push_back(fmt::format("pod {} was given {} too (its memory used up to {} MiB)",
                                   parse::dcgm_pod_words(*t.first), parse::dcgm_gpu_words(*t.first),
                                   dcgm_mib(t.max_mib)));
    }
    for (const auto& [uuid, s] : span) {
        const long long grew = dcgm_mib(s.peak->mib) - dcgm_mib(s.first->mib);
        growth.push_back({{"gpu", s.first->gpu},
                          {"uuid", uuid},
                          {"host", s.first->host},
                          {"first_mib", dcgm_mib(s.first->mib)},
                          {"max_mib", dcgm_mib(s.peak->mib)}});
        if (tenants.empty() && grew > growth_threshold_mib)
            said.push_back(fmt::format(
                "memory used on {} grew by {} MiB ({} to {} MiB) after the server had its own; DCGM does not say "
                "whose",
                parse::dcgm_gpu_words(*s.first), grew, dcgm_mib(s.first->mib), dcgm_mib(s.peak->mib)));
    }
    r.evidence["other_pods"] = std::move(others);
    r.evidence["used_mib"] = std::move(growth);
    r.evidence["growth_threshold_mib"] = growth_threshold_mib;
    if (!said.empty()) {
        r.status = Status::fail;
        r.message = fmt::format("another tenant on the server's GPUs during the run (DCGM): {}", fmt::join(said, "; "));
        return r;
    }
    if (fewest < 2) {
        r.message = fmt::format("Can't tell: DCGM has {} reading of a server's GPU in the window ({})", fewest, query);
        return r;
    }
    r.status = Status::pass;
    r.message = fmt::format(
        "no other pod on the server's {} GPU{} in DCGM, and no growth over {} MiB ({} readings or more each)",
        gpus.size(), gpus.size() == 1 ? "" : "s", growth_threshold_mib, fewest);
    return r;
}

CheckResult check_gpu_clear_dcgm(const std::vector<parse::DcgmReading>& used,
                                 const std::vector<parse::DcgmReading>& free, long long max_used_mib,
                                 const std::string& why) {
    CheckResult r{.tripwire = TripwireId::T2};
    struct Gpu {
        const parse::DcgmReading* first = nullptr;
        std::optional<double> free;
        std::vector<std::string> pods;
    };
    std::map<std::string, Gpu> gpus;
    for (const auto& x : used) {
        Gpu& g = gpus[x.uuid];
        if (!g.first) g.first = &x;
        if (!x.pod.empty()) g.pods.push_back(parse::dcgm_pod_words(x));
    }
    for (const auto& x : free)
        if (auto it = gpus.find(x.uuid); it != gpus.end()) it->second.free = x.mib;
    if (gpus.empty()) {
        r.message = fmt::format("Can't tell: {}", why);
        r.evidence = {{"gpus", Json::array()}};
        return r;
    }
    Json list = Json::array();
    std::vector<std::string> held;
    for (const auto& [uuid, g] : gpus) {
        list.push_back({{"gpu", g.first->gpu},
                        {"uuid", uuid},
                        {"host", g.first->host},
                        {"model", g.first->model},
                        {"used_mib", dcgm_mib(g.first->mib)},
                        {"free_mib", g.free ? Json(dcgm_mib(*g.free)) : Json(nullptr)},
                        {"pods", g.pods}});
        if (dcgm_mib(g.first->mib) > max_used_mib || !g.pods.empty())
            held.push_back(fmt::format("{}: {} MiB used{}", parse::dcgm_gpu_words(*g.first), dcgm_mib(g.first->mib),
                                       g.pods.empty() ? std::string(", no pod mapped to it")
                                                      : fmt::format(", given to {}", fmt::join(g.pods, ", "))));
    }
    r.evidence = {{"gpus", std::move(list)}, {"max_used_mib", max_used_mib}};
    if (!held.empty()) {
        r.status = Status::fail;
        r.message = fmt::format("card not clear (DCGM): {}", fmt::join(held, "; "));
        return r;
    }
    r.status = Status::pass;
    r.message = fmt::format("{} GPU{} clear in DCGM: each at or under {} MiB used, no pod mapped to it", gpus.size(),
                            gpus.size() == 1 ? "" : "s", max_used_mib);
    return r;
}

}  // namespace inferlint::checks
