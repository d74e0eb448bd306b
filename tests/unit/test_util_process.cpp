#include "inferlint/util/process.hpp"

#include "support.hpp"

#include <arpa/inet.h>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace inferlint;
using util::OutputTo;
using util::ProcessGroup;
using util::SpawnOptions;

namespace {

// Everything the child writes to its pipe, to the end; closes the pipe.
std::string drain_pipe(int fd) {
    std::string out;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

// Runs argv with its output to a pipe: (exit status, output).
std::pair<int, std::string> spawn_and_read(const std::vector<std::string>& argv, SpawnOptions options = {}) {
    options.output = OutputTo::pipe;
    auto s = util::spawn_process(argv, options);
    REQUIRE(s.started());
    REQUIRE(s.output_fd >= 0);
    std::string out = drain_pipe(s.output_fd);
    auto rc = util::wait_exit(s.pid, 60);
    REQUIRE(rc);
    return {*rc, out};
}

// A child that runs until the test kills it (the test's own child, by its pid).
struct SleepingChild {
    util::Spawned s;
    explicit SleepingChild(ProcessGroup group) {
        s = util::spawn_process({"sleep", "60"}, SpawnOptions{.group = group});
        REQUIRE(s.started());
    }
    ~SleepingChild() {
        if (s.pid > 0 && !util::poll_exit(s.pid)) {
            ::kill(s.pid, SIGKILL);
            util::wait_exit(s.pid, 60);
        }
    }
};

}  // namespace

TEST_CASE("spawn_process: the child's exit status is what wait_exit gives", "[process]") {
    auto s = util::spawn_process({"sh", "-c", "exit 7"}, {});
    REQUIRE(s.started());
    CHECK(s.error.empty());
    CHECK(s.output_fd == -1);
    CHECK(util::wait_exit(s.pid, 60) == 7);
}

TEST_CASE("spawn_process: stdout and stderr go to the pipe, in the order written", "[process]") {
    auto [rc, out] = spawn_and_read({"sh", "-c", "echo one; echo two >&2; echo three"});
    CHECK(rc == 0);
    CHECK(out == "one\ntwo\nthree\n");
}

TEST_CASE("spawn_process: OutputTo::file truncates the file and holds both streams in order", "[process]") {
    testsupport::TempDir tmp("process");
    const fs::path log = tmp.path / "out.log";
    std::ofstream(log) << "an older and much longer log that must go\n";
    auto s = util::spawn_process({"sh", "-c", "echo out; echo err >&2"},
                                 SpawnOptions{.output = OutputTo::file, .output_file = log});
    REQUIRE(s.started());
    CHECK(s.output_fd == -1);
    CHECK(util::wait_exit(s.pid, 60) == 0);
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text == "out\nerr\n");
}

TEST_CASE("spawn_process: an output file that cannot be made is an error naming it", "[process]") {
    testsupport::TempDir tmp("process");
    const fs::path log = tmp.path / "no-such-folder" / "out.log";
    auto s = util::spawn_process({"true"}, SpawnOptions{.output = OutputTo::file, .output_file = log});
    CHECK_FALSE(s.started());
    CHECK(s.pid == -1);
    CHECK(s.error == log.string() + ": cannot write (No such file or directory)");
}

TEST_CASE("spawn_process: argv is passed as written, without a shell", "[process]") {
    auto [rc, out] = spawn_and_read({"printf", "%s|", "a b", "$HOME", ";", "*"});
    CHECK(rc == 0);
    CHECK(out == "a b|$HOME|;|*|");
}

TEST_CASE("spawn_process: stdin is /dev/null", "[process]") {
    auto [rc, out] = spawn_and_read({"cat"});
    CHECK(rc == 0);
    CHECK(out.empty());
}

TEST_CASE("spawn_process: extra_env adds a variable and replaces one the caller has", "[process]") {
    ::setenv("INFERLINT_TEST_REPLACED", "old", 1);
    SpawnOptions o;
    o.extra_env = {"INFERLINT_TEST_REPLACED=new", "INFERLINT_TEST_ADDED=42"};
    auto [rc, out] = spawn_and_read({"sh", "-c", "env | grep '^INFERLINT_TEST_' | sort"}, o);
    ::unsetenv("INFERLINT_TEST_REPLACED");
    CHECK(rc == 0);
    CHECK(out == "INFERLINT_TEST_ADDED=42\nINFERLINT_TEST_REPLACED=new\n");
}

TEST_CASE("spawn_process: a missing or non-executable program is an error, never a child exiting 127", "[process]") {
    auto missing = util::spawn_process({"inferlint-no-such-program-here"}, {});
    CHECK_FALSE(missing.started());
    CHECK(missing.error == "inferlint-no-such-program-here: not found on PATH");

    testsupport::TempDir tmp("process");
    const fs::path plain = tmp.path / "plain.sh";
    std::ofstream(plain) << "#!/bin/sh\necho hi\n";
    ::chmod(plain.c_str(), 0644);
    auto denied = util::spawn_process({plain.string()}, {});
    CHECK_FALSE(denied.started());
    CHECK(denied.pid == -1);
    CHECK(denied.error == plain.string() + ": cannot run it (Permission denied)");

    auto none = util::spawn_process({}, {});
    CHECK(none.error == "no command");
    CHECK(util::spawn_process({""}, {}).error == "no command");
}

TEST_CASE("spawn_process: the child's process group and session are as asked", "[process]") {
    SECTION("inherit: the caller's group") {
        SleepingChild c(ProcessGroup::inherit);
        CHECK(::getpgid(c.s.pid) == ::getpgrp());
        CHECK(::getsid(c.s.pid) == ::getsid(0));
    }
    SECTION("own_group: a group led by the child, in the caller's session") {
        SleepingChild c(ProcessGroup::own_group);
        CHECK(::getpgid(c.s.pid) == c.s.pid);
        CHECK(::getsid(c.s.pid) == ::getsid(0));
    }
    SECTION("new_session: a session led by the child") {
        SleepingChild c(ProcessGroup::new_session);
        CHECK(::getsid(c.s.pid) == c.s.pid);
        CHECK(::getpgid(c.s.pid) == c.s.pid);
    }
}

TEST_CASE("poll_exit: nothing while the child runs; 128 + the signal once it is killed", "[process]") {
    SleepingChild c(ProcessGroup::own_group);
    CHECK(util::poll_exit(c.s.pid) == std::nullopt);
    CHECK(util::wait_exit(c.s.pid, 0.05) == std::nullopt);  // still running: no status yet
    REQUIRE(::kill(c.s.pid, SIGKILL) == 0);
    CHECK(util::wait_exit(c.s.pid, 60) == 128 + SIGKILL);
    // reaped: asking again says it has exited, with no status to give
    CHECK(util::poll_exit(c.s.pid) == 1);
}

TEST_CASE("port_in_use: true while a listener holds the port, false once it is closed", "[process]") {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd, 1) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    const int port = ntohs(addr.sin_port);
    CHECK(util::port_in_use(port));
    ::close(fd);
    CHECK_FALSE(util::port_in_use(port));
}

TEST_CASE("port_in_use: a number that is no port is not in use", "[process]") {
    CHECK_FALSE(util::port_in_use(0));
    CHECK_FALSE(util::port_in_use(-1));
    CHECK_FALSE(util::port_in_use(65536));
}

TEST_CASE("shell_join quotes as POSIX shlex.join does", "[process]") {
    CHECK(util::shell_join({"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len=4096", "--port", "8000"}) ==
          "vllm serve Qwen/Qwen3-8B --max-model-len=4096 --port 8000");
    CHECK(util::shell_join({"echo", "a b", "", "$HOME", "x;y"}) == "echo 'a b' '' '$HOME' 'x;y'");
    CHECK(util::shell_join({"echo", "it's"}) == "echo 'it'\"'\"'s'");
    CHECK(util::shell_join({"user@host:1%,+=._-/"}) == "user@host:1%,+=._-/");
    CHECK(util::shell_join({}).empty());
}
