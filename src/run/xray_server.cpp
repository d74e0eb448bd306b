// The server an xray run starts: in a session of its own, so the whole server (API process
// and engine) can be signalled at once and a terminal's Ctrl-C reaches xray, not the
// server, which xray then stops in order.
#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/parse/procfs.hpp"
#include "inferlint/run/gpu.hpp"
#include "inferlint/util/http.hpp"
#include "inferlint/util/process.hpp"
#include "xray_internal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

namespace inferlint::xray::detail {

namespace {

constexpr std::string_view kReadyMarker = "Application startup complete";

double steady_now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What /proc/<pid>/stat says of a process that has not exited: its parent, session and
// start time. nullopt for one that is gone or a zombie.
struct Ids {
    int ppid = 0;
    int pgrp = 0;
    int session = 0;
    std::uint64_t start_ticks = 0;
};
std::optional<Ids> read_ids(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!f || !std::getline(f, line)) return std::nullopt;
    auto st = procfs::parse_stat(line);
    if (!st || st->state == 'Z' || st->state == 'X') return std::nullopt;
    // After the name: state ppid pgrp session ...
    auto close = line.rfind(')');
    std::vector<std::string> fields;
    std::string word;
    for (std::size_t i = close + 1; i < line.size() && fields.size() < 4; ++i) {
        if (line[i] == ' ') {
            if (!word.empty()) fields.push_back(word), word.clear();
        } else {
            word += line[i];
        }
    }
    if (!word.empty() && fields.size() < 4) fields.push_back(word);
    if (fields.size() < 4) return std::nullopt;
    Ids ids;
    ids.ppid = st->ppid;
    ids.start_ticks = st->start_ticks;
    try {
        ids.pgrp = std::stoi(fields[2]);
        ids.session = std::stoi(fields[3]);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return ids;
}

std::vector<int> numeric_dirs(const fs::path& root) {
    std::vector<int> pids;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        try {
            pids.push_back(std::stoi(name));
        } catch (const std::exception&) {}
    }
    return pids;
}

}  // namespace

void nap(double s) {
    const double until = steady_now_s() + s;
    while (!interrupted()) {
        double left = until - steady_now_s();
        if (left <= 0) return;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
    }
}

bool healthy(const std::string& url, double timeout_s) {
    try {
        return util::http_get(url + "/health", {.connect_s = timeout_s, .read_s = timeout_s, .total_s = timeout_s})
                   .status == 200;
    } catch (const std::exception&) {
        return false;
    }
}

std::optional<std::string> server_version(const std::string& url) {
    for (const char* path : {"/version", "/get_server_info"}) {
        try {
            auto r = util::http_get(url + path, {.connect_s = 5, .read_s = 5, .total_s = 5});
            if (r.status != 200) continue;
            auto doc = nlohmann::json::parse(r.body, nullptr, false);
            if (doc.is_object() && doc.contains("version") && doc["version"].is_string()) {
                std::string v = doc["version"].get<std::string>();
                if (!v.empty()) return v;
            }
        } catch (const std::exception&) {}
    }
    return std::nullopt;
}

namespace {

// The start gate's clock: its sleeps end early on a signal, and once one is caught its
// time has run out, so the wait ends at once (the run then says it was interrupted).
class GateClock final : public run::Clock {
public:
    double now_s() override { return steady_now_s() + (interrupted() ? 1e9 : 0.0); }
    void sleep_s(double s) override { nap(s); }
};

}  // namespace

CheckResult gpu_free(const Machine& machine, const Timings& t) {
    auto live = [&] { return static_cast<int>(machine.server_pids().size()); };
    GateClock clock;
    auto res = run::wait_clear(machine.read_used, live,
                               {.interval_s = t.clear_interval_s, .timeout_s = t.gpu_gate_timeout_s}, clock);
    return checks::check_gpu_clear_to_start_server(res);
}

Server::Server(const std::vector<std::string>& argv, const fs::path& log) {
    auto child = util::spawn_process(
        argv, {.group = util::ProcessGroup::new_session, .output = util::OutputTo::file, .output_file = log});
    pid_ = child.pid;
    error_ = child.error;
    if (started()) scan();
}

Server::~Server() {
    if (!started() || stopped_) return;
    send(SIGKILL);
    util::wait_exit(pid_, 5.0);
}

std::optional<int> Server::exit_status() {
    if (!exit_ && started()) exit_ = util::poll_exit(pid_);
    return exit_;
}

void Server::scan() {
    if (!started()) return;
    std::map<int, Ids> procs;
    for (int pid : numeric_dirs("/proc"))
        if (auto ids = read_ids(pid)) procs.emplace(pid, *ids);
    std::set<int> ours;
    for (const auto& [pid, ids] : procs)
        if (ids.session == pid_) ours.insert(pid);
    // Anything the server started, even one that left its session.
    std::vector<int> todo(ours.begin(), ours.end());
    // Once reaped, the server's pid may name another process: walk from it only before.
    if (!exit_ && !ours.count(pid_)) todo.push_back(pid_);
    while (!todo.empty()) {
        int parent = todo.back();
        todo.pop_back();
        for (const auto& [pid, ids] : procs)
            if (ids.ppid == parent && ours.insert(pid).second) todo.push_back(pid);
    }
    for (int pid : ours) {
        auto ticks = procs.at(pid).start_ticks;
        bool known = std::any_of(members_.begin(), members_.end(),
                                 [&](const Member& m) { return m.pid == pid && m.start_ticks == ticks; });
        if (!known) members_.push_back({pid, ticks});
    }
}

std::vector<int> Server::alive() {
    std::vector<int> out;
    for (const auto& m : members_) {
        auto ids = read_ids(m.pid);
        if (ids && (m.start_ticks == 0 || ids->start_ticks == m.start_ticks)) out.push_back(m.pid);
    }
    return out;
}

void Server::send(int sig) {
    scan();
    // The session's id is the server's pid, which is not reused while any process of the
    // session lives (or while the server is unreaped): the group signal reaches only ours.
    const bool unreaped = !exit_.has_value();
    const auto live = alive();
    const bool group_alive = std::any_of(live.begin(), live.end(), [&](int pid) {
        auto ids = read_ids(pid);
        return ids && ids->session == pid_;
    });
    if (unreaped || group_alive) ::killpg(pid_, sig);
    // Those that left the group: one by one, each checked to be the process it was.
    for (const auto& m : members_) {
        auto ids = read_ids(m.pid);
        if (ids && ids->pgrp != pid_ && ids->start_ticks == m.start_ticks && m.pid != static_cast<int>(::getpid()))
            ::kill(m.pid, sig);
    }
}

Server::Wait Server::wait_ready(const fs::path& log, const std::string& url, double timeout_s, const Timings& t,
                                const Say& say) {
    const double t0 = steady_now_s();
    double next_progress = t0 + t.ready_progress_s;
    std::uintmax_t offset = 0;
    std::string tail;  // the end of what was read, so a marker split across reads is found
    bool marker = false;
    for (;;) {
        if (interrupted()) return {Ready::interrupted, "interrupted"};
        if (auto rc = exit_status())
            return {Ready::exited, fmt::format("the server exited with code {} before it was ready", *rc)};
        if (!marker) {
            std::ifstream f(log, std::ios::binary);
            if (f) {
                f.seekg(static_cast<std::streamoff>(offset));
                std::string chunk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
                offset += chunk.size();
                tail += chunk;
                marker = tail.find(kReadyMarker) != std::string::npos;
                if (tail.size() > kReadyMarker.size()) tail.erase(0, tail.size() - kReadyMarker.size());
            }
        }
        if (marker && healthy(url, 5.0)) return {Ready::ready, ""};
        const double now = steady_now_s();
        if (now - t0 >= timeout_s)
            return {Ready::timed_out, fmt::format("the server was not ready after {:g} s", timeout_s)};
        if (now >= next_progress) {
            say(fmt::format("   still starting: {:.0f} s", now - t0));
            next_progress += t.ready_progress_s;
        }
        nap(t.ready_poll_s);
    }
}

std::vector<int> Server::terminate(const Timings& t) {
    stopped_ = true;
    std::vector<int> left;
    if (started()) {
        send(SIGTERM);
        const double deadline = steady_now_s() + t.stop_grace_s;
        for (;;) {
            exit_status();
            scan();
            if (exit_ && alive().empty()) break;
            if (steady_now_s() >= deadline) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        auto survivors = alive();
        if (!survivors.empty() || !exit_) {
            left = survivors;
            send(SIGKILL);
            const double kill_deadline = steady_now_s() + 10.0;
            while ((!exit_status() || !alive().empty()) && steady_now_s() < kill_deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    return left;
}

CheckResult Server::stop(const Machine& machine, const Timings& t) {
    std::vector<int> left = terminate(t);
    return gpu_clear_after_stop(machine, t, left, {this});
}

CheckResult gpu_clear_after_stop(const Machine& machine, const Timings& t, const std::vector<int>& left,
                                 const std::vector<Server*>& servers) {
    // Clear: nothing of these servers left, no other server's process, and the card's memory low.
    auto live = [&] {
        std::set<int> pids;
        for (int pid : machine.server_pids()) pids.insert(pid);
        for (Server* s : servers)
            for (int pid : s->alive()) pids.insert(pid);
        return static_cast<int>(pids.size());
    };
    run::SteadyClock clock;
    auto res = run::wait_clear(machine.read_used, live,
                               {.interval_s = t.clear_interval_s, .timeout_s = t.clear_timeout_s}, clock);
    return checks::check_gpu_clear_after_stop(res, left);
}

}  // namespace inferlint::xray::detail
