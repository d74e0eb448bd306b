// The process table from a /proc tree: synthetic trees written here, and the real /proc.
#include "support.hpp"

#include "inferlint/parse/procfs.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

using testsupport::TempDir;

void procfs_write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// One process as the kernel shows it: cmdline NUL-separated, stat "pid (comm) S ppid ...".
void procfs_add_proc(const fs::path& root, int pid, int ppid, const std::vector<std::string>& argv,
                     const std::string& comm) {
    auto d = root / std::to_string(pid);
    fs::create_directories(d);
    std::string cmdline;
    for (const auto& a : argv) cmdline += a + '\0';
    procfs_write(d / "cmdline", cmdline);
    procfs_write(d / "stat", std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) + " 1 1 0 -1\n");
    procfs_write(d / "comm", comm + "\n");
}

}  // namespace

TEST_CASE("procfs: stat keeps a name with spaces and parentheses whole", "[procfs]") {
    auto st = procfs::parse_stat(
        "4242 (a (weird) name) ) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 "
        "987654 1000 10 18446744073709551615\n");
    REQUIRE(st);
    CHECK(st->pid == 4242);
    CHECK(st->comm == "a (weird) name) ");
    CHECK(st->state == 'S');
    CHECK(st->ppid == 17);
    CHECK(st->start_ticks == 987654);

    auto short_line = procfs::parse_stat("7 (x) S 3 1 1 0 -1\n");
    REQUIRE(short_line);
    CHECK(short_line->ppid == 3);
    CHECK(short_line->start_ticks == 0);  // a synthetic line that stops early: unknown
}

TEST_CASE("procfs: garbage stat lines are refused, not guessed", "[procfs]") {
    CHECK_FALSE(procfs::parse_stat(""));
    CHECK_FALSE(procfs::parse_stat("no parentheses at all"));
    CHECK_FALSE(procfs::parse_stat("12 (x)"));
    CHECK_FALSE(procfs::parse_stat("12 (x) S"));
    CHECK_FALSE(procfs::parse_stat("12 (x) S parent"));
    CHECK_FALSE(procfs::parse_stat("pid (x) S 1"));
    CHECK_FALSE(procfs::parse_stat(std::string("\x01\xff\0(\0)", 6)));
    CHECK_FALSE(procfs::parse_stat("12 (x) S 99999999999999999999"));
}

TEST_CASE("procfs: cmdline splits on NUL, drops empties, trims setproctitle padding", "[procfs]") {
    using V = std::vector<std::string>;
    CHECK(procfs::parse_cmdline(std::string("vllm\0serve\0/models/m\0", 21)) == V{"vllm", "serve", "/models/m"});
    CHECK(procfs::parse_cmdline(std::string("VLLM::Worker_TP0  \0\0\0\0", 22)) == V{"VLLM::Worker_TP0"});
    CHECK(procfs::parse_cmdline("") == V{});  // a kernel thread
    CHECK(procfs::parse_cmdline(std::string("tail\0-f\0logs/vllm serve.log", 27)) ==
          V{"tail", "-f", "logs/vllm serve.log"});
    // Renamed processes can also procfs_write one long string with spaces and no NULs.
    CHECK(procfs::parse_cmdline("sglang::scheduler   ") == V{"sglang::scheduler"});
}

TEST_CASE("procfs: a synthetic tree is read, vanished and non-process entries skipped", "[procfs]") {
    TempDir t;
    procfs_add_proc(t.path, 1, 0, {"/sbin/init"}, "init");
    procfs_add_proc(t.path, 100, 1, {"bash", "run_campaign.sh"}, "bash");
    procfs_add_proc(t.path, 200, 100, {"/opt/venv/bin/python", "/opt/venv/bin/vllm", "serve", "/models/m"}, "vllm");
    procfs_add_proc(t.path, 201, 200, {"VLLM::EngineCore"}, "VLLM::EngineCor");
    fs::create_directories(t.path / "self");
    fs::create_directories(t.path / "999");  // exited while we looked: no files
    auto got = procfs::list_processes(t.path);
    std::map<int, procfs::Proc> by_pid;
    for (auto& p : got) by_pid[p.pid] = p;
    REQUIRE(by_pid.size() == 4);
    CHECK(by_pid.count(1));
    CHECK(by_pid.count(100));
    CHECK(by_pid[201].argv == std::vector<std::string>{"VLLM::EngineCore"});
    CHECK(by_pid[201].comm == "VLLM::EngineCor");
    CHECK(by_pid[200].ppid == 100);
    CHECK(by_pid[200].cmdline() == "/opt/venv/bin/python /opt/venv/bin/vllm serve /models/m");
}

TEST_CASE("procfs: unreadable and garbled entries are skipped, kernel threads kept", "[procfs]") {
    TempDir t;
    procfs_add_proc(t.path, 10, 1, {"ok"}, "ok");
    procfs_add_proc(t.path, 2, 0, {}, "kthreadd");  // empty cmdline
    // A cmdline we cannot read (a folder where the file should be; root reads mode 000 files).
    procfs_add_proc(t.path, 11, 1, {"x"}, "x");
    fs::remove(t.path / "11" / "cmdline");
    fs::create_directories(t.path / "11" / "cmdline");
    // Garbage in stat.
    procfs_add_proc(t.path, 12, 1, {"y"}, "y");
    procfs_write(t.path / "12" / "stat", "\x89PNG\r\n\x1a\n garbage");
    // Binary junk in cmdline and comm: read, not a crash.
    procfs_add_proc(t.path, 13, 1, {}, "z");
    procfs_write(t.path / "13" / "cmdline", std::string("\xff\xfe\0\x01\x02\0", 6));
    // No comm file.
    procfs_add_proc(t.path, 14, 1, {"w"}, "w");
    fs::remove(t.path / "14" / "comm");
    // A name that is all digits but too large for a pid.
    fs::create_directories(t.path / "99999999999999999999");

    std::set<int> pids;
    for (const auto& p : procfs::list_processes(t.path)) pids.insert(p.pid);
    CHECK(pids == std::set<int>{2, 10, 13});
    auto kthread = procfs::read_process(t.path, 2);
    REQUIRE(kthread);
    CHECK(kthread->argv.empty());
    CHECK(kthread->comm == "kthreadd");
    CHECK_FALSE(procfs::read_process(t.path, 11));
    CHECK(procfs::list_processes(t.path / "missing").empty());
}

TEST_CASE("procfs: the real /proc shows this test process and its parent", "[procfs]") {
    if (!fs::is_directory("/proc/self")) {
        WARN("skipped: no /proc here");
        return;
    }
    auto me = procfs::read_process("/proc", static_cast<int>(::getpid()));
    REQUIRE(me);
    CHECK(me->ppid == static_cast<int>(::getppid()));
    REQUIRE_FALSE(me->argv.empty());
    CHECK(fs::read_symlink("/proc/self/exe").filename().string().starts_with(me->comm));
    CHECK(me->start_ticks > 0);
    bool listed = false;
    for (const auto& p : procfs::list_processes("/proc")) listed |= p.pid == me->pid;
    CHECK(listed);
}
