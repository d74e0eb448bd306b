// T19: another tenant on the server's GPUs during the run. A process outside the server's
// process tree holding memory on its GPUs, or memory used outside the server growing, means
// the server was measured on a card it did not have to itself (a revived 50 GB service left
// a control server a tenth of its KV capacity).
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/gpu_record.hpp"

#include <map>
#include <string>
#include <vector>

namespace inferlint::checks {

// Growth of the memory used outside the server, per GPU, above which T19 fails.
inline constexpr long long kGpuSharedGrowthMib = 1024;

// `recording`: xray's gpu.jsonl; `server_pids`: the boot log's processes (BootFacts::processes),
// added to each reading's own record of the server's tree. FAIL naming the process (pid, name,
// MiB) or the growth; PASS when at least two readings show neither; unknown when nvidia-smi
// gave fewer than two readings (missing, hanging, garbage), or memory it could not attribute.
CheckResult check_gpu_shared(const parse::GpuRecording& recording, const std::vector<long long>& server_pids,
                             long long growth_threshold_mib = kGpuSharedGrowthMib);

// The pids of a boot log's processes ("EngineCore" -> pids), flattened.
std::vector<long long> server_pids_of(const std::map<std::string, std::vector<long long>>& processes);

}  // namespace inferlint::checks
