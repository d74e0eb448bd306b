#include "inferlint/run/gpu.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace inferlint::run {

namespace fs = std::filesystem;

std::string nvidia_smi_path() {
    if (const char* env = std::getenv(kNvidiaSmiEnvVar); env && *env) return env;
    std::string found = util::find_program("nvidia-smi");
    return found.empty() ? "/usr/lib/wsl/lib/nvidia-smi" : found;
}

CommandRunner system_runner(double timeout_s) {
    return [timeout_s](const std::vector<std::string>& argv) { return util::run_command(argv, timeout_s); };
}

GpuQuery read_gpus(const CommandRunner& run, const std::string& exe) {
    using util::CommandOutput;
    const std::string fmt_arg(nvidia_smi::kFormat);
    auto query = [&](bool with_cap) {
        std::string fields(nvidia_smi::kBaseFields);
        if (with_cap) fields += "," + std::string(nvidia_smi::kCapField);
        return run({exe, "--query-gpu=" + fields, fmt_arg});
    };
    GpuQuery q;
    CommandOutput out = query(true);
    auto with_cap = nvidia_smi::WithCap::yes;
    // A driver older than 2022 rejects compute_cap; a missing program or a hang is not that.
    bool rejected = out.outcome == CommandOutput::Outcome::exited || out.outcome == CommandOutput::Outcome::signalled;
    if (!out.ok() && rejected) {
        out = query(false);
        with_cap = nvidia_smi::WithCap::no;
    }
    if (!out.ok()) {
        q.why = out.why;
        return q;
    }
    q.gpus = nvidia_smi::parse_gpus(out.out, with_cap);
    if (q.gpus.empty()) q.why = fmt::format("{} printed no GPU", exe);
    return q;
}

std::vector<long long> read_gpu_used_mib(const CommandRunner& run, const std::string& exe) {
    auto out = run({exe, "--query-gpu=memory.used", std::string(nvidia_smi::kFormat)});
    if (!out.ok()) return {};
    auto used = nvidia_smi::parse_used_mib(out.out);
    return used ? *used : std::vector<long long>{};
}

Json gpu_json(const GpuInfo& g) {
    Json j = Json::object();
    j["index"] = g.index;
    j["name"] = g.name;
    j["memory_total_mib"] = or_null(g.memory_total_mib);
    j["memory_used_mib"] = or_null(g.memory_used_mib);
    j["memory_free_mib"] = or_null(g.memory_free_mib);
    j["driver"] = or_null(g.driver);
    j["compute_cap"] = or_null(g.compute_cap);
    j["family"] = or_null(g.family());
    return j;
}

fs::path proc_root() {
    if (const char* env = std::getenv(kProcRootEnvVar); env && *env) return env;
    return "/proc";
}

bool proc_root_is_real(const fs::path& root) { return root.lexically_normal() == fs::path("/proc"); }

CheckResult needs_linux(const std::string& what, const fs::path& root, Json evidence) {
    return CheckResult{"T2", Status::unknown,
                       fmt::format("{} needs Linux: it finds the server's processes in {}. Run it where the "
                                   "server runs.",
                                   what, root.string()),
                       std::move(evidence)};
}

Json readings_json(const ClearResult& res) {
    Json arr = Json::array();
    for (const auto& r : res.readings)
        arr.push_back(Json::array({r.elapsed_s, or_null(r.max_used_mib), r.live_servers}));
    return arr;
}

std::string with_commas(long long v) {
    std::string digits = std::to_string(v < 0 ? -(v + 1) + 1ULL : static_cast<unsigned long long>(v));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

}  // namespace inferlint::run
