// The comparison's page: one offline HTML document in the run report's frame (light and
// dark, the same escaping), with each figure's runs and the intervals of the differences
// drawn as inline SVG, each chart with its data table. A pure render.
#pragma once

#include "inferlint/checks/compare.hpp"

#include <string>

namespace inferlint::report {

// `generated`: the local time the page was made (the render reads no clock).
std::string render_compare_html(const checks::Comparison& comparison, const std::string& generated);

}  // namespace inferlint::report
