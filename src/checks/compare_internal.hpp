// Shared by the comparison's sources in src/checks; not a public header.
#pragma once

#include "inferlint/checks/compare.hpp"

namespace inferlint::checks::compare_detail {

// C4 load, C5 shapes, C6 tripwires failed in a run, C7 runs that did not complete.
std::vector<ComparisonResult> load_checks(const Arm& a, const Arm& b);

std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");

}  // namespace inferlint::checks::compare_detail
