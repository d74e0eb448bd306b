#include "inferlint/util/files.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

namespace inferlint::util {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path, AllowEmpty allow_empty, std::size_t max_bytes) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(fmt::format("{}: no such file", path.string()));
    if (fs::is_directory(st))
        throw InputError(fmt::format("{}: is a folder, not a file", path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read ({})", path.string(), std::strerror(errno)));
    std::string text;
    if (fs::is_regular_file(st)) {
        auto size = fs::file_size(path, ec);
        if (!ec && size > max_bytes)
            throw InputError(fmt::format("{}: too large ({} bytes)", path.string(), size));
        if (!ec) text.reserve(static_cast<std::size_t>(size));
    }
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes)
            throw InputError(fmt::format("{}: too large (over {} bytes)", path.string(), max_bytes));
    }
    if (in.bad()) throw InputError(fmt::format("{}: read error", path.string()));
    if (text.empty() && allow_empty == AllowEmpty::no)
        throw InputError(fmt::format("{}: empty file", path.string()));
    return text;
}

bool looks_binary(std::string_view text) {
    return text.substr(0, 65536).find('\0') != std::string_view::npos;
}

void make_parent(const fs::path& path) {
    auto parent = path.parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw InputError(fmt::format("{}: cannot create folder ({})", parent.string(), ec.message()));
}

void write_file(const fs::path& path, std::string_view text) {
    make_parent(path);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot write ({})", path.string(), std::strerror(errno)));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw InputError(fmt::format("{}: write failed", path.string()));
}

namespace {

// Writes all of text to fd; false with errno set on a short write.
bool files_write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

[[noreturn]] void files_write_failed(const fs::path& path, int err) {
    throw InputError(fmt::format("{}: cannot write ({})", path.string(), std::strerror(err)));
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view text) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (!ec && fs::is_directory(st)) throw InputError(fmt::format("{}: is a folder, not a file", path.string()));
    if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
        int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) files_write_failed(path, errno);
        bool ok = files_write_all(fd, text);
        int err = errno;
        ::close(fd);
        if (!ok) files_write_failed(path, err);
        return;
    }
    fs::path tmp = path;
    tmp += fmt::format(".tmp{}", ::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) files_write_failed(path, errno);
    bool ok = files_write_all(fd, text) && ::fsync(fd) == 0;
    int err = errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
    if (!ok) {
        ::unlink(tmp.c_str());
        files_write_failed(path, err);
    }
}

}  // namespace inferlint::util
