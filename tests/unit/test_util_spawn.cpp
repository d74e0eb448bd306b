// run_command and spawn_process start children through one fork/exec (src/util/spawn.cpp);
// each keeps what its child gets: descriptors, environment, signals, and how failure reads.
#include "inferlint/util/files.hpp"
#include "inferlint/util/process.hpp"
#include "inferlint/util/signals.hpp"
#include "inferlint/util/subprocess.hpp"

#include "support.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

// Everything a spawned child wrote to its pipe, once it has exited.
std::string drain_spawned(util::Spawned& child) {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(child.output_fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    ::close(child.output_fd);
    util::wait_exit(child.pid, 10);
    return out;
}

// Whether SIGPIPE is among the ignored signals of a /proc/<pid>/status text.
bool ignores_sigpipe(const std::string& status) {
    auto at = status.find("SigIgn:");
    REQUIRE(at != std::string::npos);
    const unsigned long long mask = std::stoull(status.substr(at + 7), nullptr, 16);
    return (mask >> (SIGPIPE - 1)) & 1;
}

}  // namespace

TEST_CASE("run_command: stdin is empty, stderr dropped, stdout kept", "[subprocess]") {
    auto r = util::run_command({"/bin/sh", "-c", "cat; echo err >&2; echo done"}, 10.0);
    CHECK(r.ok());
    CHECK(r.out == "done\n");
}

TEST_CASE("run_command and spawn_process: a program that cannot be executed is said, each its way", "[subprocess]") {
    testsupport::TempDir t;
    const auto script = (t.path / "not-exec").string();
    util::write_file(script, "#!/bin/sh\necho ran\n");
    fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
    auto r = util::run_command({script}, 10.0);
    CHECK(r.outcome == util::CommandOutput::Outcome::not_started);
    CHECK(r.why == script + ": cannot run (Permission denied)");
    auto s = util::spawn_process({script}, {});
    CHECK_FALSE(s.started());
    CHECK(s.error == script + ": cannot run it (Permission denied)");
}

TEST_CASE("spawn_process: extra_env replaces a variable, and output goes to the pipe", "[subprocess]") {
    ::setenv("INFERLINT_SPAWN_TEST", "old", 1);
    auto child = util::spawn_process({"/bin/sh", "-c", "env | grep '^INFERLINT_SPAWN_TEST='; echo err >&2"},
                                     {.output = util::OutputTo::pipe, .extra_env = {"INFERLINT_SPAWN_TEST=new"}});
    ::unsetenv("INFERLINT_SPAWN_TEST");
    REQUIRE(child.started());
    CHECK(drain_spawned(child) == "INFERLINT_SPAWN_TEST=new\nerr\n");
}

TEST_CASE("a parent ignoring SIGPIPE: spawn_process's child gets it back, run_command's keeps ignoring",
          "[subprocess]") {
    util::SignalGuard guard({}, util::BrokenPipe::ignore);
    auto spawned = util::spawn_process({"cat", "/proc/self/status"}, {.output = util::OutputTo::pipe});
    REQUIRE(spawned.started());
    CHECK_FALSE(ignores_sigpipe(drain_spawned(spawned)));
    auto ran = util::run_command({"cat", "/proc/self/status"}, 10.0);
    REQUIRE(ran.ok());
    CHECK(ignores_sigpipe(ran.out));
}
