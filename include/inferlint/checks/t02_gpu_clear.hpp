// T2: is the card clear, or does an orphaned engine process still hold it?
//
// The readings come from run/ (wait_clear polls nvidia-smi and the process table); every
// T2 verdict is built here from them, so gpu-inspect, teardown and xray word it one way.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/nvidia_smi.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::checks {

struct ClearReading {
    double elapsed_s = 0;
    std::optional<long long> max_used_mib;  // nullopt: GPU memory could not be read
    int live_servers = 0;
};

// What waiting for a clear card found: whether it read clear, every reading, and why
// ("2 consecutive clear readings", "not clear after 120s: last reading ...").
struct ClearResult {
    bool clear = false;
    std::vector<ClearReading> readings;
    std::string reason;
};

// [[elapsed_s, max MiB used or null, live server processes], ...]
Json readings_json(const ClearResult& res);

// {index, name, memory_total_mib, memory_used_mib, memory_free_mib, driver, compute_cap, family}
Json gpu_json(const nvidia_smi::GpuInfo& g);

// gpu-inspect: pass when the card read clear; else fail, "card not clear; refusing to
// boot. ...". Evidence {readings, gpus}.
CheckResult check_gpu_clear_to_boot(const ClearResult& wait, const std::vector<nvidia_smi::GpuInfo>& gpus);

// xray's gate before it starts a server: as gpu-inspect, "refusing to start a server".
// Evidence {readings}.
CheckResult check_gpu_clear_to_start_server(const ClearResult& wait);

// teardown: the card after the targets were signalled. Evidence {readings, signalled}.
CheckResult check_gpu_clear_after_teardown(const ClearResult& wait, const std::vector<int>& signalled_pids);

// xray's stop: the card after the server it started was stopped; `left_pids` are the
// server's processes that outlived SIGTERM's grace. Evidence {readings, left_after_the_server_stopped}.
CheckResult check_gpu_clear_after_stop(const ClearResult& wait, const std::vector<int>& left_pids);

// Unknown: finding server processes needs a process table (Linux or WSL) at `proc_root`.
// `what` begins the message ("teardown", "Checking that the GPU is free"). Evidence {},
// or {gpus} for gpu-inspect, which has read the GPUs by then.
CheckResult gpu_clear_needs_linux(std::string_view what, std::string_view proc_root);
CheckResult gpu_clear_needs_linux(std::string_view what, std::string_view proc_root,
                                  const std::vector<nvidia_smi::GpuInfo>& gpus);

}  // namespace inferlint::checks
