// What prometheus.cpp and prometheus_fleet.cpp share: the selector's pieces, a moment as
// the API takes it, and one GET of the API that names Prometheus and the query in errors.
#pragma once

#include "inferlint/run/prometheus.hpp"

#include <string>
#include <string_view>

namespace inferlint::run::detail {

std::string prom_escape(std::string_view s);
// The matchers inside the selector's braces: '{job="x"}' -> 'job="x"' (InputError without braces).
std::string prom_matchers(const std::string& selector);
// Matchers joined inside braces: {more,inner}.
std::string prom_with(const std::string& inner, const std::string& more);
std::string prom_label_matcher(const std::string& key, const std::string& value);
std::string prom_moment_text(double t);
// The body of a JSON answer to one API path, or InputError naming Prometheus and `what`.
std::string prom_get(const PromSource& src, const std::string& path_query, const std::string& what);
// InputError when the answer carries warnings (a partial answer).
void refuse_partial(const parse::PromAnswer& a, const std::string& source);

}  // namespace inferlint::run::detail
