// T22: a known engine bug for this version and setting. Each start's boot log gives the
// engine, its version and the settings the advisory table's rows need (core/known_bugs.hpp);
// a start that matches a row warns with the bug's effect and what to do.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"

#include <optional>
#include <string>

namespace inferlint::checks {

// What the rows are matched on, read from one start's facts in one place
// (known_bug_facts), so typed boot-log fields can replace the argument lookups there.
// nullopt: the log does not say.
struct KnownBugFacts {
    std::optional<EngineId> engine;
    std::optional<std::string> version;
    std::optional<std::string> speculative_method;  // "none" when speculative decoding is off
    std::optional<bool> hybrid_model;               // Mamba / linear-attention layers
    std::optional<bool> prefix_cache;
    std::optional<bool> v1_model_runner;
};

KnownBugFacts known_bug_facts(const parse::BootFacts& facts);

// WARN naming each matching row's effect and fix; PASS when no row can match; unknown
// when a row could match but the version or one of its settings is not in the log.
CheckResult check_known_engine_bug(const KnownBugFacts& facts);
CheckResult check_known_engine_bug(const parse::BootFacts& facts);

}  // namespace inferlint::checks
