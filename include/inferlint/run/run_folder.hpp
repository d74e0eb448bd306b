// A run folder's files, found by name (as xray writes them), for `report RUN_FOLDER`.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace inferlint::run {

struct RunFiles {
    std::optional<std::filesystem::path> boot_log;  // boot.log, else the first *boot*.log
    std::optional<std::filesystem::path> before;    // before.snapshot.json, else *before*.json
    std::optional<std::filesystem::path> after;     // after.snapshot.json, else *after*.json
    std::optional<std::filesystem::path> series;    // run.series.jsonl, else *.series.jsonl
    std::optional<std::filesystem::path> bench;     // see find_bench_result
    std::optional<std::filesystem::path> load_log;  // load.log: the load tool's console output
    std::optional<std::filesystem::path> gpu;       // gpu.jsonl: xray's nvidia-smi readings (T19)
};

// gpu.jsonl when the folder has it.
std::optional<std::filesystem::path> gpu_recording_in(const std::filesystem::path& folder);

// Each name when the folder has it, else the first file (by name) matching its pattern.
RunFiles find_run_files(const std::filesystem::path& folder);

// The load tool's result file: bench.json or bench.jsonl, else the first other *.json or
// *.jsonl (not a snapshot, recording or results.json) that reads as a load tool's result
// with both counts.
std::optional<std::filesystem::path> find_bench_result(const std::filesystem::path& folder);

// The replicas' folders of a fleet's xray run folder (its results.json's plan.replicas),
// as paths under `folder`; empty for any other folder (or a results.json that cannot be read).
std::vector<std::filesystem::path> fleet_replica_folders(const std::filesystem::path& folder);

// Shell-style match with '*' only; a leading '*' does not match a leading dot, as glob.
bool name_matches(std::string_view name, std::string_view pattern);

}  // namespace inferlint::run
