// T19 and T2 on a cluster, from NVIDIA's DCGM exporter through Prometheus (parse/dcgm.hpp):
// where inferlint cannot see the node's processes, the pods DCGM maps each GPU to, and the
// GPU's memory used, stand in for nvidia-smi's compute processes.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/dcgm.hpp"

#include <string>
#include <vector>

namespace inferlint::checks {

// T19 over a window. `readings`: DCGM_FI_DEV_FB_USED over the window on the GPUs any of
// `server_pods` was given (every pod mapped to them); `query`: the query that read them,
// for the message. FAIL when another pod is mapped to one of the server's GPUs during the
// window (named: namespace/pod, the GPU, its memory used then), or when a GPU's memory used
// grows by more than `growth_threshold_mib` over its first reading in the window (the
// server's own memory is allocated at boot, before the window; DCGM cannot say whose the
// growth is, so the message says the growth). PASS with two readings or more of every GPU
// and neither; Can't tell when no reading is one of the server's pods, or under two
// readings.
CheckResult check_gpu_shared_dcgm(const std::vector<parse::DcgmReading>& readings,
                                  const std::vector<std::string>& server_pods, const std::string& query,
                                  long long growth_threshold_mib);

// T2 for a Kubernetes node at one moment: `used` (DCGM_FI_DEV_FB_USED on the node's GPUs, one
// reading per GPU and pod). PASS when every GPU is at or under `max_used_mib` and no pod is
// mapped to it; FAIL naming each GPU over it and the pods that hold it; Can't tell without a
// reading (`why`). Evidence {gpus: [{gpu, uuid, host, used_mib, free_mib, pods}]}.
CheckResult check_gpu_clear_dcgm(const std::vector<parse::DcgmReading>& used,
                                 const std::vector<parse::DcgmReading>& free, long long max_used_mib,
                                 const std::string& why);

}  // namespace inferlint::checks
