// `compare`: two arms of runs (config A and config B), each run's figures, the difference
// of B against A per figure with its interval (core/bootstrap.hpp), the gates a script
// asks for, and the comparability checks C1-C7 that say whether the arms can be compared
// at all. Pure: the runs come in read (run/compare_runs.hpp), the verdict goes out.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t17_realized_config.hpp"
#include "inferlint/core/bootstrap.hpp"
#include "inferlint/core/result.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::checks {

// ---- the figures each run gives ----

enum class Figure { output_throughput, request_throughput, ttft_p50, ttft_p99, tpot_p50, tpot_p99 };
inline constexpr std::array kFigures = {Figure::output_throughput, Figure::request_throughput, Figure::ttft_p50,
                                        Figure::ttft_p99,          Figure::tpot_p50,           Figure::tpot_p99};

std::string_view figure_name(Figure f);  // "output_throughput", as options and JSON name it
std::string_view figure_unit(Figure f);  // "tokens/s", "requests/s", "ms"
stats::Better figure_better(Figure f);   // throughput higher, latency lower
std::optional<Figure> figure_named(std::string_view name);

struct RunFigures {
    // From the server's counters over the snapshots' monotonic span: T10's figure.
    std::optional<double> output_throughput;
    // The load tool's: its completed requests over its own duration.
    std::optional<double> request_throughput;
    std::optional<double> ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms;
    // From the recording: the most requests running, and their mean over the readings from
    // the first to the last with a request running.
    std::optional<double> peak_running, mean_running;
    std::optional<double> preemptions;      // T1's count
    std::optional<double> prefix_hit_rate;  // T16's share of prompt tokens served from the cache

    std::optional<double> value(Figure f) const;
};

// The figures of one run from its evidence, the suite's verdicts on it, and its recording.
RunFigures run_figures(const RunEvidence& ev, const RunVerdicts& verdicts, const Series* series);

// The load a run was measured under; a field absent is nullopt.
struct LoadShape {
    std::optional<std::string> client;               // "vllm bench serve", ...
    std::optional<std::string> endpoint;             // "/v1/completions", "/v1/chat/completions", "native (/generate)"
    std::optional<long long> input_len, output_len;  // tokens per request, rounded
    std::optional<long long> concurrency, num_prompts;
    // Where the tool's own metric names mean something else than inferlint's, as its reader
    // read them into one definition each (LoadResult::metric_notes, docs/load-tools.md).
    std::vector<std::string> definitions;
    std::string text() const;                   // "in 88, out 1,000 tokens, concurrency 32, 64 prompts"
    bool same_shape(const LoadShape& o) const;  // lengths and concurrency
};

// The load from the load tool's result, with what its command line said (`asked`, from
// xray's results.json: run/compare_runs.cpp) where the result does not say.
LoadShape load_shape(const BenchResult* bench, LoadShape asked);

// One run of an arm, as read: completed or not (and why not), and what it gave.
struct ArmRun {
    std::string label;  // the folder, as given or found
    bool completed = false;
    std::string failure;  // why it did not complete
    const Engine* engine = nullptr;
    RunFigures figures;
    std::vector<CheckResult> verdicts;  // the suite's, for the run
    std::vector<ConfigField> config;    // T17's fields of its first start
    bool has_boot = false;
    // Where config's KV pool comes from: "boot log", or the /metrics series when the run
    // has no boot log (parse::MetricsPool::source); empty when neither states it.
    std::string kv_source;
    LoadShape load;
    std::vector<std::string> notes;  // for stderr: what its files' reading said (cut lines)
};

struct Arm {
    std::string name;  // "A" unless named
    std::vector<ArmRun> runs;
    std::vector<const ArmRun*> completed() const;
};

// ---- comparability checks ----

enum class ComparisonId : std::uint8_t { C1 = 1, C2, C3, C4, C5, C6, C7, C8 };
std::string_view code(ComparisonId id);  // "C1"
std::string_view comparison_title(ComparisonId id);

struct ComparisonResult {
    ComparisonId id{};
    Status status = Status::unknown;
    std::string message;
    Json evidence = Json::object();

    Json to_json() const;               // {check, title, status, message, evidence}
    std::string terminal_line() const;  // "[ C1] WARN  5 settings differ ..."
};

// C1 settings, C2 KV capacity, C3 prefix cache, C4 load, C5 one shape, C6 tripwires
// failed in a run, C7 runs that did not complete, C8 failed shares that differ beyond their
// noise (each arm's requests failed, from its runs' T20); in that order.
std::vector<ComparisonResult> comparability_checks(const Arm& a, const Arm& b);

// KV pools differing by more than this share are more than one of T4's allocation steps
// apart (9.43% in the recorded example).
inline constexpr double kPoolStepShare = 0.10;
inline constexpr double kPrefixHitPoints = 0.05;
inline constexpr std::size_t kMinCompletedRuns = 3;

// ---- the difference, and the gates ----

struct GainGate {
    Figure figure = Figure::output_throughput;
    double min_pct = 0.0;
};
struct ShareGate {
    Figure figure = Figure::output_throughput;
    double value = 0.0;
};

struct CompareOptions {
    stats::Pairing pairing = stats::Pairing::unpaired;
    std::uint64_t seed = 1;
    int resamples = 4000;
    std::vector<GainGate> require_gain;
    std::optional<ShareGate> floor;       // B's best run reaches F x A's best
    std::optional<ShareGate> max_spread;  // B's coefficient of variation under S
};

struct FigureComparison {
    Figure figure{};
    std::vector<double> a, b;  // the completed runs' values that are there
    stats::Difference diff;    // mean(B)/mean(A) - 1
    stats::Difference gain;    // turned so that positive is better
    std::string statement;     // "B is faster by 4.1% [1.2%, 7.0%]"
};

struct GateResult {
    std::string gate;  // "require-gain", "floor", "max-spread"
    Figure figure{};
    Status status = Status::unknown;  // pass, fail, unknown (can't tell), not_applicable (not weighed)
    std::string message;
    Json evidence = Json::object();
};

struct Comparison {
    const Arm* a = nullptr;
    const Arm* b = nullptr;
    CompareOptions options;
    std::optional<std::string> cant_tell;  // why there is no verdict
    std::vector<FigureComparison> figures;
    std::vector<ComparisonResult> checks;
    std::vector<GateResult> gates;

    // 1 when a gate or check failed, else 2 when it can't tell (or a gate can't), else 0.
    int exit_code() const;
    Json to_json() const;
};

Comparison compare_arms(const Arm& a, const Arm& b, const CompareOptions& options);

// "+4.1%", "-0.3%".
std::string signed_pct(double share);

}  // namespace inferlint::checks
