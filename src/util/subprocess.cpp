#include "inferlint/util/subprocess.hpp"

#include "spawn.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace inferlint::util {

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string find_program(const std::string& name) {
    if (name.empty()) return {};
    if (name.find('/') != std::string::npos) return name;
    const char* path_env = std::getenv("PATH");
    std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string dir = path.substr(start, end - start);
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (is_executable_file(candidate)) return candidate;
        start = end + 1;
    }
    return {};
}

namespace {

using ChildClock = std::chrono::steady_clock;

// Reads the child's stdout until it closes it, keeping at most max_bytes; false when the
// deadline came first.
bool read_child_output(int fd, ChildClock::time_point deadline, std::size_t max_bytes, std::string& out) {
    char buf[8192];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ChildClock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left > 1000 ? 1000 : left));
        if (r < 0) {
            if (errno == EINTR) continue;
            return true;
        }
        if (r == 0) continue;
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;  // end of output: the child closed stdout
        std::size_t room = max_bytes > out.size() ? max_bytes - out.size() : 0;
        out.append(buf, static_cast<std::size_t>(n) < room ? static_cast<std::size_t>(n) : room);
    }
}

// The child's wait status once it exits; nullopt when the deadline came first. A child may
// close stdout and keep running: the time limit still holds.
std::optional<int> wait_child_until(pid_t pid, ChildClock::time_point deadline) {
    int status = 0;
    for (;;) {
        pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) return status;
        if (ChildClock::now() >= deadline) return std::nullopt;
        ::usleep(5000);
    }
}

void say_how_child_ended(CommandOutput& res, const std::string& exe, std::optional<int> status, double timeout_s) {
    if (!status) {
        res.outcome = CommandOutput::Outcome::timed_out;
        res.why = fmt::format("{}: no answer within {:g}s", exe, timeout_s);
    } else if (WIFEXITED(*status)) {
        res.outcome = CommandOutput::Outcome::exited;
        res.exit_code = WEXITSTATUS(*status);
        if (res.exit_code != 0) res.why = fmt::format("{}: exit status {}", exe, res.exit_code);
    } else {
        res.outcome = CommandOutput::Outcome::signalled;
        res.exit_code = WIFSIGNALED(*status) ? WTERMSIG(*status) : -1;
        res.why = fmt::format("{}: killed by signal {}", exe, res.exit_code);
    }
}

}  // namespace

CommandOutput run_command(const std::vector<std::string>& argv, double timeout_s, std::size_t max_out_bytes) {
    CommandOutput res;
    if (argv.empty()) {
        res.why = "no command";
        return res;
    }
    std::string exe = find_program(argv[0]);
    if (exe.empty()) {
        res.why = fmt::format("{}: not found on PATH", argv[0]);
        return res;
    }
    int out_pipe[2] = {-1, -1};
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        res.why = fmt::format("{}: cannot make a pipe ({})", argv[0], std::strerror(errno));
        return res;
    }
    // stdin and stderr from and to /dev/null; left as they are if it cannot be opened.
    int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    const Forked child = fork_exec(exe, argv, {.fds = {.in = devnull, .out = out_pipe[1], .err = devnull}});
    close_fd(devnull);
    close_fd(out_pipe[1]);
    if (child.failed != Forked::Failed::none) {
        close_fd(out_pipe[0]);
        if (child.failed == Forked::Failed::pipe)
            res.why = fmt::format("{}: cannot make a pipe ({})", argv[0], std::strerror(child.error));
        else if (child.failed == Forked::Failed::fork)
            res.why = fmt::format("{}: cannot fork ({})", argv[0], std::strerror(child.error));
        else
            res.why = fmt::format("{}: cannot run ({})", exe, std::strerror(child.error));
        return res;
    }
    auto deadline = ChildClock::now() + std::chrono::duration_cast<ChildClock::duration>(
                                            std::chrono::duration<double>(timeout_s < 0 ? 0 : timeout_s));
    const bool whole = read_child_output(out_pipe[0], deadline, max_out_bytes, res.out);
    ::close(out_pipe[0]);
    std::optional<int> status = whole ? wait_child_until(child.pid, deadline) : std::nullopt;
    if (!status) {
        ::kill(child.pid, SIGKILL);
        reap(child.pid);
    }
    say_how_child_ended(res, exe, status, timeout_s);
    return res;
}

}  // namespace inferlint::util
