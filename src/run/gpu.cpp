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

fs::path proc_root() {
    if (const char* env = std::getenv(kProcRootEnvVar); env && *env) return env;
    return "/proc";
}

bool proc_root_is_real(const fs::path& root) { return root.lexically_normal() == fs::path("/proc"); }

}  // namespace inferlint::run
