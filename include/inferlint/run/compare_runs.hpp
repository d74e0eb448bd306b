// The runs of a comparison's arms, read from their folders through the same loader and
// suite as `report`. A run that did not complete (xray's results.json says so, or a
// snapshot is missing) is kept as a failed run of its arm, with why.
#pragma once

#include "inferlint/checks/compare.hpp"
#include "inferlint/run/loader.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace inferlint::run {

// A folder with xray's results.json or any file `report` finds by name.
bool is_run_folder(const fs::path& folder);

// The run folders a path names: itself when it is one, else its subfolders that are (by
// name). Throws InputError naming the path when it is missing, not a folder, or neither.
std::vector<fs::path> expand_run_folders(const fs::path& path);

// One run folder. Throws InputError naming the file for a file that cannot be read, and
// the folder when its files came from different engines; nullopt when `accept` refused one.
std::optional<checks::ArmRun> read_arm_run(const fs::path& folder, const Engine* named, const AcceptEngine& accept);

// An arm: every run of every path, expanded. Throws InputError for an arm with no run and
// for one whose completed runs came from different engines.
std::optional<checks::Arm> read_arm(const std::string& name, const std::vector<std::string>& paths, const Engine* named,
                                    const AcceptEngine& accept);

}  // namespace inferlint::run
