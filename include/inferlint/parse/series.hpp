// Gauge recordings (inferlint.series/1), read and written as the Python tool does (port
// of series.py, less the sampling loop, which lives in run/).
//
// Gauges such as num_requests_running are instantaneous: only a recording taken during
// the run shows whether the requested concurrency ever ran, or how full the cache got.
//
// Format: JSON Lines. The first line is a header ({"schema": "inferlint.series/1", "url":
// ..., "interval_s": ..., "engine": ...}), every later line one sample. A series the
// server does not export is written as null, never 0. A line that is not JSON (a run
// killed mid-write leaves one) is skipped and counted, so everything recorded survives.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/prom.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlint {

inline constexpr const char* kSeriesSchema = "inferlint.series/1";

// One reading. nullopt: the server did not export that series at that moment.
struct SeriesSample {
    double t_wall = 0.0;
    std::optional<long long> t_mono_ns;
    std::optional<double> running;
    std::optional<double> waiting;
    std::optional<double> kv_usage;  // fraction of the KV pool in use, 0..1
    std::optional<double> preemptions;
    std::optional<double> generation_tokens;
    std::optional<double> prompt_tokens;
    std::optional<double> paused;  // requests paused for recompute (TensorRT-LLM)
};

// The sample fields that hold a gauge or counter, in the order the Python tool writes them.
inline constexpr const char* kSeriesGaugeKeys[] = {"running",           "waiting",       "kv_usage", "preemptions",
                                                   "generation_tokens", "prompt_tokens", "paused"};

class SeriesDigest;

// A whole recording in memory (for charts and small files; the checks use SeriesStats,
// which a 200 MB recording fits in a few MB).
struct Series {
    Json header = Json::object();
    std::optional<std::string> engine_key;  // the header's "engine", when it names one
    std::vector<SeriesSample> samples;
    long long skipped_lines = 0;
    std::string source;  // the file it was read from, for messages
    // Set for a long recording read for the report (read_series_for_charts): samples then
    // hold only the readings its digest kept, and the digest has the sums over them all.
    std::shared_ptr<const SeriesDigest> digest;

    // The engine the header names (an unknown key reads as vLLM, as in the Python tool);
    // nullptr when it names none.
    const Engine* named_engine() const;
    // The engine the recording came from: the named one, else vLLM.
    const Engine& engine() const;
    std::optional<double> peak_running() const;
};

// What a scan of a recording saw, besides the samples themselves.
struct SeriesScan {
    Json header = Json::object();
    std::optional<std::string> engine_key;
    long long samples = 0;
    long long skipped_lines = 0;
    long long first_skipped_lineno = 0;  // 0 when none was skipped
};

// Streams a recording, calling on_sample for each sample line in file order; memory
// stays constant however long the file. Throws InputError naming the file (and line)
// when it is missing, a folder, empty, binary, has a header of another schema, has no
// inferlint.series/1 header at all, holds a line over 1 MiB, or a sample line whose
// fields have the wrong types. Lines that are not JSON objects are skipped and counted.
SeriesScan scan_series(const std::filesystem::path& path, const std::function<void(const SeriesSample&)>& on_sample);

// The same over text already in memory (source names it in errors).
SeriesScan scan_series_text(std::string_view text, const std::string& source,
                            const std::function<void(const SeriesSample&)>& on_sample);

// Reads a whole recording into memory (same errors as scan_series).
Series read_series(const std::filesystem::path& path);
Series series_from_text(std::string_view text, const std::string& source);

// One sample line -> a sample. nullopt: not a JSON object (skip and count it). Throws
// std::invalid_argument saying which field is wrong for an object of the wrong shape.
std::optional<SeriesSample> parse_sample_line(std::string_view line);

// Everything the series checks (T8, T9, T14) and T1's paused readings need, gathered
// in one pass. Readings are kept only as distinct values, so memory follows how many
// different values the gauges took, not how many samples there were.
struct BusyReading {
    double kv_usage = 0.0;
    double running = 0.0;
    long long count = 0;  // samples with exactly this pair
};

class SeriesStats {
public:
    void add(const SeriesSample& s);

    long long samples = 0;
    bool any_running = false;              // some sample has a running reading
    std::optional<double> peak_running;    // max running reading
    std::optional<double> peak_in_flight;  // max running + waiting, both present
    // Distinct kv_usage readings in (0, 1], sorted: what the block count is inferred from.
    const std::vector<double>& kv_levels() const;
    // Samples with requests running and KV in use (both non-zero), as distinct pairs.
    const std::vector<BusyReading>& busy() const;
    long long busy_samples = 0;
    // The busy sample with the highest kv_usage (the first of equals).
    std::optional<BusyReading> fullest;
    // Paused-for-recompute readings (TensorRT-LLM).
    long long paused_readings = 0;
    long long paused_nonzero = 0;
    std::optional<double> paused_max;

private:
    // Each distinct reading once, by its bits (the readings kept are finite and above 0,
    // so equal bits are equal values), in an open-addressing table: one probe a sample.
    struct Slot {
        std::uint64_t kv_bits = 0;
        std::uint64_t running_bits = 0;  // 0 in the kv_usage table
        long long count = 0;             // 0: the slot is free
    };
    struct Table {
        std::vector<Slot> slots;
        std::size_t used = 0;
        bool bump(std::uint64_t kv_bits, std::uint64_t running_bits);  // true: a new reading
    };
    Table kv_table_;
    Table busy_table_;
    // The tables' readings sorted, made when asked for after a change.
    mutable std::vector<double> kv_levels_;
    mutable bool kv_levels_stale_ = false;
    mutable std::vector<BusyReading> busy_;
    mutable bool busy_stale_ = false;
};

// A recording reduced to what the checks need.
struct SeriesSummary {
    Json header = Json::object();
    std::optional<std::string> engine_key;
    long long skipped_lines = 0;
    long long first_skipped_lineno = 0;
    std::string source;
    SeriesStats stats;

    const Engine* named_engine() const;
    const Engine& engine() const;
    // The header and the counts of a scan of the recording `source` (the stats are the caller's).
    void take(SeriesScan&& scan, std::string source);
};

SeriesSummary summarize(const Series& series);
// Streams the file: constant memory for any number of samples.
SeriesSummary summarize_series_file(const std::filesystem::path& path);

// ---- writing (used by `watch` and the recorder) ----

// Output field -> the engine's series, for the fields this engine exports.
std::vector<std::pair<std::string, std::string>> series_gauges(const Engine& engine);

// The header line's document: schema, url, interval_s, then engine (omitted when no
// scrape succeeded, so nothing said which engine served).
Json series_header(const Engine* engine, const std::string& url, double interval_s);
inline Json series_header(const Engine& engine, const std::string& url, double interval_s) {
    return series_header(&engine, url, interval_s);
}

// One sample row from a scrape: t_wall rounded to microseconds, t_mono_ns, then each of
// the engine's gauges (null when absent; 0 for a counter written only once it counts,
// when its witness series is there). kv_usage must be a single series: throws
// std::runtime_error when several match.
Json series_sample(const prom::Metrics& metrics, const Engine& engine, double t_wall,
                   std::optional<long long> t_mono_ns);
// The metric names series_sample reads for this engine (its gauges and their witnesses):
// a scrape parsed for these alone gives the same row.
prom::NameFilter series_sample_names(const Engine& engine);

// A document as Python's json.dumps writes it: ", " and ": " separators, floats as
// repr() (1.0, 0.9523809523809523, 1e-05), NaN/Infinity, non-ASCII as \uXXXX. No newline.
std::string python_json_line(const Json& doc);

}  // namespace inferlint
