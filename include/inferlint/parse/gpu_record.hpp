// T19's evidence: what nvidia-smi says, at a slow fixed cadence during the load, about the
// memory used on each GPU and the compute processes holding it; xray writes it to gpu.jsonl
// in the run folder (run/gpu_record.hpp) and the loader reads it back here.
//
// gpu.jsonl: a header line {"schema": "inferlint.gpu/1", "interval_s": 5}, then one line per
// reading: {"t_s": 0.0, "gpus": [{"index": 0, "uuid": "GPU-...", "used_mib": 812}],
// "apps": [{"pid": 4242, "name": "python3", "used_mib": 51200, "gpu_uuid": "GPU-..."}],
// "server_pids": [3235, 3475]}, or {"t_s": 5.0, "error": "why nvidia-smi gave no reading"}.
#pragma once

#include "inferlint/core/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::parse {

// The query the recorder asks, and its fields in order (`nvidia-smi --help-query-gpu`,
// `--help-query-compute-apps`).
inline constexpr std::string_view kGpuMemoryQuery = "--query-gpu=index,uuid,memory.used";
inline constexpr std::string_view kComputeAppsQuery = "--query-compute-apps=pid,process_name,used_memory,gpu_uuid";

struct GpuMemory {
    int index = 0;
    std::string uuid;
    std::optional<long long> used_mib;
};

struct ComputeApp {
    long long pid = 0;
    std::string name;
    std::optional<long long> used_mib;  // "[N/A]" on some drivers (WSL, MIG): not a reading
    std::string gpu_uuid;
};

// `nvidia-smi --query-gpu=index,uuid,memory.used --format=csv,noheader,nounits`: nullopt when a
// line is not three fields with a whole index, or there is no line (a reading of nothing).
std::optional<std::vector<GpuMemory>> parse_gpu_memory(std::string_view text);

// `... --query-compute-apps=pid,process_name,used_memory,gpu_uuid ...`: none is a valid answer
// (no process on any GPU); nullopt when a line is not pid, name, MiB and uuid.
std::optional<std::vector<ComputeApp>> parse_compute_apps(std::string_view text);

struct GpuSample {
    double t_s = 0;  // seconds since the recording began
    std::vector<GpuMemory> gpus;
    std::vector<ComputeApp> apps;
    std::vector<long long> server_pids;  // the server's process tree at this reading
    std::optional<std::string> error;    // no reading: why
};

struct GpuRecording {
    std::optional<double> interval_s;
    std::vector<GpuSample> samples;
    long long skipped_lines = 0;  // not JSON, or not a reading (a line cut by a crash)
};

Json gpu_header_json(double interval_s);
Json gpu_sample_json(const GpuSample& s);

// Reads gpu.jsonl. Lines that are not a reading are skipped and counted; a file with no
// header is not a GPU recording (nullopt).
std::optional<GpuRecording> parse_gpu_recording(std::string_view text);

}  // namespace inferlint::parse
