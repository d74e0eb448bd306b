// One run's evidence in, its verdicts out. Every command that gives verdicts builds a
// RunEvidence (run/loader.hpp does it from files) and calls the suite; none wires the
// tripwires itself. A new tripwire is one file in checks/ and one line here.
#pragma once

#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/t21_streams_vs_running.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/parse/gpu_record.hpp"
#include "inferlint/parse/model_config.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::checks {

// The concurrency the load tool kept open: a whole number above 0, or nothing at all.
// The one place a "requested" is made, so no command can check T8 against 0 or -5.
class Requested {
public:
    // nullopt for 0 or below (a load tool that set no limit).
    static std::optional<Requested> of(long long n) {
        if (n < 1) return std::nullopt;
        return Requested(n);
    }
    long long value() const { return n_; }

private:
    explicit Requested(long long n) : n_(n) {}
    long long n_;
};

// One start of the server, from its log.
struct BootStart {
    std::string label;  // the log's short name; prefixes the messages when there are several
    parse::BootFacts facts;
    std::optional<parse::Failure> failure;
    // The model's config.json (--model-config, or the local model folder the log names),
    // for T17 to name why the KV cache dtype is not the one asked.
    std::optional<parse::ModelConfig> model_config;
};

// Whether lines recognised but unreadable (a format change) are a T12 of their own.
enum class UnparsedLines { ignore, report };

struct RunEvidence {
    std::vector<BootStart> boots;  // in the order the starts are given
    std::optional<Snapshot> before;
    std::optional<Snapshot> after;
    std::optional<SeriesSummary> series;     // the recording, reduced in one pass
    std::optional<BenchResult> bench;        // the load tool's result
    std::optional<parse::GpuRecording> gpu;  // xray's nvidia-smi readings during the load (T19)
    std::vector<RunningReading> running;     // the recording's running gauge, reading by reading (T21)
    long long untimed_requests = 0;          // requests the client sent but left out of its result
    double max_failed_share = 0.0;           // --max-failed-share as a fraction: T20 warns at or under it
    std::optional<Requested> requested;
    std::string rate_counter;  // T10's counter; empty: the generated tokens
    // Why the load's prompts were meant to be unique (the user's --unique-prompts, a random
    // dataset in xray's load command), for T16; nullopt: nothing says so.
    std::optional<std::string> unique_prompts;
    UnparsedLines unparsed = UnparsedLines::ignore;
    // Verdicts only a live run can give (T2 at the card, T7 from a probe). The last per
    // tripwire wins; one the logs already gave is not added twice.
    std::vector<CheckResult> live;
    const Engine* named_engine = nullptr;  // the engine the user named, for inputs that do not say

    // The engine that served: the snapshots' metric names, else the recording's header,
    // else the first log, else the one named, else vLLM.
    const Engine& engine() const;
    // The engine to read the recording as: its header's, else the one named, else vLLM.
    const Engine& series_engine() const;
    const parse::BootFacts* first_facts() const;
};

struct RunVerdicts {
    std::vector<CheckResult> results;        // in the order the commands print them
    std::optional<long long> usable_blocks;  // KV blocks, from a passing T14
    Measured measured;                       // the figures the checks measured, typed

    const CheckResult* result(TripwireId tripwire) const;
    // The results for these tripwires only, in order.
    std::vector<CheckResult> only(std::initializer_list<TripwireId> tripwires) const;
    std::vector<CheckResult> only(const std::vector<TripwireId>& tripwires) const;
};

// T12/T7, T5, T6 (and T12 for unreadable lines) per start; T4 and T11 across several;
// then T22 per start, T17 per start and, across several, its configuration diff.
std::vector<CheckResult> check_boots(const std::vector<BootStart>& boots, UnparsedLines unparsed);

// What the log and the recording say about pauses, for T1 on an engine that counts none.
PauseEvidence pause_evidence(const SeriesSummary* series, const parse::BootFacts* facts);

// T1 and T10 from the snapshots; T14, T9 and T8 from the recording; then T16 from the
// snapshots (after the reference's fifteen, so their order stays).
RunVerdicts check_load(const RunEvidence& ev);

// T16 when both snapshots are there.
std::optional<CheckResult> check_prefix_cache_hits(const RunEvidence& ev, Measured* measured = nullptr);

// The client's counts against the server's, from both snapshots: T15 when the load tool's
// result is there; T18 then too, or without it when the server speculated (unknown). T15
// names T18 as the cause of the tokens' difference when T18 fails.
struct ClientCountVerdicts {
    std::optional<CheckResult> t15;
    std::optional<CheckResult> t18;
};
ClientCountVerdicts check_client_counts(const RunEvidence& ev);

// T15 when the load tool's result and both snapshots are there (check_client_counts's).
std::optional<CheckResult> check_client_server(const RunEvidence& ev);

// T21 when the load tool's result is there with a recording or per-request times.
std::optional<CheckResult> check_streams(const RunEvidence& ev);

// Everything the evidence allows: the starts, the live verdicts, T15, the load, then T18,
// T19, T20 and T21 (T20 with the load tool's result or both snapshots).
RunVerdicts check_run(const RunEvidence& ev);

}  // namespace inferlint::checks
