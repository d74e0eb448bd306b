#include "inferlint/util/process.hpp"

#include "inferlint/util/subprocess.hpp"

#include "spawn.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace inferlint::util {

namespace {

int status_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

}  // namespace

Spawned spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options) {
    Spawned res;
    if (argv.empty() || argv[0].empty()) {
        res.error = "no command";
        return res;
    }
    const std::string exe = find_program(argv[0]);
    if (exe.empty()) {
        res.error = fmt::format("{}: not found on PATH", argv[0]);
        return res;
    }
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view entry(*e);
        const auto name = entry.substr(0, entry.find('=') + 1);
        bool replaced = false;
        for (const auto& extra : options.extra_env) replaced |= std::string_view(extra).starts_with(name);
        if (!replaced) env.emplace_back(entry);
    }
    env.insert(env.end(), options.extra_env.begin(), options.extra_env.end());

    int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out_fd = -1;
    int pipe_fds[2] = {-1, -1};
    auto fail = [&](const std::string& why) {
        close_fd(in_fd), close_fd(out_fd), close_fd(pipe_fds[0]), close_fd(pipe_fds[1]);
        res.error = why;
        return res;
    };
    if (options.output == OutputTo::file) {
        out_fd = ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out_fd < 0)
            return fail(fmt::format("{}: cannot write ({})", options.output_file.string(), std::strerror(errno)));
    } else if (options.output == OutputTo::pipe) {
        if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
            return fail(fmt::format("cannot make a pipe ({})", std::strerror(errno)));
        out_fd = pipe_fds[1];
        pipe_fds[1] = -1;
    }

    const Forked child = fork_exec(exe, argv,
                                   {.group = options.group,
                                    .fds = {.in = in_fd, .out = out_fd, .err = out_fd},
                                    .signals = ChildSignals::reset,
                                    .env = &env});
    close_fd(in_fd);
    close_fd(out_fd);
    switch (child.failed) {
        case Forked::Failed::none:
            break;
        case Forked::Failed::pipe:
            return fail(fmt::format("cannot make a pipe ({})", std::strerror(child.error)));
        case Forked::Failed::fork:
            return fail(fmt::format("{}: fork failed ({})", argv[0], std::strerror(child.error)));
        case Forked::Failed::exec:
            return fail(fmt::format("{}: cannot run it ({})", argv[0], std::strerror(child.error)));
    }
    res.pid = child.pid;
    res.output_fd = pipe_fds[0];
    return res;
}

std::optional<ExitInfo> poll_exit_info(int pid) {
    int status = 0;
    pid_t got;
    do {
        got = ::waitpid(pid, &status, WNOHANG);
    } while (got < 0 && errno == EINTR);
    if (got == pid) return ExitInfo{status_of(status), WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    if (got < 0) return ExitInfo{1, 0};  // not our child any more (reaped elsewhere): it has exited
    return std::nullopt;
}

std::optional<int> poll_exit(int pid) {
    auto info = poll_exit_info(pid);
    return info ? std::optional<int>(info->status) : std::nullopt;
}

std::optional<int> wait_exit(int pid, double timeout_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        if (auto rc = poll_exit(pid)) return rc;
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

bool port_in_use(int port) {
    if (port <= 0 || port > 65535) return false;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    // Connections in TIME_WAIT do not hold the port for a new listener; only a listener does.
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    bool in_use = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno == EADDRINUSE;
    ::close(fd);
    return in_use;
}

std::string shell_join(const std::vector<std::string>& argv) {
    auto safe = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::strchr("@%+=:,./_-", c) != nullptr;
    };
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        bool plain = !a.empty();
        for (char c : a) plain = plain && c != '\0' && safe(c);
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace inferlint::util
