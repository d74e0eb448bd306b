// The one path from a run's files to its verdicts. `inferlint report DIR` and xray both
// judge a run here, so a run folder checked again later gives what xray said, in the same
// order, with the same words.
//
//   files --(load_run)--> RunEvidence (+ the live record) --(check_run)--> RunVerdicts
//
// xray only acts and records: the run folder's files, plus `live.json`, the few things a
// file of the run cannot tell afterwards (the card's T2 readings, the probe's T7, the
// concurrency the load command asked for, why its prompts were unique, the version the
// server reported over HTTP, which file is the load tool's result).
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/run/loader.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::run {

inline constexpr const char* kLiveSchema = "inferlint.live/1";
inline constexpr const char* kLiveFile = "live.json";

// A fleet's run, as xray recorded it: its replicas in the plan's order (each folder an
// ordinary run folder under the run's), and the window its gauges were recorded over.
struct FleetRecord {
    struct Replica {
        std::string name, url, folder;
    };
    std::vector<Replica> replicas;
    double start_s = 0, end_s = 0;  // the recording's window, wall clock (s since the epoch)
    double step_s = 0;              // its interval
};

struct LiveRecord {
    // Verdicts only a running server gives, in the order they were made: T2 at the card
    // (the gate before the start, then the teardown's), T7 from the probe.
    std::vector<CheckResult> verdicts;
    std::optional<long long> requested;         // the load command's concurrency, or xray's --requested
    std::optional<std::string> unique_prompts;  // why the load's prompts were meant to be unique (T16)
    std::optional<std::string> server_version;  // reported over HTTP, for a log that prints none
    // The load tool's result, as a file name in the run folder; nullopt: none was read.
    std::optional<std::string> bench_result;
    std::optional<double> max_failed_share;  // xray's --max-failed-share, as a fraction (T20)
    // A fleet's replica: why its metrics could not be read after the load.
    std::optional<std::string> after_missing;
    // A fleet's run folder: its replicas and window (each replica's folder has its own record).
    std::optional<FleetRecord> fleet;
};

// live.json in `folder`, written whole (util::write_file). Throws util::WriteError.
void write_live_record(const std::filesystem::path& folder, const LiveRecord& record);

// live.json in `folder`; nullopt when there is none. Throws InputError naming the file when
// it is empty, not JSON, another schema, or a field has the wrong type.
std::optional<LiveRecord> read_live_record(const std::filesystem::path& folder);

struct JudgeInput {
    RunFileSet files;
    const Engine* named = nullptr;
    AcceptEngine accept;
    std::optional<checks::Requested> requested;  // the user's --requested: wins over the record's
    std::optional<std::string> unique_prompts;   // the user's --unique-prompts: wins over the record's
    std::optional<LiveRecord> live;
    // The user's --max-failed-share (a fraction), else the record's: T20 warns at or under it.
    std::optional<double> max_failed_share;
};

// A run folder as `report DIR` reads it: its files found by name (run_folder.hpp's
// find_run_files) and the live record xray left there, whose load result (or none) wins
// over a file found by name. Throws InputError for a live record that cannot be read.
JudgeInput folder_input(const std::filesystem::path& folder);

// The run's files read (load_run), the live record laid over them, and every verdict the
// evidence allows (check_run). The concurrency asked for is the user's, else the record's,
// else the load tool's result's. nullopt when `accept` refused an input; InputError for a
// file that cannot be read.
std::optional<LoadedRun> load_judged(const JudgeInput& in, checks::RunVerdicts& verdicts);

}  // namespace inferlint::run
