// One line of a series recording read with simdjson's On-Demand API (internal to parse/).
// simdjson's header stays in series_line.cpp: this one only names what a line read as.
#pragma once

#include "inferlint/parse/series.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace inferlint::series_line {

enum class LineKind {
    skip,    // not a JSON object (or an odd line): skipped and counted
    header,  // an object with "schema" that is not a plain sample line: read with nlohmann
    sample,  // a sample
    bad,     // a JSON object of the wrong shape; error says which field
};

struct LineRead {
    LineKind kind = LineKind::skip;
    SeriesSample sample;
    std::string error;
};

// What "schema" in a line means: a header (the file reader), or nothing (one line read
// as a sample, parse_sample_line).
enum class SchemaKey { header, ignored };

// Holds the parser and a padded copy of the line (simdjson reads past a document's end),
// so one reader reads any number of lines without allocating.
class LineReader {
public:
    LineReader();
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // text: one line, already trimmed and not empty.
    LineRead read(std::string_view text, SchemaKey schema = SchemaKey::header);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace inferlint::series_line
