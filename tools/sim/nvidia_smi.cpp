// As `nvidia-smi --query-gpu=F1,F2,... --format=csv,noheader,nounits`: one card, named so
// nobody mistakes it for hardware, with nothing on it (the simulator uses no GPU memory);
// and `--query-compute-apps=pid,process_name,used_memory,gpu_uuid`: no process.
//
// T19's trap: INFERLINT_SIM_GPU_TENANT=PID:NAME:MIB puts another tenant on the card from the
// INFERLINT_SIM_GPU_TENANT_AFTER-th (default 2nd) compute-apps reading on: listed as a compute
// process, its MiB in memory.used (from the reading before, as a card's memory moves first).
// The readings are counted in a file beside the link (ARGV0.readings), as a watchdog that
// restores a service once the queue looks idle would appear between two readings.
#include "nvidia_smi.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

namespace sim {

namespace {

struct Tenant {
    std::string pid, name, mib;
};

std::optional<Tenant> tenant_from_env() {
    const char* spec = std::getenv("INFERLINT_SIM_GPU_TENANT");
    if (!spec || !*spec) return std::nullopt;
    std::string s(spec);
    auto a = s.find(':'), b = s.rfind(':');
    if (a == std::string::npos || a == b) return std::nullopt;
    return Tenant{s.substr(0, a), s.substr(a + 1, b - a - 1), s.substr(b + 1)};
}

long long readings_so_far(const std::string& state) {
    std::ifstream in(state);
    long long n = 0;
    return (in >> n) ? n : 0;
}

constexpr const char* kUuid = "GPU-00000000-0000-0000-0000-00000000519a";

int compute_apps(const std::string& state, const std::optional<Tenant>& tenant, long long after) {
    const long long n = readings_so_far(state) + 1;
    std::ofstream(state, std::ios::trunc) << n << '\n';
    if (tenant && n >= after)
        std::printf("%s, %s, %s, %s\n", tenant->pid.c_str(), tenant->name.c_str(), tenant->mib.c_str(), kUuid);
    return 0;
}

}  // namespace

int fake_nvidia_smi(const std::string& argv0, const std::vector<std::string>& words) {
    const std::optional<Tenant> tenant = tenant_from_env();
    const char* after_env = std::getenv("INFERLINT_SIM_GPU_TENANT_AFTER");
    const long long after = after_env && *after_env ? std::atoll(after_env) : 2;
    const std::string state = argv0 + ".readings";
    const bool present = tenant && readings_so_far(state) + 1 >= after;
    const std::string used = present ? tenant->mib : "0";
    const std::map<std::string, std::string> card = {{"index", "0"},
                                                     {"name", "inferlint-sim simulated GPU (no hardware)"},
                                                     {"memory.total", "24564"},
                                                     {"memory.used", used},
                                                     {"memory.free", "24564"},
                                                     {"driver_version", "sim"},
                                                     {"compute_cap", "8.9"},
                                                     {"uuid", kUuid}};
    std::string query;
    for (const auto& w : words) {
        if (w.starts_with("--query-gpu=")) query = w.substr(12);
        if (w.starts_with("--query-compute-apps=")) return compute_apps(state, tenant, after);
    }
    if (query.empty()) {
        std::printf("inferlint-sim as nvidia-smi: one simulated GPU; ask with --query-gpu=FIELDS\n");
        return 0;
    }
    std::string line;
    for (std::size_t at = 0; at <= query.size();) {
        std::size_t comma = std::min(query.find(',', at), query.size());
        const std::string field = query.substr(at, comma - at);
        auto it = card.find(field);
        if (it == card.end()) {
            std::fprintf(stderr, "Field \"%s\" is not a valid field to query.\n", field.c_str());
            return 2;
        }
        line += (line.empty() ? "" : ", ") + it->second;
        at = comma + 1;
    }
    std::printf("%s\n", line.c_str());
    return 0;
}

}  // namespace sim
