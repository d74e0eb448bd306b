// T19: other tenants on the server's GPUs, from xray's nvidia-smi recording.
#include "inferlint/checks/t19_gpu_shared.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace inferlint::checks {

std::vector<long long> server_pids_of(const std::map<std::string, std::vector<long long>>& processes) {
    std::vector<long long> out;
    for (const auto& [name, pids] : processes) out.insert(out.end(), pids.begin(), pids.end());
    return out;
}

namespace {

struct T19Stranger {
    long long pid = 0;
    std::string name;
    long long max_mib = 0;
    int gpu = 0;
};

struct T19Growth {
    int gpu = 0;
    long long from_mib = 0, to_mib = 0;
};

using T19Samples = std::vector<const parse::GpuSample*>;

// The server's GPUs: where one of its processes held memory; none seen (a server nvidia-smi
// shows no process of, as in a container): every GPU read.
std::set<std::string> t19_server_gpus(const T19Samples& good, const std::set<long long>& ours) {
    std::set<std::string> uuids, all;
    for (const auto* s : good) {
        for (const auto& g : s->gpus) all.insert(g.uuid);
        for (const auto& a : s->apps)
            if (ours.count(a.pid) || std::count(s->server_pids.begin(), s->server_pids.end(), a.pid))
                uuids.insert(a.gpu_uuid);
    }
    return uuids.empty() ? all : uuids;
}

bool t19_is_ours(const parse::GpuSample& s, const std::set<long long>& ours, long long pid) {
    return ours.count(pid) || std::find(s.server_pids.begin(), s.server_pids.end(), pid) != s.server_pids.end();
}

std::vector<T19Stranger> t19_strangers(const T19Samples& good, const std::set<long long>& ours,
                                       const std::set<std::string>& gpus) {
    std::vector<T19Stranger> out;
    for (const auto* s : good)
        for (const auto& a : s->apps) {
            if (t19_is_ours(*s, ours, a.pid) || !gpus.count(a.gpu_uuid)) continue;
            int index = 0;
            for (const auto& g : s->gpus)
                if (g.uuid == a.gpu_uuid) index = g.index;
            auto it = std::find_if(out.begin(), out.end(), [&](const T19Stranger& x) { return x.pid == a.pid; });
            if (it == out.end()) it = out.insert(out.end(), T19Stranger{a.pid, a.name, 0, index});
            it->max_mib = std::max(it->max_mib, a.used_mib.value_or(0));
        }
    return out;
}

// The memory used outside the server on each of its GPUs: the card's used memory less its
// processes'; the largest rise over the first reading.
std::vector<T19Growth> t19_growths(const T19Samples& good, const std::set<long long>& ours,
                                   const std::set<std::string>& gpus) {
    std::map<std::string, T19Growth> first_and_max;
    std::map<std::string, long long> first;
    for (const auto* s : good)
        for (const auto& g : s->gpus) {
            if (!gpus.count(g.uuid) || !g.used_mib) continue;
            long long server = 0;
            for (const auto& a : s->apps)
                if (a.gpu_uuid == g.uuid && t19_is_ours(*s, ours, a.pid)) server += a.used_mib.value_or(0);
            const long long outside = std::max(0LL, *g.used_mib - server);
            if (!first.count(g.uuid)) {
                first[g.uuid] = outside;
                first_and_max[g.uuid] = {g.index, outside, outside};
            }
            first_and_max[g.uuid].to_mib = std::max(first_and_max[g.uuid].to_mib, outside);
        }
    std::vector<T19Growth> out;
    for (const auto& [uuid, g] : first_and_max) out.push_back(g);
    return out;
}

}  // namespace

CheckResult check_gpu_shared(const parse::GpuRecording& recording, const std::vector<long long>& server_pids,
                             long long growth_threshold_mib) {
    CheckResult r{.tripwire = TripwireId::T19};
    T19Samples good;
    std::optional<std::string> why;
    for (const auto& s : recording.samples) {
        if (s.error)
            why = s.error;
        else
            good.push_back(&s);
    }
    r.evidence = {{"readings", good.size()},
                  {"failed_readings", recording.samples.size() - good.size()},
                  {"interval_s", or_null(recording.interval_s)}};
    if (good.size() < 2) {
        r.message = fmt::format("Can't tell: nvidia-smi gave {} reading{} of the GPUs during the run{}", good.size(),
                                good.size() == 1 ? "" : "s", why ? fmt::format(" ({})", *why) : "");
        return r;
    }
    const std::set<long long> ours(server_pids.begin(), server_pids.end());
    const std::set<std::string> gpus = t19_server_gpus(good, ours);
    std::vector<T19Stranger> others = t19_strangers(good, ours, gpus);
    std::vector<T19Growth> grown = t19_growths(good, ours, gpus);
    Json procs = Json::array(), growth = Json::array();
    std::vector<std::string> said;
    for (const auto& o : others) {
        procs.push_back({{"pid", o.pid}, {"name", o.name}, {"max_used_mib", o.max_mib}, {"gpu", o.gpu}});
        said.push_back(fmt::format("process {} ({}) held {} MiB on GPU {}", o.pid, o.name, o.max_mib, o.gpu));
    }
    for (const auto& g : grown) {
        growth.push_back({{"gpu", g.gpu}, {"first_mib", g.from_mib}, {"max_mib", g.to_mib}});
        if (others.empty() && g.to_mib - g.from_mib > growth_threshold_mib)
            said.push_back(fmt::format("memory used outside the server on GPU {} grew by {} MiB ({} to {} MiB)", g.gpu,
                                       g.to_mib - g.from_mib, g.from_mib, g.to_mib));
    }
    r.evidence["other_processes"] = std::move(procs);
    r.evidence["outside_server_mib"] = std::move(growth);
    r.evidence["growth_threshold_mib"] = growth_threshold_mib;
    const double span_s = good.back()->t_s - good.front()->t_s;
    if (!said.empty()) {
        r.status = Status::fail;
        r.message = fmt::format("another tenant on the server's GPUs during the run: {}", fmt::join(said, "; "));
        return r;
    }
    r.status = Status::pass;
    r.message = fmt::format("no other process on the server's GPU{} during the run ({} readings over {:.1f} s)",
                            gpus.size() == 1 ? "" : "s", good.size(), span_s);
    return r;
}

}  // namespace inferlint::checks
