// Snapshots of a server's /metrics (inferlint.snapshot/1) and what two of them say
// (port of telemetry.py, less the HTTP scrape, which lives in run/).
//
// A snapshot keeps the raw exposition text. Each carries two clocks, taken on both
// sides of the request with the midpoint kept: t_wall (to line up with logs) and
// t_mono_ns (to measure spans). Half the scrape latency is the timing uncertainty.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/prom.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace inferlint {

inline constexpr const char* kSnapshotSchema = "inferlint.snapshot/1";

struct Snapshot {
    std::string url;
    std::string text;
    double t_wall = 0.0;  // NaN for a bare .prom file: it has no clock
    std::optional<long long> t_mono_ns;
    std::optional<double> latency_s;

    // Parsed on first use. Throws InputError naming `source` if the text is malformed.
    const prom::Metrics& metrics() const;
    // Only the samples of these names, parsed now (not kept); a malformed text throws as
    // metrics() does.
    prom::Metrics metrics_only(const prom::NameFilter& names) const;
    std::string source;  // the file it was read from, for messages (not saved)

    Json to_json() const;
    // Writes the JSON document (indent 1, trailing newline), creating the folder.
    void save(const std::filesystem::path& path) const;

private:
    mutable std::shared_ptr<prom::Metrics> metrics_;
};

// Reads a snapshot file, or a bare Prometheus text file (no clock). Throws InputError
// naming the file for a missing, empty, binary, truncated or wrong-schema file.
Snapshot load_snapshot(const std::filesystem::path& path);

// The engine these snapshots' metric names tell; nullptr when none does.
const Engine* snapshot_engine(const std::vector<const Snapshot*>& snapshots);
// The same from text already read (source names it in errors).
Snapshot snapshot_from_text(const std::string& text, const std::string& source);

struct Span {
    double seconds = 0.0;
    double uncertainty_s = 0.0;  // mean of the two scrape latencies
};

// Seconds between two snapshots: monotonic when both have it (refused when it disagrees
// with the wall clock by over a second), else wall. Throws std::runtime_error when no
// span is available (bare Prometheus text) or the clocks disagree.
Span span_s(const Snapshot& a, const Snapshot& b);

// Two snapshots came from different server processes, so their deltas mean nothing: what
// says so, as a one-line message and its evidence.
struct Restart {
    std::string message;
    Json evidence;
};

struct CreatedChange {
    std::string name;
    double before = 0.0;
    double after = 0.0;
};

// *_created series whose value differs between two snapshots: a restart, even when
// counters have since risen past their old values.
std::vector<CreatedChange> created_changes(const Snapshot& a, const Snapshot& b);

// Counters' rises between two snapshots, read one after another. A restart between them
// is a value: a *_created stamp that moved (seen when made), or the first counter read that
// went down (counters only reset on restart). Once a restart is seen every read gives
// nullopt, and restart() says what was seen first.
class Deltas {
public:
    Deltas(const Snapshot& before, const Snapshot& after);
    // after - before for a counter (summed over label sets matching `labels`); nullopt if
    // either snapshot lacks it, or after a restart. With a witness (a series exported from
    // the start), a snapshot that has the witness but not the counter reads it as 0.
    std::optional<double> operator()(const std::string& name, const std::string& witness = "",
                                     const prom::LabelFilter& labels = {});
    const std::optional<Restart>& restart() const { return restart_; }

private:
    const Snapshot& before_;
    const Snapshot& after_;
    std::optional<Restart> restart_;
};

}  // namespace inferlint
