// `inferlint xray`: one command around a whole benchmark run (port of xray.py).
//
// In order: with a server command, check that the GPU is free (T2), start the server in a
// session of its own with its output in DIR/boot.log and wait until it is ready (else
// attach to a running one); check that it serves the engine's metrics; the boot-log
// checks (T12, T5, T6) and the probe (T7); a snapshot, the gauges recorded while the load
// command runs, another snapshot; the run's checks (T1, T10, T14, T9, T8, T16, T15); stop every
// process of the server and wait for a free GPU (T2), also after a failure or a signal;
// then what limited the run, report.html and results.json. Everything lands in one folder,
// so the run can be checked again later with the separate commands.
//
// On a fleet (Plan::replicas: two or more --url, or --serve once per replica) the same
// stages run for every replica, each recorded into a folder of its own under the run
// folder on one schedule, and the verdicts come per replica and for the fleet
// (checks::check_fleet), once every server the run started is stopped.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/report/insights.hpp"
#include "inferlint/run/teardown.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::xray {

namespace fs = std::filesystem;

// ---- the load command (xray_plan.cpp) ----

// The value of `--flag V` or `--flag=V` (the first), nullopt when absent.
std::optional<std::string> flag_value(const std::vector<std::string>& cmd, std::string_view flag);

// The concurrency a load command asks for: --max-concurrency (vLLM, SGLang, TensorRT-LLM),
// --concurrency (AIPerf, genai-perf), --num-concurrent-requests (LLMPerf), GuideLLM's
// --rate under --profile/--rate-type concurrent (synchronous: 1).
std::optional<long long> load_concurrency(const std::vector<std::string>& cmd);

// Why the load command's prompts are meant to be unique, for T16: a random dataset
// (`--dataset-name random`, SGLang's random-ids) with no shared prefix (`--random-prefix-len`
// absent or 0). nullopt for any other dataset, and when the command names none (the
// clients' defaults differ by release).
std::optional<std::string> load_unique_prompts(const std::vector<std::string>& cmd);

// Which engine's benchmark client the command runs: `vllm bench serve`, SGLang's
// `python -m sglang.benchmark.serving` (or sglang.bench_serving), TensorRT-LLM's
// `python -m tensorrt_llm.serve.scripts.benchmark_serving`; nullopt for any other.
std::optional<EngineId> load_client(const std::vector<std::string>& cmd);

// Which load tool the command runs: the engines' clients (load_client) by their result's
// client name, "guidellm" (guidellm benchmark), "aiperf" (aiperf profile), "genai-perf"
// (genai-perf profile), "inference-perf", "llmperf" (token_benchmark_ray.py); nullopt else.
std::optional<std::string> load_tool(const std::vector<std::string>& cmd);

struct PreparedLoad {
    std::vector<std::string> argv;
    std::optional<fs::path> result;  // where the client will save its result, when known
};

// The command to run and where its result file will be. A known client that does not
// already save its result is asked to save it into `out` (bench.json; SGLang's appends
// JSON lines to bench.jsonl), so its counts can be held against the server's (T15).
// A client that names no file (--save-result without --result-filename) is left to name
// its own: the result is then nullopt and found after the run by newest_json. GuideLLM
// (--output-path), AIPerf (--artifact-dir) are asked to write into `out` too; genai-perf
// and LLMPerf get their folder there, their file found after the run.
PreparedLoad prepare_load(const std::vector<std::string>& cmd, const fs::path& out);

// The newest *.json in `folder` written at or after `since`.
std::optional<fs::path> newest_json(const fs::path& folder, fs::file_time_type since);

// Where a server started with `serve` answers: its --host and --port, else 127.0.0.1 and
// the engine's default port. The engine is the one named, else the one `serve` starts,
// else vLLM. A wildcard host (0.0.0.0, ::) is reached on 127.0.0.1.
std::string server_url(const std::optional<std::string>& serve, const Engine* named = nullptr);

// ---- the plan ----

// Waits that have no option on the command line; tests shorten them.
struct Timings {
    double ready_poll_s = 0.25;         // boot.log and /health while waiting for the server
    double ready_progress_s = 10.0;     // a "still starting" line this often
    double gpu_gate_timeout_s = 10.0;   // the GPU must read free within this, before the start
    double clear_interval_s = 2.0;      // between T2 readings
    double stop_grace_s = 30.0;         // SIGTERM to the server, then SIGKILL after this
    double clear_timeout_s = 120.0;     // consecutive clear readings after the stop
    double load_grace_s = 5.0;          // an interrupted load: SIGINT, then SIGTERM, then SIGKILL
    double server_gone_grace_s = 10.0;  // the load may run on this long after the server it ran against exited
};

// One server of a fleet run: two or more --url (servers already running), or --serve once
// per replica (each on a --port of its own). Everything recorded of it lands in its folder.
struct ReplicaPlan {
    std::string url;  // empty: from its --serve command (server_url)
    std::optional<std::string> serve;
    std::optional<fs::path> boot_log;
    std::string name;    // "127.0.0.1:8001": its host and port (and path), as its rows and headings say
    std::string folder;  // "127.0.0.1_8001": its folder under `out` (replica_series_name's stem)
};

struct Plan {
    fs::path out;
    std::vector<std::string> load;
    std::string url;  // empty: from the --serve command (server_url)
    std::optional<std::string> serve;
    std::optional<fs::path> boot_log;
    // Two or more: a fleet run (xray_fleet.cpp), and url, serve and boot_log are unused;
    // empty: one server.
    std::vector<ReplicaPlan> replicas;
    std::optional<long long> requested;
    std::optional<fs::path> bench_result;
    std::optional<double> max_failed_share;  // --max-failed-share as a fraction, into the live record (T20)
    double interval_s = 0.25;
    double ready_timeout_s = 900.0;
    std::optional<double> load_timeout_s;  // --load-timeout: the load's group is stopped after this
    bool probe = true;
    std::optional<std::string> title;
    const Engine* engine = nullptr;  // the engine named; nullptr: told from the server
    Strict strict = Strict::no;
    std::optional<std::vector<TripwireId>> only;  // the tripwires to report; nullopt: all
    // Files the caller writes into the folder after the run (results.junit.xml), listed in
    // results.json's "files" after results.json.
    std::vector<std::string> later_files;
    Timings timings;
};

// Everything that can be known wrong before anything starts, as an InputError: no load
// command, a load program or server program that is not there, a --serve command that
// does not split or starts no inference server (or another engine's than the one named),
// a bad --url, a --boot-log that is missing, a port already taken, an output folder that
// cannot be made; for a fleet, the same of each replica, and two replicas at one address.
// Fills in the urls (and each replica's name and folder), and makes the folder.
Plan checked(Plan plan);

// ---- what the run touches outside itself ----

struct Machine {
    run::UsedReader read_used;                      // MiB used per GPU (nvidia-smi)
    std::function<std::vector<int>()> server_pids;  // inference-server processes alive on this machine
};
// nvidia-smi, and the server processes under run::proc_root() other than this one and
// its ancestors.
Machine real_machine();

enum class Stage { engine, gpu, start, metrics, boot_log, probe, load, checks, stop, report };
std::string_view stage_name(Stage s);

struct Callbacks {
    std::function<void(const std::string&)> say;   // progress and verdict lines (stdout)
    std::function<void(const std::string&)> note;  // asides: failed scrapes (stderr)
    std::function<void(Stage)> on_stage;           // called as each stage begins (tests)
};

// Why xray stopped the load command before it ended by itself (a signal to xray is
// Outcome::interrupted_by): its group got SIGTERM, then SIGKILL after the grace.
struct LoadStop {
    enum class Why { timeout, server_exited };
    Why why;
    double after_s = 0;        // how long the load had run
    std::vector<int> signals;  // the signals its group got, in order
};

// One replica's share of a fleet run.
struct ReplicaOutcome {
    std::string name, url, folder;
    std::vector<CheckResult> results;  // its own verdicts
    std::vector<std::string> files;    // the files written into its folder
};

struct Outcome {
    std::vector<CheckResult> results;  // a fleet run: the fleet's verdicts
    std::optional<int> load_exit;
    int load_signal = 0;  // the signal that ended the load command; 0 if none
    std::optional<LoadStop> load_stop;
    std::optional<fs::path> report;
    std::string problem;              // why the run stopped early; empty when it did not
    bool wrong_engine = false;        // stopped because the server is another engine's than the one named
    int interrupted_by = 0;           // the signal (SIGINT, SIGTERM, SIGHUP) that cut the run short; 0 if none
    std::optional<Stage> stopped_at;  // the stage in progress when the run was cut short
    std::string write_error;          // the first file of the run that could not be written (a full disk)
    bool completed = false;           // every stage ran and the load command exited 0
    std::vector<report::Insight> limits;
    std::vector<std::string> files;  // the files written into the folder
    std::string engine;              // the engine's key, once known
    std::optional<std::string> server_version;
    std::vector<std::string> load_argv;    // the load command as run
    std::vector<ReplicaOutcome> replicas;  // a fleet run: each replica's, in the plan's order
};

// Runs the whole sequence on a checked plan. Findings never throw; they are results.
// SIGINT, SIGTERM and SIGHUP are caught while it runs: the stage in progress ends, the server is
// stopped, and what was recorded is written out.
Outcome run(const Plan& plan, const Callbacks& callbacks, const Machine& machine = real_machine());

// 0 every tripwire passed; 1 a tripwire failed, or the run did not complete (stopped
// early, the load failed or was stopped, interrupted); 2 a check could not decide, a file
// of the run could not be written, or the server is another engine's than the one named.
int exit_code(const Outcome& outcome, Strict strict);

// ---- results.json (xray_results.cpp) ----

inline constexpr const char* kResultsSchema = "inferlint.xray/1";

// {schema, completed, exit_status, interrupted, problem, load_exit, versions, plan,
//  counts, results, limits, files, stopped_at, signal, load_signal, load_stopped}; a fleet
// run adds plan.replicas and replicas (each one's name, url, folder, counts, results, files).
Json results_document(const Plan& plan, const Outcome& outcome);
void write_results(const Plan& plan, const Outcome& outcome);

}  // namespace inferlint::xray
