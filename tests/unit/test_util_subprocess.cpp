#include "inferlint/util/subprocess.hpp"

#include "support.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace fs = std::filesystem;
using inferlint::util::CommandOutput;
using inferlint::util::find_program;
using inferlint::util::is_executable_file;
using inferlint::util::run_command;
using Outcome = CommandOutput::Outcome;

namespace {

// A script file in `dir` with the given mode.
fs::path subprocess_script(const fs::path& dir, const std::string& name, const std::string& body, mode_t mode) {
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    ::chmod(p.c_str(), mode);
    return p;
}

// PATH set for the scope of one test, then put back.
struct ScopedPath {
    std::string saved;
    bool had = false;
    explicit ScopedPath(const std::string& value) {
        if (const char* p = std::getenv("PATH")) had = true, saved = p;
        ::setenv("PATH", value.c_str(), 1);
    }
    ~ScopedPath() {
        if (had)
            ::setenv("PATH", saved.c_str(), 1);
        else
            ::unsetenv("PATH");
    }
};

}  // namespace

TEST_CASE("run_command captures stdout whole and discards stderr", "[subprocess]") {
    auto r = run_command({"sh", "-c", "printf 'one\\ntwo'; echo noise >&2; printf '\\nthree\\n'"}, 30);
    CHECK(r.outcome == Outcome::exited);
    CHECK(r.exit_code == 0);
    CHECK(r.ok());
    CHECK(r.why.empty());
    CHECK(r.out == "one\ntwo\nthree\n");
}

TEST_CASE("run_command passes the arguments as they are, never through a shell", "[subprocess]") {
    auto r = run_command({"printf", "%s|", "a b", "$HOME", "*", "'q'"}, 30);
    REQUIRE(r.ok());
    CHECK(r.out == "a b|$HOME|*|'q'|");
}

TEST_CASE("run_command gives the child /dev/null for stdin", "[subprocess]") {
    // cat on an inherited terminal or pipe would wait for input until the time limit
    auto r = run_command({"cat"}, 30);
    CHECK(r.outcome == Outcome::exited);
    CHECK(r.ok());
    CHECK(r.out.empty());
}

TEST_CASE("run_command: a non-zero exit is said with the program and status", "[subprocess]") {
    auto r = run_command({"sh", "-c", "echo partial; exit 3"}, 30);
    CHECK(r.outcome == Outcome::exited);
    CHECK(r.exit_code == 3);
    CHECK_FALSE(r.ok());
    CHECK(r.out == "partial\n");
    CHECK(r.why == find_program("sh") + ": exit status 3");
}

TEST_CASE("run_command: a program missing from PATH is not started, and says so", "[subprocess]") {
    auto r = run_command({"inferlint-no-such-program-here"}, 30);
    CHECK(r.outcome == Outcome::not_started);
    CHECK_FALSE(r.ok());
    CHECK(r.why == "inferlint-no-such-program-here: not found on PATH");
    auto none = run_command({}, 30);
    CHECK(none.outcome == Outcome::not_started);
    CHECK(none.why == "no command");
}

TEST_CASE("run_command: a file that cannot be executed is not started, with the reason", "[subprocess]") {
    testsupport::TempDir tmp("subprocess");
    const fs::path p = subprocess_script(tmp.path, "plain.sh", "echo hi", 0644);
    auto r = run_command({p.string()}, 30);
    CHECK(r.outcome == Outcome::not_started);
    CHECK(r.why == p.string() + ": cannot run (Permission denied)");
    CHECK(r.exit_code == -1);
}

TEST_CASE("run_command: past the time limit the child is killed and the outcome is timed_out", "[subprocess]") {
    auto r = run_command({"sleep", "60"}, 0.2);
    CHECK(r.outcome == Outcome::timed_out);
    CHECK_FALSE(r.ok());
    CHECK(r.why == find_program("sleep") + ": no answer within 0.2s");
}

TEST_CASE("run_command: a child that closes stdout and keeps running still meets the time limit", "[subprocess]") {
    auto r = run_command({"sh", "-c", "echo early; exec >&-; exec sleep 60"}, 0.3);
    CHECK(r.outcome == Outcome::timed_out);
    CHECK(r.out == "early\n");
}

TEST_CASE("run_command: a child killed by a signal is signalled, with the signal's number", "[subprocess]") {
    auto r = run_command({"sh", "-c", "kill -TERM $$"}, 30);
    CHECK(r.outcome == Outcome::signalled);
    CHECK(r.exit_code == 15);
    CHECK(r.why == find_program("sh") + ": killed by signal 15");
}

TEST_CASE("run_command keeps at most max_out_bytes and still reads the child to its end", "[subprocess]") {
    auto r = run_command({"head", "-c", "300000", "/dev/zero"}, 30, 1000);
    CHECK(r.outcome == Outcome::exited);
    CHECK(r.ok());
    CHECK(r.out.size() == 1000);
    CHECK(r.out == std::string(1000, '\0'));
}

TEST_CASE("find_program searches PATH in order, taking only executable files", "[subprocess]") {
    testsupport::TempDir tmp("subprocess");
    fs::create_directories(tmp.path / "a");
    fs::create_directories(tmp.path / "b");
    fs::create_directories(tmp.path / "c" / "tool");            // a folder by that name is no program
    subprocess_script(tmp.path / "a", "tool", "echo a", 0644);  // not executable: passed over
    const fs::path b = subprocess_script(tmp.path / "b", "tool", "echo b", 0755);
    {
        ScopedPath path((tmp.path / "c").string() + ":" + (tmp.path / "a").string() + ":" + (tmp.path / "b").string());
        CHECK(find_program("tool") == b.string());
        CHECK(find_program("absent-tool").empty());
        auto r = run_command({"tool"}, 30);
        CHECK(r.ok());
        CHECK(r.out == "b\n");
    }
    CHECK(find_program("tool").empty());
}

TEST_CASE("find_program takes a name with a slash as a path, as given", "[subprocess]") {
    CHECK(find_program("./relative/prog") == "./relative/prog");
    CHECK(find_program("/no/such/prog") == "/no/such/prog");
    CHECK(find_program("").empty());
    const std::string sh = find_program("sh");
    REQUIRE_FALSE(sh.empty());
    CHECK(fs::path(sh).is_absolute());
    CHECK(is_executable_file(sh));
}

TEST_CASE("is_executable_file: a regular file with the execute bit, not a folder or a plain file", "[subprocess]") {
    testsupport::TempDir tmp("subprocess");
    CHECK(is_executable_file(subprocess_script(tmp.path, "x", "true", 0755).string()));
    CHECK_FALSE(is_executable_file(subprocess_script(tmp.path, "plain", "true", 0644).string()));
    CHECK_FALSE(is_executable_file(tmp.path.string()));
    CHECK_FALSE(is_executable_file((tmp.path / "missing").string()));
}
