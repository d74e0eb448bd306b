// One line of a series recording read with simdjson's On-Demand API (internal to parse/).
// simdjson's header stays out of this one (series_line.cpp and series_json.hpp include it):
// it only names what a line read as.
#pragma once

#include "inferlint/parse/series.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace inferlint::series_line {

// simdjson reads up to this many bytes past a document's end; what they hold does not
// change what it reads (series_line.cpp checks that this is simdjson::SIMDJSON_PADDING).
inline constexpr std::size_t kPadding = 64;

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

// Holds the parser (and a padded copy of a line for read()), so one reader reads any
// number of lines without allocating.
class LineReader {
public:
    LineReader();
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // text: one line, already trimmed and not empty. Copied into padded memory first.
    LineRead read(std::string_view text, SchemaKey schema = SchemaKey::header);
    // The same, read where it lies: kPadding readable bytes must follow text in memory
    // (the rest of the file's block, then the block's padding). line_end: where the line
    // ends (its newline), past the white space trimmed off text; nullptr: text's end.
    // The read stays until the next one; its sample means something when kind is sample.
    const LineRead& read_in_place(std::string_view text, const char* line_end = nullptr,
                                  SchemaKey schema = SchemaKey::header);

    // Whole lines of a file, followed in memory by kPadding readable bytes: read_in_place
    // takes each of them, in order, from one simdjson document stream over the block (stage
    // 1 once a block, not once a line), and reads a line alone where the stream would not
    // read it as the line alone. Until end_block, only this block's lines may be read.
    void begin_block(std::string_view block);
    void end_block();

private:
    LineRead& fresh_line();
    void parse(std::string_view text, std::size_t allocated, bool bom, SchemaKey schema, LineRead& out);
    bool from_stream(std::string_view text, const char* line_end, SchemaKey schema, LineRead& out);
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace inferlint::series_line
