// xray's GPU recording for T19: nvidia-smi's memory used per GPU and its compute processes,
// with the server's process tree, at a slow fixed cadence while the load runs, one line a
// reading in gpu.jsonl (parse/gpu_record.hpp has the format).
#pragma once

#include "inferlint/parse/gpu_record.hpp"
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/watch.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace inferlint::run {

struct GpuRecordOptions {
    double interval_s = 5.0;  // slow: nvidia-smi costs tens of ms of a busy host
};

// One reading: both queries. A query that fails, hangs past the runner's timeout or prints
// anything but its fields gives a reading with `error` (T19 then cannot pass on it).
parse::GpuSample read_gpu_sample(const CommandRunner& run, const std::string& exe);

// The pids of `root` and every process under it in the process table at proc_root.
std::vector<long long> process_tree(const std::filesystem::path& proc_root, int root);

// The pids of every process under each of `roots` (a fleet's servers), `roots` included.
std::vector<long long> process_trees(const std::filesystem::path& proc_root, const std::vector<int>& roots);

// The run folder's gpu.jsonl read back; nullopt when there is none, or it has no header.
std::optional<parse::GpuRecording> read_gpu_recording(const std::filesystem::path& folder);

// Writes the header, a reading at once, one every interval until `stop`, and a last one
// when stopped, so a load of any length has a reading at each end.
void record_gpus(std::ostream& out, const GpuRecordOptions& options, const std::atomic<bool>& stop,
                 const CommandRunner& run, const std::string& exe,
                 const std::function<std::vector<long long>()>& server_pids,
                 const WatchClock& clock = system_watch_clock());

}  // namespace inferlint::run
