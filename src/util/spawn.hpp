// The one fork/exec of util/: run_command (subprocess.cpp) and spawn_process (process.cpp)
// each prepare the child's descriptors and then start it here. Private to src/util.
#pragma once

#include "inferlint/util/process.hpp"

#include <string>
#include <vector>

namespace inferlint::util {

// What the child's descriptors 0, 1 and 2 become; -1 leaves this process's.
struct ChildFds {
    int in = -1;
    int out = -1;
    int err = -1;
};

enum class ChildSignals {
    inherit,  // this process's signal mask and ignored signals carry over the exec
    reset,    // an empty mask, and SIGPIPE at its default (this process may ignore it)
};

struct ChildSetup {
    ProcessGroup group = ProcessGroup::inherit;
    ChildFds fds;
    ChildSignals signals = ChildSignals::inherit;
    const std::vector<std::string>* env = nullptr;  // "NAME=value" each; nullptr: this process's environment
};

struct Forked {
    enum class Failed { none, pipe, fork, exec };
    int pid = -1;  // the running child when failed is none
    Failed failed = Failed::none;
    int error = 0;  // errno of what failed
};

// Forks and execs `exe` (a path: no PATH search here) with argv, argv[0] passed on as
// written. Returns once the exec has happened or failed: a close-on-exec pipe carries the
// child's errno back, and a child whose exec failed is reaped, so a missing or unrunnable
// program is never a child that exits 127. The descriptors in setup stay the caller's to close.
Forked fork_exec(const std::string& exe, const std::vector<std::string>& argv, const ChildSetup& setup);

// Closes fd when open, and marks it closed.
void close_fd(int& fd);

// Waits for the child to exit, retrying on EINTR; its wait status.
int reap(int pid);

}  // namespace inferlint::util
