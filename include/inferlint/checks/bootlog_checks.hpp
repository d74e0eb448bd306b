// The tripwires read from server boot logs (port of the log parts of checks.py):
// T4, T5, T6, T11, and T7/T12 from the failure classifier. Each is a pure function of
// parsed facts; none throws on a finding.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inferlint::checks {

// T7/T12: did the server die, when and why. A failure after the ready line is T7 (phase
// serving): a config that boots and dies on its first request. No failure: T12 pass.
CheckResult check_boot_failure(const std::optional<parse::Failure>& failure);

// T5: the attention block size forced above the requested one (hybrid models), or the
// page size SGLang/TensorRT-LLM set.
CheckResult check_block_size(const parse::BootFacts& facts, long long default_block = 16);

// T6: the requested attention backend, honoured by the target model and the drafter.
CheckResult check_backend_honoured(const parse::BootFacts& facts);

// The log line that states what a start was asked for, per engine ("vllm", "sglang",
// "trtllm"), and how to get it printed: what a Can't tell names when the line is missing.
std::string missing_args_line(const std::optional<std::string>& engine);

// T12 unknown when lines were recognised but could not be read (a format change);
// nullopt when every recognised line was read.
std::optional<CheckResult> check_unparsed(const parse::BootFacts& facts);

// T4: starts with identical configuration that drew different KV pools. One result per
// group of two or more starts with the same configuration; failed starts are left out.
std::vector<CheckResult> check_same_pool(const std::vector<parse::BootFacts>& facts,
                                         const std::vector<std::string>& labels);

// T11: the memory left for the KV cache differed between starts of one configuration.
std::vector<CheckResult> check_kv_memory_stable(const std::vector<parse::BootFacts>& facts,
                                                const std::vector<std::string>& labels);

// Starts that came up, grouped by identical configuration (groups of two or more, in
// first-seen order), and the labels of those left out (not ready, or no arguments line).
struct StartGroups {
    std::vector<std::vector<std::pair<std::string, const parse::BootFacts*>>> groups;
    std::vector<std::string> not_compared;
};
StartGroups group_starts(const std::vector<parse::BootFacts>& facts, const std::vector<std::string>& labels);

}  // namespace inferlint::checks
