#include "inferlint/parse/procfs.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <unistd.h>

namespace inferlint::procfs {

namespace fs = std::filesystem;

namespace {

using util::text::kSpace;
using util::text::trim;

// /proc files report size 0 and must be read to the end. Capped: a cmdline can be
// megabytes long, and nothing here needs more than its start.
std::optional<std::string> read_small(const fs::path& path, std::size_t max_bytes = 1 << 20) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string out;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() >= max_bytes) break;
    }
    ::close(fd);
    return out;
}

template <typename T>
bool parse_int(std::string_view s, T& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size() && !s.empty();
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

}  // namespace

std::string Proc::cmdline() const {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        out += a;
    }
    return out;
}

std::optional<Stat> parse_stat(std::string_view line) {
    auto open = line.find('(');
    auto close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
    Stat st;
    if (!parse_int(trim(line.substr(0, open)), st.pid)) return std::nullopt;
    st.comm = std::string(line.substr(open + 1, close - open - 1));
    // Fields after the name, counted from 3 as proc(5) numbers them.
    std::vector<std::string_view> fields;
    std::string_view rest = line.substr(close + 1);
    std::size_t i = 0;
    while (i < rest.size() && fields.size() < 20) {
        i = rest.find_first_not_of(kSpace, i);
        if (i == std::string_view::npos) break;
        auto end = rest.find_first_of(kSpace, i);
        if (end == std::string_view::npos) end = rest.size();
        fields.push_back(rest.substr(i, end - i));
        i = end;
    }
    if (fields.size() < 2) return std::nullopt;
    st.state = fields[0][0];
    if (!parse_int(fields[1], st.ppid)) return std::nullopt;
    // Field 22, starttime; synthetic trees may stop before it.
    if (fields.size() >= 20 && !parse_int(fields[19], st.start_ticks)) st.start_ticks = 0;
    return st;
}

std::vector<std::string> parse_cmdline(std::string_view raw) {
    std::vector<std::string> argv;
    std::size_t start = 0;
    while (start <= raw.size()) {
        auto end = raw.find('\0', start);
        if (end == std::string_view::npos) end = raw.size();
        auto arg = trim(raw.substr(start, end - start));
        if (!arg.empty()) argv.emplace_back(arg);
        start = end + 1;
    }
    return argv;
}

std::optional<Proc> read_process(const fs::path& proc_root, int pid) {
    fs::path dir = proc_root / std::to_string(pid);
    auto cmdline = read_small(dir / "cmdline");
    auto stat = read_small(dir / "stat", 4096);
    auto comm = read_small(dir / "comm", 4096);
    if (!cmdline || !stat || !comm) return std::nullopt;  // gone, or not ours to read
    auto st = parse_stat(*stat);
    if (!st) return std::nullopt;
    Proc p;
    p.pid = pid;
    p.ppid = st->ppid;
    p.argv = parse_cmdline(*cmdline);
    p.comm = std::string(trim(*comm));
    p.start_ticks = st->start_ticks;
    return p;
}

std::vector<Proc> list_processes(const fs::path& proc_root) {
    std::vector<Proc> out;
    std::error_code ec;
    fs::directory_iterator it(proc_root, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        int pid = 0;
        if (!all_digits(name) || !parse_int(std::string_view(name), pid)) continue;
        if (auto p = read_process(proc_root, pid)) out.push_back(std::move(*p));
    }
    // Directory order is the filesystem's; the real /proc lists by pid, so every tree does.
    std::sort(out.begin(), out.end(), [](const Proc& a, const Proc& b) { return a.pid < b.pid; });
    return out;
}

}  // namespace inferlint::procfs
