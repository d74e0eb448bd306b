// T19 and T2 on a cluster: NVIDIA's DCGM exporter (dcgm-exporter) as Prometheus scraped it.
//
// dcgm-exporter writes one series per GPU per field: DCGM_FI_DEV_FB_USED and
// DCGM_FI_DEV_FB_FREE are the GPU's framebuffer memory used and free in MiB
// (etc/default-counters.csv, NVIDIA/dcgm-exporter@00d6d344ea4a39112b211b9ff5af3d97e0bb51c2),
// labelled gpu (the index), UUID, pci_bus_id, device, modelName and Hostname (the exposition
// template of internal/pkg/collector; the UUID label is "uuid" in its 1.x-compatible mode, read
// too) and, where its Kubernetes pod mapping is on, the pod the GPU is given to: pod,
// namespace, container (internal/pkg/transformation/const.go,
// NVIDIA/dcgm-exporter@07c87278a5e18805287ee56cba8abe9eb7a87ced; README.md@00d6d344 shows
// `DCGM_FI_DEV_SM_CLOCK{gpu="0", UUID="GPU-...",container="",namespace="",pod=""} 139`).
// A GPU shared by several pods (time-slicing) is one series per pod, each with the GPU's
// whole figure: DCGM does not split a GPU's memory by process. Scraped by a Prometheus that
// does not honour the exporter's labels, pod and namespace arrive as exported_pod and
// exported_namespace (the target's own pod, the exporter's, takes `pod`); both are read.
#pragma once

#include "inferlint/parse/prom_api.hpp"

#include <optional>
#include <string>
#include <vector>

namespace inferlint::parse {

inline constexpr const char* kDcgmFbUsed = "DCGM_FI_DEV_FB_USED";
inline constexpr const char* kDcgmFbFree = "DCGM_FI_DEV_FB_FREE";

// One reading of one GPU's memory, and the pod it was given to ("" when none).
struct DcgmReading {
    double t = 0;       // seconds since the epoch
    std::string uuid;   // "GPU-..."
    std::string gpu;    // the index on its node, "0"
    std::string host;   // Hostname
    std::string model;  // modelName
    std::string pod;    // exported_pod, else pod; "" when the GPU is given to none
    std::string space;  // its namespace
    std::string container;
    double mib = 0;
};

// The pod label of a DCGM series (exported_pod, else pod), and its namespace likewise.
std::string dcgm_pod_of(const PromSeries& s);
std::string dcgm_namespace_of(const PromSeries& s);

// Every sample of every series in `answer` (an instant or a range answer of one DCGM field)
// as readings, by time then GPU. Samples that are not finite or negative are left out
// (not a reading), and so are series without a UUID label (not dcgm-exporter's).
std::vector<DcgmReading> dcgm_readings(const PromAnswer& answer);

// "namespace/pod", or "pod" without a namespace.
std::string dcgm_pod_words(const DcgmReading& r);
// "GPU 0 (GPU-1a2b...) on node-1".
std::string dcgm_gpu_words(const DcgmReading& r);

}  // namespace inferlint::parse
