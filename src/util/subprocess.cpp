#include "inferlint/util/subprocess.hpp"

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

namespace {

void close_quietly(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// Reaps the child, retrying on EINTR.
int wait_child(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

}  // namespace

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
    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);

    int out_pipe[2] = {-1, -1};
    int err_pipe[2] = {-1, -1};  // carries errno when exec fails; closed by a successful exec
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        res.why = fmt::format("{}: cannot make a pipe ({})", argv[0], std::strerror(errno));
        close_quietly(out_pipe[0]), close_quietly(out_pipe[1]);
        return res;
    }
    pid_t pid = ::fork();
    if (pid < 0) {
        res.why = fmt::format("{}: cannot fork ({})", argv[0], std::strerror(errno));
        for (int* fd : {&out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1]}) close_quietly(*fd);
        return res;
    }
    if (pid == 0) {
        int devnull = ::open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            ::dup2(devnull, STDIN_FILENO);
            ::dup2(devnull, STDERR_FILENO);
        }
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::execv(exe.c_str(), cargv.data());
        int e = errno;
        [[maybe_unused]] auto n = ::write(err_pipe[1], &e, sizeof e);
        ::_exit(127);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    int exec_errno = 0;
    ssize_t got = 0;
    while ((got = ::read(err_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    ::close(err_pipe[0]);
    if (got == static_cast<ssize_t>(sizeof exec_errno)) {
        ::close(out_pipe[0]);
        wait_child(pid);
        res.why = fmt::format("{}: cannot run ({})", exe, std::strerror(exec_errno));
        return res;
    }

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
        wait_child(pid);
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
