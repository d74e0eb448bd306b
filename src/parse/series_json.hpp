// Reading through a JSON value that a series line does not keep (internal to parse/, for
// series_line.cpp, which alone includes simdjson's header through this one).
#pragma once

#include <simdjson.h>

namespace inferlint::series_json {

// How deep a value may nest, as simdjson's parsers allow: a line nested deeper is skipped.
inline constexpr int kMaxDepth = 1024;

// Reads v all the way through, so that a malformed value is seen; false: it is not JSON,
// or nests deeper than kMaxDepth. depth: v's own level (a field of the line's object is at 1).
bool validate(simdjson::ondemand::value v, int depth);

}  // namespace inferlint::series_json
