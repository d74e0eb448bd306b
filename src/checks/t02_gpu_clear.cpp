#include "inferlint/checks/t02_gpu_clear.hpp"

#include <fmt/format.h>

namespace inferlint::checks {

namespace {

// Before a server starts: a card that is not clear is a refusal, said with what it refuses.
CheckResult clear_to_go(const ClearResult& wait, std::string_view refusing, Json evidence) {
    return {TripwireId::T2, wait.clear ? Status::pass : Status::fail,
            wait.clear ? wait.reason : fmt::format("card not clear; refusing to {}. {}", refusing, wait.reason),
            std::move(evidence)};
}

// After servers were stopped: the wait's reason is the message either way.
CheckResult clear_after(const ClearResult& wait, Json evidence) {
    return {TripwireId::T2, wait.clear ? Status::pass : Status::fail, wait.reason, std::move(evidence)};
}

Json gpus_json(const std::vector<nvidia_smi::GpuInfo>& gpus) {
    Json arr = Json::array();
    for (const auto& g : gpus) arr.push_back(gpu_json(g));
    return arr;
}

Json pids_json(const std::vector<int>& pids) {
    Json arr = Json::array();
    for (int pid : pids) arr.push_back(pid);
    return arr;
}

}  // namespace

Json readings_json(const ClearResult& res) {
    Json arr = Json::array();
    for (const auto& r : res.readings)
        arr.push_back(Json::array({r.elapsed_s, or_null(r.max_used_mib), r.live_servers}));
    return arr;
}

Json gpu_json(const nvidia_smi::GpuInfo& g) {
    using G = nvidia_smi::GpuInfo;
    Json j = members_json(
        g, member("index", &G::index), member("name", &G::name), member("memory_total_mib", &G::memory_total_mib),
        member("memory_used_mib", &G::memory_used_mib), member("memory_free_mib", &G::memory_free_mib),
        member("driver", &G::driver), member("compute_cap", &G::compute_cap));
    j["family"] = or_null(g.family());
    return j;
}

CheckResult check_gpu_clear_to_boot(const ClearResult& wait, const std::vector<nvidia_smi::GpuInfo>& gpus) {
    Json ev = Json::object();
    ev["readings"] = readings_json(wait);
    ev["gpus"] = gpus_json(gpus);
    return clear_to_go(wait, "boot", std::move(ev));
}

CheckResult check_gpu_clear_to_start_server(const ClearResult& wait) {
    Json ev = Json::object();
    ev["readings"] = readings_json(wait);
    return clear_to_go(wait, "start a server", std::move(ev));
}

CheckResult check_gpu_clear_after_teardown(const ClearResult& wait, const std::vector<int>& signalled_pids) {
    Json ev = Json::object();
    ev["readings"] = readings_json(wait);
    ev["signalled"] = pids_json(signalled_pids);
    return clear_after(wait, std::move(ev));
}

CheckResult check_gpu_clear_after_stop(const ClearResult& wait, const std::vector<int>& left_pids) {
    Json ev = Json::object();
    ev["readings"] = readings_json(wait);
    ev["left_after_the_server_stopped"] = pids_json(left_pids);
    return clear_after(wait, std::move(ev));
}

CheckResult gpu_clear_needs_linux(std::string_view what, std::string_view proc_root) {
    return {TripwireId::T2, Status::unknown,
            fmt::format("{} needs Linux: it finds the server's processes in {}. Run it where the server runs.", what,
                        proc_root),
            Json::object()};
}

CheckResult gpu_clear_needs_linux(std::string_view what, std::string_view proc_root,
                                  const std::vector<nvidia_smi::GpuInfo>& gpus) {
    CheckResult r = gpu_clear_needs_linux(what, proc_root);
    r.evidence["gpus"] = gpus_json(gpus);
    return r;
}

}  // namespace inferlint::checks
