// The edge where a run's files become its typed evidence (checks/suite.hpp). Every
// loader throws InputError naming the file (and the line, where one is at fault) for a
// missing, empty, truncated, binary or wrong-schema file; nothing half-read goes on.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/model_config.hpp"
#include "inferlint/parse/series.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inferlint::run {

namespace fs = std::filesystem;

// Asked once an input has said which engine wrote it (nullptr: it does not say), with
// the name to give it in a message; false refuses the input.
using AcceptEngine = std::function<bool(const Engine* found, const std::string& what)>;

// One boot log, read in pieces: its facts, its failure, and (when `boot_s` is given) the
// seconds from its first stamped line to its ready line, with the config.json of the model
// folder it names when that is here (model_config_named_in). nullopt when `accept` refused it.
std::optional<checks::BootStart> read_boot_start(const fs::path& path, std::string label, const Engine* named,
                                                 const AcceptEngine& accept = {},
                                                 std::optional<double>* boot_s = nullptr);

// The model's config.json for T17: PATH itself, or PATH/config.json for a model folder.
// Throws InputError naming the file when it is missing, unreadable or not a JSON object.
parse::ModelConfig read_model_config(const fs::path& path);

// The config.json of the local model folder a start's arguments name (vLLM's model,
// SGLang's model_path, TensorRT-LLM's model), when that folder is on this machine; a file
// that cannot be read is kept with its problem, never thrown. nullopt when there is none.
std::optional<parse::ModelConfig> model_config_named_in(const parse::BootFacts& facts);

// Several boot logs, labelled with short distinct names (parse::log_labels); nullopt as
// soon as `accept` refuses one.
std::optional<std::vector<checks::BootStart>> read_boot_starts(const std::vector<fs::path>& paths, const Engine* named,
                                                               const AcceptEngine& accept = {});

// The files of one run, as named or found in a run folder.
struct RunFileSet {
    std::vector<fs::path> boot_logs;
    std::optional<fs::path> before, after, series, bench, load_log;
    std::optional<fs::path> gpu;  // xray's gpu.jsonl (T19)
};

struct LoadedRun {
    checks::RunEvidence evidence;
    std::optional<Series> series;  // the whole recording, for the charts
    std::optional<double> boot_s;  // the first log: first stamped line to ready
    // What each input says about its engine (nullptr: nothing), with its name.
    std::vector<std::pair<const Engine*, std::string>> engines;
    // Lines for stderr about what was read around ("note: F: skipped 1 line that is not
    // JSON"): a recording cut mid-line is read as the shorter recording it is, and said.
    std::vector<std::string> notes;
};

// "F came from vLLM, but G came from SGLang: the files are from different runs" when two of
// a run's inputs name different engines (LoadedRun::engines); nullopt when they agree.
std::optional<std::string> mixed_engines(const std::vector<std::pair<const Engine*, std::string>>& engines);

// Reads the snapshots, the recording, the boot logs (engines first, from each log's head,
// so another engine's log is refused before it is read whole), the load tool's result and
// what its console output says of untimed requests. nullopt when `accept` refused an input.
std::optional<LoadedRun> load_run(const RunFileSet& files, const Engine* named, const AcceptEngine& accept = {});

}  // namespace inferlint::run
