// What the load-result readers share (internal to parse/): Python's JSON read leniently,
// fields looked up by dotted path with errors that name the file, units turned into
// milliseconds, and one way of checking counts and latencies.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/load_result.hpp"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace inferlint::loadjson {

// Python's json writes NaN and +-Infinity bare. Outside strings, infinities become marker
// strings that infinity_marker() reads back and NaN becomes null (unmeasured is absent).
std::string accept_nonfinite(std::string_view text);
std::optional<double> infinity_marker(const Json& v);
// nlohmann's message, one short line.
std::string parse_problem(const std::exception& e);
const char* json_type(const Json& v);

// The whole (lenient) text as one JSON value, or nullopt.
std::optional<Json> try_document(std::string_view text);
// Every non-blank line a JSON object, at least one; nullopt otherwise.
std::optional<std::vector<Json>> try_lines(std::string_view text);
// Block YAML (load_yaml.cpp: the subset GuideLLM and inference-perf write) as the JSON
// value its JSON form would be; nullopt when it is not that subset or not a mapping.
std::optional<Json> try_yaml(std::string_view text);
// What a text no reader took looked like, for the one-line error.
std::string describe(std::string_view text);

// Fields of one document, read with errors that name the source.
class Fields {
public:
    explicit Fields(std::string source) : source_(std::move(source)) {}
    const std::string& source() const { return source_; }
    [[noreturn]] void fail(const std::string& what) const;

    // "a.b.0.c": object keys and list indexes; nullptr when absent or null.
    static const Json* at(const Json& doc, std::string_view dotted);
    std::optional<double> number(const Json& doc, std::string_view dotted) const;
    // A count: a non-negative number, truncated as Python's int() does.
    std::optional<long long> count(const Json& doc, std::string_view dotted) const;
    std::optional<std::string> text(const Json& doc, std::string_view dotted) const;
    // A latency in the file's unit times `to_ms`: refused when negative.
    std::optional<double> latency(const Json& doc, std::string_view dotted, double to_ms) const;
    // {mean, p50, p90, p95, p99, max} under `obj`, each key dotted ("" = not written).
    LatencyStats stats(const Json& obj, const std::array<std::string_view, 6>& keys, double to_ms) const;
    // How many milliseconds one of `unit` is: ms, s/sec, us, ns; InputError otherwise.
    double unit_to_ms(std::string_view unit, std::string_view key) const;

    // A key of the document and the field of a LoadResult it fills: a count, a number or a
    // text, by the field's type.
    struct Take {
        std::string_view key;
        std::variant<std::optional<long long> LoadResult::*, std::optional<double> LoadResult::*,
                     std::optional<std::string> LoadResult::*>
            into;
    };
    // Each key read into its field, in order (the first that is wrong fails).
    void take(const Json& doc, LoadResult& r, std::initializer_list<Take> takes) const;
    // A result of `tool` read from this source: path and tool set, nothing else.
    LoadResult result(std::string tool) const;

private:
    std::string source_;
};

// Refuses a per-request record with a negative or NaN latency or count (the lists' lengths
// agreeing is the reader's job).
void check_record(const Fields& f, const RequestRecord& r, std::size_t index);

// The latency blocks a tool writes, each by its key (nullptr: not written).
struct LatencyKeys {
    const char* ttft = nullptr;
    const char* tpot = nullptr;
    const char* itl = nullptr;
    const char* e2e = nullptr;
    const char* norm_tpot = nullptr;
};
// Each block named read by `stats(key)`, in that order; the others are left as they are.
template <class Stats>
void read_latencies(LoadResult& r, const LatencyKeys& keys, Stats&& stats) {
    auto one = [&](LatencyStats& into, const char* key) {
        if (key) into = stats(key);
    };
    one(r.ttft_ms, keys.ttft);
    one(r.tpot_ms, keys.tpot);
    one(r.itl_ms, keys.itl);
    one(r.e2e_ms, keys.e2e);
    one(r.norm_tpot_ms, keys.norm_tpot);
}

// What a tool names a request's fields, in a record that holds them flat (seconds and
// counts); nullptr where it has no such field.
struct RequestKeys {
    const char* start_s;
    const char* first_token_s;
    const char* end_s;
    const char* input_tokens;
    const char* output_tokens;
    const char* stream_chunks = nullptr;
    const char* error = nullptr;
};
// Request `index` read by those names, and checked (check_record).
RequestRecord request_by_keys(const Json& q, const Fields& f, std::size_t index, const RequestKeys& keys);

}  // namespace inferlint::loadjson
