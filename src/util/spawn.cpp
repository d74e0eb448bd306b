#include "spawn.hpp"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace inferlint::util {

namespace {

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const char* exe, char* const* argv, char* const* envp, const ChildSetup& setup,
                             int report_fd) {
    if (setup.group == ProcessGroup::new_session) ::setsid();
    if (setup.group == ProcessGroup::own_group) ::setpgid(0, 0);
    if (setup.signals == ChildSignals::reset) {
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        // The parent may ignore SIGPIPE; a child that writes to a closed pipe should die of it.
        ::signal(SIGPIPE, SIG_DFL);
    }
    if (setup.fds.in >= 0) ::dup2(setup.fds.in, STDIN_FILENO);
    if (setup.fds.out >= 0) ::dup2(setup.fds.out, STDOUT_FILENO);
    if (setup.fds.err >= 0) ::dup2(setup.fds.err, STDERR_FILENO);
    if (envp)
        ::execve(exe, argv, envp);
    else
        ::execv(exe, argv);
    int err = errno;
    [[maybe_unused]] ssize_t n = ::write(report_fd, &err, sizeof err);
    ::_exit(127);
}

}  // namespace

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

int reap(int pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

Forked fork_exec(const std::string& exe, const std::vector<std::string>& argv, const ChildSetup& setup) {
    Forked res;
    // Everything the child needs is made before fork.
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    std::vector<char*> cenv;
    if (setup.env) {
        for (const auto& e : *setup.env) cenv.push_back(const_cast<char*>(e.c_str()));
        cenv.push_back(nullptr);
    }
    int report[2] = {-1, -1};  // carries errno when exec fails; a successful exec closes it
    if (::pipe2(report, O_CLOEXEC) != 0) {
        res.failed = Forked::Failed::pipe;
        res.error = errno;
        return res;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        res.failed = Forked::Failed::fork;
        res.error = errno;
        close_fd(report[0]), close_fd(report[1]);
        return res;
    }
    if (pid == 0) exec_child(exe.c_str(), cargv.data(), setup.env ? cenv.data() : nullptr, setup, report[1]);

    close_fd(report[1]);
    int err = 0;
    ssize_t n;
    do {
        n = ::read(report[0], &err, sizeof err);
    } while (n < 0 && errno == EINTR);
    close_fd(report[0]);
    if (n == static_cast<ssize_t>(sizeof err)) {
        reap(pid);
        res.failed = Forked::Failed::exec;
        res.error = err;
        return res;
    }
    res.pid = pid;
    return res;
}

}  // namespace inferlint::util
