// The GPUs as nvidia-smi reports them, and the pieces gpu-inspect and teardown share:
// reading GPU memory and finding /proc. The T2 verdicts are checks/t02_gpu_clear.hpp's.
#pragma once

#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/parse/nvidia_smi.hpp"
#include "inferlint/run/teardown.hpp"
#include "inferlint/util/subprocess.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace inferlint::run {

using nvidia_smi::GpuInfo;

// Where nvidia-smi is: $INFERLINT_NVIDIA_SMI (for tests, and machines that keep it
// elsewhere), else the first on PATH, else WSL's usual place.
inline constexpr const char* kNvidiaSmiEnvVar = "INFERLINT_NVIDIA_SMI";
std::string nvidia_smi_path();

// Runs a command with its argv; the seam tests replace.
using CommandRunner = std::function<util::CommandOutput(const std::vector<std::string>& argv)>;
CommandRunner system_runner(double timeout_s = 30.0);

struct GpuQuery {
    std::vector<GpuInfo> gpus;
    std::string why;  // when gpus is empty: what went wrong, for the message
};

// Every GPU nvidia-smi reports. An older driver that refuses the compute_cap field is
// asked again without it. Missing, failing or babbling nvidia-smi: no GPUs, and why.
GpuQuery read_gpus(const CommandRunner& run, const std::string& exe);

// MiB used per GPU; empty when nvidia-smi is missing, failed, or printed anything but numbers.
std::vector<long long> read_gpu_used_mib(const CommandRunner& run, const std::string& exe);

// {index, name, memory_total_mib, memory_used_mib, memory_free_mib, driver, compute_cap, family}
using checks::gpu_json;

// The process table's root: $INFERLINT_PROC_ROOT (tests point it at a synthetic tree),
// else /proc. Teardown signals only when it is the real /proc.
inline constexpr const char* kProcRootEnvVar = "INFERLINT_PROC_ROOT";
std::filesystem::path proc_root();
bool proc_root_is_real(const std::filesystem::path& root);

}  // namespace inferlint::run
