// The wall clock, read at the edges (the report's "made at" line).
#pragma once

#include <string>
#include <string_view>

namespace inferlint::util {

// "2026-12-01 15:02 UTC": the local time now, to the minute, with its zone.
std::string local_time_text();

}  // namespace inferlint::util

namespace inferlint::util {

// A moment as users give one: Unix seconds ("1764624000", "1764624000.25") or RFC 3339
// ("2026-12-01T21:00:00Z", "2026-12-01T21:00:00.5+01:00"); seconds since the epoch.
// Throws InputError "OPTION: ..." for anything else.
double parse_moment(std::string_view text, std::string_view option);

// Seconds since the epoch now.
double epoch_now();

}  // namespace inferlint::util
