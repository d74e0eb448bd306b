// nlohmann documents walked without recursion (internal to parse/). nlohmann's dump() and
// copy constructor take a call a level; a series header may nest as deep as a line may
// (1,024 levels, series_json.hpp), and no input should set how deep the calls go.
#pragma once

#include "inferlint/core/result.hpp"

#include <string>

namespace inferlint::json_walk {

// What value.dump() writes (compact, UTF-8 as it is).
std::string text(const Json& value);

// A copy of value, as Json(value) makes.
Json copy(const Json& value);

}  // namespace inferlint::json_walk
