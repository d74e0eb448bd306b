// Running a program with an argv (never through a shell) and capturing what it prints.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace inferlint::util {

struct CommandOutput {
    enum class Outcome {
        exited,       // ran to the end; exit_code holds its status
        not_started,  // missing, not executable, or fork/exec failed; why says which
        timed_out,    // killed after the time limit
        signalled,    // died of a signal; exit_code holds the signal number
    };
    Outcome outcome = Outcome::not_started;
    int exit_code = -1;
    std::string out;  // stdout; stderr is discarded
    std::string why;  // for anything but a clean exit: one line, for messages

    bool ok() const { return outcome == Outcome::exited && exit_code == 0; }
};

// Runs argv[0] (searched on PATH when it holds no '/') with stdin from /dev/null.
// Stdout beyond max_out_bytes is read and dropped, so a chatty program cannot fill memory.
CommandOutput run_command(const std::vector<std::string>& argv, double timeout_s,
                          std::size_t max_out_bytes = std::size_t{1} << 20);

// A regular file this process may execute.
bool is_executable_file(const std::string& path);

// The path a program name resolves to on PATH (or the name itself when it holds a '/');
// empty when none is found.
std::string find_program(const std::string& name);

}  // namespace inferlint::util
