// T22's advisory table: engine bugs that change a benchmark's answers or its limits, known
// by engine, version range and the configuration that triggers them. Adding a bug is
// adding a row to known_engine_bugs() (src/core/known_bugs.cpp); the check
// (checks/t22_known_engine_bug.hpp) and `explain T22` read the same rows.
#pragma once

#include "inferlint/core/engines.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace inferlint {

// A setting a row needs: on, off, or either.
enum class BugNeeds { either, on, off };

struct KnownBug {
    std::string_view key;  // "vllm-mtp-hybrid-v1": for evidence and tests
    EngineId engine;
    // The versions it affects: from `from_version` (inclusive; empty: every earlier one)
    // up to `before_version` (exclusive; empty: every later one), as numbers ("0.30").
    std::string_view from_version;
    std::string_view before_version;
    std::string_view versions_words;  // the range in words when both ends are set ("0.5.20")
    // The configuration it needs, each read from the boot log's settings.
    std::string_view speculative_method;  // "mtp", "ngram"; empty: any, or none
    BugNeeds hybrid_model = BugNeeds::either;
    BugNeeds prefix_cache = BugNeeds::either;
    BugNeeds v1_model_runner = BugNeeds::either;
    std::string_view configuration;  // the same, in words, for messages and `explain`
    std::string_view effect;
    std::string_view fix;
    std::string_view source;
};

// Every known bug, one row each.
const std::vector<KnownBug>& known_engine_bugs();

// "vLLM before 0.30", "SGLang 0.5.20", "vLLM 0.30 and later": a row's versions in words.
std::string bug_versions_text(const KnownBug& bug);

// Numeric comparison of two version texts ("0.5.20" > "0.5.3"; "0.30" == "0.30.0"); a part
// that is not a number ends the comparison there ("0.19dev" reads as 0.19). -1, 0 or 1.
int compare_versions(std::string_view a, std::string_view b);

// Whether `version` lies in the row's range.
bool version_in_range(const KnownBug& bug, std::string_view version);

// The rows as `explain T22` lists them: one paragraph each.
std::string known_bugs_text();

}  // namespace inferlint
