// Shared by the comparison's sources in src/checks; not a public header.
#pragma once

#include "inferlint/checks/compare.hpp"

namespace inferlint::checks::compare_detail {

// C4 load, C5 shapes, C6 tripwires failed in a run, C7 runs that did not complete, C8 the
// arms' failed shares (compare_failed_share.cpp).
std::vector<ComparisonResult> load_checks(const Arm& a, const Arm& b);

// C8: each arm's failed share, pooled over its completed runs' T20 counts.
ComparisonResult failed_share_check(const Arm& a, const Arm& b);

std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");

}  // namespace inferlint::checks::compare_detail
