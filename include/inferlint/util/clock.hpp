// The wall clock, read at the edges (the report's "made at" line).
#pragma once

#include <string>

namespace inferlint::util {

// "2026-12-01 15:02 UTC": the local time now, to the minute, with its zone.
std::string local_time_text();

}  // namespace inferlint::util
