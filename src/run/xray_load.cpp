// The load command: run in a process group of its own (so a signal reaches every process
// it started), its output shown as it comes and kept in load.log.
#include "inferlint/util/process.hpp"
#include "xray_internal.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace inferlint::xray::detail {

namespace {

double load_now_s() {
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

namespace {

// A process of group `pgid` is alive: zombies do not count (one whose parent is gone
// waits for init to reap it, which can take a while).
bool group_alive(int pgid) {
    if (::killpg(pgid, 0) != 0) return false;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        std::ifstream f(it->path() / "stat");
        std::string line;
        if (!f || !std::getline(f, line)) continue;
        const auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 1));
        char state = 0;
        long ppid = 0, pgrp = 0;
        if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != 'Z' && state != 'X') return true;
    }
    return false;
}

// The signals the load's group gets once it is to stop, one per grace: SIGINT first when
// xray was interrupted (as a terminal's Ctrl-C would), else SIGTERM. Signals go to the
// group only while its leader is unreaped: its pid cannot name another group until then.
class LoadStopper {
public:
    LoadStopper(int pgid, double grace_s) : pgid_(pgid), grace_s_(grace_s) {}
    bool started() const { return !sequence_.empty(); }
    void begin(std::vector<int> sequence) {
        if (!started()) sequence_ = std::move(sequence);
    }
    void tick() {
        if (!started() || sent_.size() >= sequence_.size() || load_now_s() < next_at_) return;
        const int sig = sequence_[sent_.size()];
        ::killpg(pgid_, sig);
        sent_.push_back(sig);
        next_at_ = load_now_s() + grace_s_;
    }
    const std::vector<int>& sent() const { return sent_; }
    bool all_sent() const { return started() && sent_.size() >= sequence_.size(); }
    // Its leader gone, what the load started may live on in its group (a background job),
    // holding the pipe: a load being stopped has its whole group ended. The group's id is
    // not reused while any process of the group lives.
    void end_group() {
        if (!started()) return;
        double killed_at = 0;
        while (group_alive(pgid_)) {
            tick();
            if (all_sent() && killed_at == 0) killed_at = load_now_s();
            if (killed_at > 0 && load_now_s() - killed_at > 2.0) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

private:
    int pgid_;
    double grace_s_;
    std::vector<int> sequence_;
    std::vector<int> sent_;
    double next_at_ = 0;
};

// Whether the load is to be stopped now, and why; begins the stopper when it is.
struct LoadWatch {
    const LoadLimits& limits;
    double started_at = load_now_s();
    std::optional<double> server_gone_at;
    std::optional<LoadStop::Why> why;

    void check(LoadStopper& stopper, LoadRun& res) {
        const double now = load_now_s();
        if (interrupted()) stopper.begin({SIGINT, SIGTERM, SIGKILL});
        if (!res.server_exit && limits.server_exit) {
            res.server_exit = limits.server_exit();
            if (res.server_exit) server_gone_at = now;
        }
        if (stopper.started()) return;
        if (limits.timeout_s && now - started_at >= *limits.timeout_s) {
            why = LoadStop::Why::timeout;
        } else if (server_gone_at && now - *server_gone_at >= limits.server_gone_grace_s) {
            why = LoadStop::Why::server_exited;
        }
        if (why) stopper.begin({SIGTERM, SIGKILL});
    }
};

}  // namespace

LoadRun run_load(const std::vector<std::string>& argv, const fs::path& log, const Say& say, const LoadLimits& limits) {
    LoadRun res;
    std::ofstream file(log, std::ios::out | std::ios::trunc | std::ios::binary);
    // Python clients (all three engines' are) buffer a pipe's output; this shows it as it comes.
    auto child = util::spawn_process(
        argv,
        {.group = util::ProcessGroup::own_group, .output = util::OutputTo::pipe, .extra_env = {"PYTHONUNBUFFERED=1"}});
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
    LoadStopper stopper(child.pid, limits.grace_s);
    LoadWatch watch{limits};
    auto reap = [&] {
        if (res.exit_status) return;
        if (auto info = util::poll_exit_info(child.pid)) res.exit_status = info->status, res.signal = info->signal;
    };
    double exited_at = 0;
    char buf[8192];
    for (;;) {
        if (!res.exit_status) watch.check(stopper, res);
        stopper.tick();
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
            reap();
            if (res.exit_status) exited_at = load_now_s();
        }
        // Something it started may hold the pipe open after it exited; stop reading soon.
        if (res.exit_status && load_now_s() - exited_at > 2.0) break;
    }
    lines.finish(emit);
    ::close(child.output_fd);
    // The output ended; the exit follows. A load being stopped still gets its escalation.
    while (!res.exit_status) {
        watch.check(stopper, res);
        stopper.tick();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        reap();
    }
    stopper.end_group();
    if (watch.why) res.stopped = LoadStop{*watch.why, load_now_s() - watch.started_at, stopper.sent()};
    return res;
}

}  // namespace inferlint::xray::detail
