// T19 and T2 on a cluster: NVIDIA's DCGM exporter read back from Prometheus
// (parse/dcgm.hpp has the series; checks/dcgm_gpu.hpp the verdicts).
#pragma once

#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/dcgm.hpp"
#include "inferlint/run/prometheus.hpp"

#include <string>
#include <vector>

namespace inferlint::run {

// T19 for a fleet's window: the GPUs DCGM maps the replicas' pods to
// (DCGM_FI_DEV_FB_USED{pod=~"..."}, or exported_pod), then every pod on those GPUs and their
// memory used every step of the window. Can't tell when the replicas are not told by pod
// (no `pod` label: no way to find their GPUs) or the query finds nothing, naming it.
// InputError (one line) when Prometheus is down, hangs or answers garbage.
CheckResult dcgm_gpu_shared(const PromSource& src, const FleetWindow& fleet,
                            long long growth_threshold_mib = checks::kGpuSharedGrowthMib);

// One Kubernetes node's GPUs at `at`: DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE with
// Hostname="node" ("" : every node the selector matches). `why` says which query found
// nothing when `used` is empty.
struct DcgmNode {
    std::vector<parse::DcgmReading> used, free;
    std::string why;
};
DcgmNode read_dcgm_node(const PromSource& src, const std::string& node, double at);

}  // namespace inferlint::run
