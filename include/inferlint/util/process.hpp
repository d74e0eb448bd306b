// Starting a long-lived child process with an argv (never through a shell): in its own
// process group or session, its output to a file or a pipe. For the short commands whose
// output is wanted whole, see subprocess.hpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::util {

enum class ProcessGroup {
    inherit,      // the caller's group: a terminal's Ctrl-C reaches it too
    own_group,    // a group of its own, in the caller's session
    new_session,  // a session (and group) of its own: signalled as a whole, never by the terminal
};

enum class OutputTo {
    inherit,  // the caller's stdout and stderr
    file,     // stdout and stderr appended in order to `output_file` (created or truncated)
    pipe,     // stdout and stderr to a pipe; Spawned::output_fd is its read end
};

struct SpawnOptions {
    ProcessGroup group = ProcessGroup::inherit;
    OutputTo output = OutputTo::inherit;
    std::filesystem::path output_file;
    std::vector<std::string> extra_env;  // "NAME=value", set (or replaced) in the child's environment
};

struct Spawned {
    int pid = -1;
    int output_fd = -1;  // with OutputTo::pipe; the caller closes it
    std::string error;   // set (and pid -1) when the program could not be started

    bool started() const { return pid > 0; }
};

// Starts argv[0] (searched on PATH when it holds no '/'; argv[0] itself is passed on as
// written) with stdin from /dev/null. A program that is missing or cannot be executed is
// reported in `error`, never as a child that exits 127.
Spawned spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options);

// The exit status of a child of this process, as a shell reports it (128 + the signal for
// one killed by a signal), once it has exited; nullopt while it runs. Reaps the child.
std::optional<int> poll_exit(int pid);

// The same, with the signal that killed the child (0 when it exited by itself), which a
// status of 128 + N alone cannot tell from an exit with that code.
struct ExitInfo {
    int status = 0;
    int signal = 0;
};
std::optional<ExitInfo> poll_exit_info(int pid);

// Waits for the child to exit (at most timeout_s); its status as poll_exit gives it.
std::optional<int> wait_exit(int pid, double timeout_s);

// True when a TCP listener holds `port` on any local address (binding it fails with
// "address in use").
bool port_in_use(int port);

// A command line as POSIX shlex.join writes it: words with anything but
// [A-Za-z0-9@%+=:,./_-] in single quotes, for showing a command a shell would read back.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace inferlint::util
