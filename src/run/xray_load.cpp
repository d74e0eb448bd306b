// The load command: run in a process group of its own (so a signal reaches every process
// it started), its output shown as it comes and kept in load.log.
#include "inferlint/util/process.hpp"
#include "xray_internal.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <poll.h>
#include <unistd.h>

namespace inferlint::xray::detail {

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Splits output into lines as Python's text mode reads it: \n, \r\n and a lone \r (a
// progress bar redrawing itself) each end one.
class LineSplitter {
public:
    template <typename Emit>
    void feed(std::string_view bytes, Emit emit) {
        for (char c : bytes) {
            if (after_cr_ && c == '\n') {
                after_cr_ = false;
                continue;
            }
            after_cr_ = false;
            if (c == '\n' || c == '\r') {
                after_cr_ = c == '\r';
                emit(line_);
                line_.clear();
            } else {
                line_ += c;
            }
        }
    }
    template <typename Emit>
    void finish(Emit emit) {
        if (!line_.empty()) emit(line_);
        line_.clear();
    }

private:
    std::string line_;
    bool after_cr_ = false;
};

}  // namespace

LoadRun run_load(const std::vector<std::string>& argv, const fs::path& log, const Say& say, double grace_s) {
    LoadRun res;
    std::ofstream file(log, std::ios::out | std::ios::trunc | std::ios::binary);
    // Python clients (all three engines' are) buffer a pipe's output; this shows it as it comes.
    auto child = util::spawn_process(argv, {.group = util::ProcessGroup::own_group,
                                            .output = util::OutputTo::pipe,
                                            .extra_env = {"PYTHONUNBUFFERED=1"}});
    if (!child.started()) {
        res.error = child.error;
        file << child.error << "\n";
        return res;
    }
    LineSplitter lines;
    auto emit = [&](const std::string& line) {
        file << line << "\n";
        file.flush();
        say(line);
    };
    // Signals go to the group only while its leader is unreaped: its pid cannot name
    // another group until then.
    int stage = 0;  // signals passed on so far: SIGINT, SIGTERM, SIGKILL
    double next_signal_at = 0;
    double exited_at = 0;
    char buf[8192];
    for (;;) {
        if (interrupted() && !res.exit_status && stage < 3 && now_s() >= next_signal_at) {
            static constexpr int kEscalation[] = {SIGINT, SIGTERM, SIGKILL};
            ::killpg(child.pid, kEscalation[stage++]);
            next_signal_at = now_s() + grace_s;
        }
        pollfd pfd{child.output_fd, POLLIN, 0};
        int n = ::poll(&pfd, 1, 50);
        if (n > 0) {
            ssize_t got = ::read(child.output_fd, buf, sizeof buf);
            if (got > 0) {
                lines.feed(std::string_view(buf, static_cast<std::size_t>(got)), emit);
                continue;
            }
            if (got == 0 || (errno != EINTR && errno != EAGAIN)) break;  // end of output
        }
        if (!res.exit_status) {
            res.exit_status = util::poll_exit(child.pid);
            if (res.exit_status) exited_at = now_s();
        }
        // Something it started may hold the pipe open after it exited; stop reading soon.
        if (res.exit_status && now_s() - exited_at > 2.0) break;
    }
    lines.finish(emit);
    ::close(child.output_fd);
    if (!res.exit_status) {
        // The output ended; the exit follows. An interrupted run still gets its escalation.
        for (;;) {
            res.exit_status = util::wait_exit(child.pid, 0.05);
            if (res.exit_status) break;
            if (interrupted() && stage < 3 && now_s() >= next_signal_at) {
                static constexpr int kEscalation[] = {SIGINT, SIGTERM, SIGKILL};
                ::killpg(child.pid, kEscalation[stage++]);
                next_signal_at = now_s() + grace_s;
            }
        }
    }
    return res;
}

}  // namespace inferlint::xray::detail
