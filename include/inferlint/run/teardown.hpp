// Stopping an inference server completely, and proving the GPU is free (T2, T3).
//
// `pkill -f "vllm serve"` misses the engine process, which renamed itself
// VLLM::EngineCore and keeps its weights on the card; run from a `bash -c` one-liner it
// also kills the shell that ran it. So server processes are recognised by the shape of
// their argv, everything they started goes with them, the caller and its ancestors are
// never touched, and the card counts as free only after consecutive clear readings.
#pragma once

#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/procfs.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::run {

using procfs::Proc;

inline constexpr long long kDefaultMaxUsedMib = 800;

// Which engine's server this process is: `vllm serve ...`, `python -m
// vllm.entrypoints...`, a VLLM::* process, `sglang serve`, `python -m
// sglang.launch_server`, sglang::*, `trtllm-serve serve`. nullopt for anything else.
std::optional<EngineId> server_engine(const Proc& p);
inline bool is_server_process(const Proc& p) { return server_engine(p).has_value(); }

// Every server process (of `engine` only, when given) and every process it started,
// except self_pid and its ancestors. In the order of `procs`.
std::vector<Proc> server_processes(const std::vector<Proc>& procs, int self_pid,
                                   std::optional<EngineId> engine = std::nullopt);

// The `pkill -f` pattern people use for the server these processes belong to.
std::string usual_pkill_pattern(const std::vector<Proc>& targets);

// What `pkill -f PATTERN` would signal: PATTERN searched in the joined command line, as
// the regular expression pkill reads it (only '.' is special in the patterns used here).
std::vector<Proc> naive_pkill_matches(const std::vector<Proc>& procs, std::string_view pattern = "vllm serve");

// Time, so tests run the polling loops without waiting.
class Clock {
public:
    virtual ~Clock() = default;
    virtual double now_s() = 0;
    virtual void sleep_s(double s) = 0;
};
class SteadyClock final : public Clock {
public:
    double now_s() override;
    void sleep_s(double s) override;
};

// What wait_clear found: T2's input (checks/t02_gpu_clear.hpp builds the verdict from it).
using Reading = checks::ClearReading;
using ClearResult = checks::ClearResult;

// MiB used per GPU; empty when nvidia-smi is missing, failed or printed junk.
using UsedReader = std::function<std::vector<long long>()>;
using LiveCounter = std::function<int()>;
using Lister = std::function<std::vector<Proc>()>;
// Sends sig to the processes; returns the pids it reached.
using Signaller = std::function<std::vector<int>(const std::vector<Proc>&, int sig)>;

struct WaitOptions {
    long long max_used_mib = kDefaultMaxUsedMib;
    int consecutive = 2;  // must be >= 1
    double interval_s = 2.0;
    double timeout_s = 120.0;
};

// Polls until `consecutive` readings in a row are clear (no server alive, every GPU at
// or under the limit, and the memory readable), or time runs out. Throws
// std::invalid_argument when consecutive < 1.
ClearResult wait_clear(const UsedReader& read_used, const LiveCounter& live_servers, const WaitOptions& opts,
                       Clock& clock);

struct TeardownOptions {
    double grace_s = 15.0;  // between SIGTERM and SIGKILL
    WaitOptions wait;
    std::optional<EngineId> engine;  // only this engine's servers are signalled
    int self_pid = 0;
};

struct TeardownOutcome {
    std::vector<Proc> targets;
    ClearResult clear;
};

// SIGTERM to every target, SIGKILL to those still there after grace_s, then wait_clear.
// The card is clear only when no server of any engine is left.
TeardownOutcome teardown(const Lister& list_procs, const Signaller& send, const UsedReader& read_used,
                         const TeardownOptions& opts, Clock& clock);

// The real signaller: before each signal it re-reads proc_root/<pid> and skips a process
// that is gone or whose start time changed (the pid now names another process).
// Processes it may not signal are skipped and said on `refused`.
std::vector<int> signal_processes(const std::vector<Proc>& procs, int sig,
                                  const std::filesystem::path& proc_root = "/proc",
                                  std::vector<std::string>* refused = nullptr);

}  // namespace inferlint::run
