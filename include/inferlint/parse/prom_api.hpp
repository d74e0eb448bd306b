// Answers of Prometheus's HTTP API (/api/v1/query and /api/v1/query_range, which Thanos,
// Mimir and VictoriaMetrics speak too): the series with their labels and samples, the
// warnings, and the error an answer carries, each read strictly. Pure: no HTTP here.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::parse {

struct PromSample {
    double t = 0;      // seconds since the epoch, as Prometheus stamps it (ms resolution)
    double value = 0;  // NaN and the infinities as Prometheus writes them ("NaN", "+Inf")
};

struct PromSeries {
    std::map<std::string, std::string> labels;  // __name__ included
    std::vector<PromSample> samples;            // one for a vector, in time order for a matrix
    std::string name() const;                   // the __name__ label, "" if none
};

struct PromAnswer {
    std::string result_type;  // "vector", "matrix", "scalar" or "string"
    std::vector<PromSeries> series;
    std::vector<std::string> warnings;
};

// Reads one answer. Throws InputError "SOURCE: ..." (one line) for an error answer
// ("Prometheus refused the query (bad_data): ..."), a body that is not such an answer, a
// sample that is not [time, "value"], or a result type other than vector or matrix.
PromAnswer parse_prom_answer(std::string_view body, const std::string& source);

// The label sets of /api/v1/series (every series a selector matched in a window), the
// answer's warnings added to `warnings`. Errors as parse_prom_answer's.
std::vector<std::map<std::string, std::string>> parse_prom_label_sets(std::string_view body, const std::string& source,
                                                                      std::vector<std::string>& warnings);

// One target of /api/v1/targets: its labels (instance, job, pod...), how often it is
// scraped, and how its last scrape went ("up", "down", "unknown").
struct PromTarget {
    std::map<std::string, std::string> labels;
    std::optional<double> scrape_interval_s;
    std::string health;
};
std::vector<PromTarget> parse_prom_targets(std::string_view body, const std::string& source);

// A Prometheus duration ("250ms", "15s", "1m30s") in seconds; nullopt when it is not one.
std::optional<double> parse_prom_duration(std::string_view text);

// The Prometheus text exposition of one scrape: a `name{labels} value` line per series
// (its last sample), labels sorted, those in `drop` left out, `# TYPE` lines where `types`
// names the metric's type.
std::string exposition_text(const std::vector<PromSeries>& series, const std::set<std::string>& drop,
                            const std::map<std::string, std::string>& types = {});

}  // namespace inferlint::parse
