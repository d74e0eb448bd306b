// The process table, read from a /proc tree (the real one, or a synthetic one in tests).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::procfs {

struct Proc {
    int pid = 0;
    int ppid = 0;
    std::vector<std::string> argv;  // empty for kernel threads and zombies
    std::string comm;               // the kernel's 15-character process name
    // Clock ticks after boot at which the process started: with the pid, it names one
    // process even after the pid is reused. 0 when unknown.
    std::uint64_t start_ticks = 0;

    // argv joined by spaces: what `pkill -f` matches against.
    std::string cmdline() const;
};

struct Stat {
    int pid = 0;
    std::string comm;
    char state = '?';
    int ppid = 0;
    std::uint64_t start_ticks = 0;
};

// A /proc/<pid>/stat line: "pid (comm) state ppid ...". The name may hold spaces and
// parentheses, so it ends at the LAST ')'. nullopt for a line that does not parse.
std::optional<Stat> parse_stat(std::string_view line);

// A /proc/<pid>/cmdline: NUL-separated arguments. Empty arguments are dropped, and each
// is trimmed, because a process that renamed itself may pad argv[0] with spaces.
std::vector<std::string> parse_cmdline(std::string_view raw);

// Every process under proc_root whose cmdline, stat and comm can be read. A process that
// exits while it is read, or is not ours to read, or has a garbled stat, is skipped.
std::vector<Proc> list_processes(const std::filesystem::path& proc_root = "/proc");

// The one process at proc_root/pid, or nullopt when it is gone or unreadable.
std::optional<Proc> read_process(const std::filesystem::path& proc_root, int pid);

}  // namespace inferlint::procfs
