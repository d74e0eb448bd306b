// The pieces of xray that act on processes: the signal flag every waiting loop reads, the
// server's life (start, ready, stop), and the load command. Private to src/run/xray*.cpp.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/run/xray.hpp"
#include "inferlint/util/signals.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::xray::detail {

using Say = std::function<void(const std::string&)>;

// SIGINT, SIGTERM, SIGHUP by name; another as "signal N".
inline std::string signal_name(int sig) {
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    if (sig == SIGHUP) return "SIGHUP";
    if (sig == SIGKILL) return "SIGKILL";
    return fmt::format("signal {}", sig);
}

// The signal (SIGINT, SIGTERM, SIGHUP) caught while a run's SignalGuard is installed; 0 if none.
inline int interrupt_signal() { return util::caught_signal(); }
inline bool interrupted() { return interrupt_signal() != 0; }

// Catches SIGINT, SIGTERM and SIGHUP (they set the flag), ignores SIGPIPE (so a closed
// stdout cannot kill the run before it stops the server), and restores the old handlers.
class SignalGuard {
public:
    SignalGuard() : guard_({SIGINT, SIGTERM, SIGHUP}, util::BrokenPipe::ignore) {}

private:
    util::SignalGuard guard_;
};

// Sleeps up to s seconds, returning early once a signal has been caught.
void nap(double s);

// /health answers 200.
bool healthy(const std::string& url, double timeout_s = 5.0);

// The version the server reports: vLLM and TensorRT-LLM on /version, SGLang on /get_server_info.
std::optional<std::string> server_version(const std::string& url);

// T2 before the start: the card must read free within the gate's time.
CheckResult gpu_free(const Machine& machine, const Timings& t);

// A server started by this run, in a session of its own. Only processes of that session,
// and processes the server started, are ever signalled.
class Server {
public:
    // Starts argv with stdout and stderr in `log`. error() says why when it could not start.
    Server(const std::vector<std::string>& argv, const fs::path& log);
    ~Server();  // a server never stopped (an exception got past the run) is killed outright
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    bool started() const { return pid_ > 0; }
    const std::string& error() const { return error_; }
    int pid() const { return pid_; }
    // The exit status once the server's first process has exited (it is reaped).
    std::optional<int> exit_status();

    enum class Ready { ready, exited, timed_out, interrupted };
    struct Wait {
        Ready state;
        std::string why;  // for exited and timed_out
    };
    // Until the log says "Application startup complete" and /health answers 200.
    Wait wait_ready(const fs::path& log, const std::string& url, double timeout_s, const Timings& t, const Say& say);

    // SIGTERM to the session, SIGKILL to what is left after the grace, then consecutive
    // clear readings (T2).
    CheckResult stop(const Machine& machine, const Timings& t);
    // The first half of stop: SIGTERM, then SIGKILL after the grace. The processes that
    // outlived the grace.
    std::vector<int> terminate(const Timings& t);

    // Processes of the run still alive (for tests and evidence).
    std::vector<int> alive();

private:
    struct Member {
        int pid;
        std::uint64_t start_ticks;
    };
    void scan();  // adds session members and descendants of the server to members_
    void send(int sig);

    int pid_ = -1;
    std::optional<int> exit_;
    std::string error_;
    bool stopped_ = false;
    std::vector<Member> members_;
};

// T2 after servers were stopped: consecutive clear readings, with nothing of `servers`
// left and no other server's process. `left`: the processes that outlived the grace.
CheckResult gpu_clear_after_stop(const Machine& machine, const Timings& t, const std::vector<int>& left,
                                 const std::vector<Server*>& servers);

// Runs the load command in a process group of its own, its output shown line by line and
// saved to `log`. A signal caught meanwhile is passed on: SIGINT, then SIGTERM, then
// SIGKILL, each after the grace. xray stops it itself (SIGTERM, then SIGKILL after the
// grace) once it has run for timeout_s, or server_gone_grace_s after the server it runs
// against has exited. nullopt and `error` when it could not start.
struct LoadLimits {
    double grace_s = 5.0;
    std::optional<double> timeout_s;
    std::function<std::optional<int>()> server_exit;  // the server's exit status once it has exited
    double server_gone_grace_s = 10.0;
};
struct LoadRun {
    std::optional<int> exit_status;
    int signal = 0;  // the signal that ended it
    std::string error;
    std::optional<LoadStop> stopped;  // xray stopped it: its time ran out, or the server was gone
    std::optional<int> server_exit;   // the server exited during the load, with this status
};
LoadRun run_load(const std::vector<std::string>& argv, const fs::path& log, const Say& say, const LoadLimits& limits);

}  // namespace inferlint::xray::detail
