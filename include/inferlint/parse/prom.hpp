// Prometheus text exposition, for the subset inference servers emit (port of prom.py).
//
// An absent series is reported as absent (std::nullopt), never as 0.0. Samples keep all
// their labels; callers select by label subset, so two engines' series never collide.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace inferlint::prom {

using Labels = std::vector<std::pair<std::string, std::string>>;  // sorted by key

struct Sample {
    std::string name;
    Labels labels;
    double value = 0.0;

    // The label's value, or nullopt.
    std::optional<std::string_view> label(std::string_view key) const;
};

// A selection: every listed label must be present with that value.
using LabelFilter = std::vector<std::pair<std::string, std::string>>;

class Metrics {
public:
    Metrics() = default;
    explicit Metrics(std::vector<Sample> samples);

    const std::vector<Sample>& samples() const { return samples_; }
    std::size_t size() const { return samples_.size(); }
    std::vector<std::string> names() const;  // distinct names, sorted
    bool has(std::string_view name) const;

    std::vector<const Sample*> select(std::string_view name, const LabelFilter& labels = {}) const;
    // Sum over matching series (right for counters and count-like gauges); nullopt if none match.
    std::optional<double> total(std::string_view name, const LabelFilter& labels = {}) const;
    // The value of exactly one matching series; nullopt if none; throws std::runtime_error
    // naming the label sets when more than one matches.
    std::optional<double> single(std::string_view name, const LabelFilter& labels = {}) const;
    // Labels of an *_info series (its value is always 1); nullopt if absent.
    std::optional<std::map<std::string, std::string>> info(std::string_view name, const LabelFilter& labels = {}) const;
    std::vector<const Sample*> with_prefix(std::string_view prefix) const;

private:
    std::vector<Sample> samples_;
    std::unordered_map<std::string, std::vector<std::size_t>> by_name_;
};

// Where and why a text did not parse.
struct ParseError {
    std::size_t lineno = 0;
    std::string what;  // "not a Prometheus sample: '...'" / "malformed label set: {...}"
};

// Metric names to keep of a parse: the rest are checked and dropped.
using NameFilter = std::vector<std::string>;

// Parses the exposition. On a malformed sample line, returns false and fills `error`.
// `only`: keep only the samples of these names; every line is still checked, so the
// text is refused exactly as without it (a watch tick keeps ten of 400 samples, and
// does not pay for building the rest).
bool parse(std::string_view text, Metrics& out, ParseError& error, const NameFilter* only = nullptr);

// Parses or throws InputError "<source>: line N: ..." (source: a file name or URL).
Metrics parse_or_throw(std::string_view text, std::string_view source, const NameFilter* only = nullptr);

// Prometheus number text: decimals, exponents, NaN, +Inf, -Inf (any case).
std::optional<double> parse_value(std::string_view text);

}  // namespace inferlint::prom
