#include "inferlint/util/subprocess.hpp"

#include "spawn.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
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
    const Forked child =
        fork_exec(exe, argv, {.fds = {.in = devnull, .out = out_pipe[1], .err = devnull}});
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
    const pid_t pid = child.pid;

    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(timeout_s < 0 ? 0 : timeout_s));
    bool timed_out = false;
    char buf[8192];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{out_pipe[0], POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left > 1000 ? 1000 : left));
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (r == 0) continue;
        ssize_t n = ::read(out_pipe[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // end of output: the child closed stdout
        std::size_t room = max_out_bytes > res.out.size() ? max_out_bytes - res.out.size() : 0;
        res.out.append(buf, static_cast<std::size_t>(n) < room ? static_cast<std::size_t>(n) : room);
    }
    ::close(out_pipe[0]);
    // A child may close stdout and keep running: the time limit still holds.
    int status = 0;
    while (!timed_out) {
        pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (Clock::now() >= deadline) {
            timed_out = true;
            break;
        }
        ::usleep(5000);
    }
    if (timed_out) {
        ::kill(pid, SIGKILL);
        reap(pid);
    }
    if (timed_out) {
        res.outcome = CommandOutput::Outcome::timed_out;
        res.why = fmt::format("{}: no answer within {:g}s", exe, timeout_s);
    } else if (WIFEXITED(status)) {
        res.outcome = CommandOutput::Outcome::exited;
        res.exit_code = WEXITSTATUS(status);
        if (res.exit_code != 0) res.why = fmt::format("{}: exit status {}", exe, res.exit_code);
    } else {
        res.outcome = CommandOutput::Outcome::signalled;
        res.exit_code = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
        res.why = fmt::format("{}: killed by signal {}", exe, res.exit_code);
    }
    return res;
}

}  // namespace inferlint::util
