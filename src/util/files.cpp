#include "inferlint/util/files.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

namespace inferlint::util {

namespace fs = std::filesystem;

InputFile::InputFile(const fs::path& path) : path_(path.string()) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(fmt::format("{}: no such file", path_));
    if (fs::is_directory(st)) throw InputError(fmt::format("{}: is a folder, not a file", path_));
    fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_.valid()) throw InputError(fmt::format("{}: cannot read ({})", path_, std::strerror(errno)));
}

std::size_t InputFile::read_some(char* into, std::size_t n) {
    for (;;) {
        ssize_t got = ::read(fd_.fd(), into, n);
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno != EINTR) throw InputError(fmt::format("{}: read error ({})", path_, std::strerror(errno)));
    }
}

std::size_t InputFile::read_at(char* into, std::size_t n, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < n) {
        ssize_t got = ::pread(fd_.fd(), into + done, n - done, static_cast<off_t>(offset + done));
        if (got == 0) break;
        if (got > 0) {
            done += static_cast<std::size_t>(got);
            continue;
        }
        if (errno != EINTR) throw InputError(fmt::format("{}: read error ({})", path_, std::strerror(errno)));
    }
    return done;
}

std::optional<std::uint64_t> InputFile::regular_size() const {
    struct stat st {};
    if (::fstat(fd_.fd(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
}

std::string read_file(const fs::path& path, AllowEmpty allow_empty, std::size_t max_bytes) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(fmt::format("{}: no such file", path.string()));
    if (fs::is_directory(st)) throw InputError(fmt::format("{}: is a folder, not a file", path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read ({})", path.string(), std::strerror(errno)));
    std::string text;
    if (fs::is_regular_file(st)) {
        auto size = fs::file_size(path, ec);
        if (!ec && size > max_bytes) throw InputError(fmt::format("{}: too large ({} bytes)", path.string(), size));
        if (!ec) text.reserve(static_cast<std::size_t>(size));
    }
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes)
            throw InputError(fmt::format("{}: too large (over {} bytes)", path.string(), max_bytes));
    }
    if (in.bad()) throw InputError(fmt::format("{}: read error", path.string()));
    if (text.empty() && allow_empty == AllowEmpty::no) throw InputError(fmt::format("{}: empty file", path.string()));
    return text;
}

bool looks_binary(std::string_view text) { return text.substr(0, 65536).find('\0') != std::string_view::npos; }

void make_parent(const fs::path& path) {
    auto parent = path.parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw WriteError(fmt::format("{}: cannot create folder ({})", parent.string(), ec.message()));
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
    throw WriteError(fmt::format("{}: cannot write ({})", path.string(), std::strerror(err)));
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view text) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (!ec && fs::is_directory(st)) files_write_failed(path, EISDIR);
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

void write_file(const fs::path& path, std::string_view text) {
    make_parent(path);
    write_file_atomic(path, text);
}

class RecordFile::Buffer : public std::streambuf {
public:
    explicit Buffer(const fs::path& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) files_write_failed(path, errno);
    }
    ~Buffer() override {
        sync();
        if (fd_ >= 0) ::close(fd_);
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    const std::string& error() const { return error_; }

protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) pending_ += traits_type::to_char_type(c);
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        pending_.append(s, static_cast<std::size_t>(n));
        return n;
    }
    // One piece: all of it lands, or the file is cut back to where it ended before.
    int sync() override {
        if (!error_.empty()) return pending_.clear(), -1;
        if (pending_.empty()) return 0;
        if (!files_write_all(fd_, pending_)) {
            const int err = errno;
            [[maybe_unused]] int cut = ::ftruncate(fd_, static_cast<off_t>(whole_));
            error_ = fmt::format("{}: cannot write ({})", path_.string(), std::strerror(err));
            pending_.clear();
            return -1;
        }
        whole_ += pending_.size();
        pending_.clear();
        return 0;
    }

private:
    fs::path path_;
    int fd_ = -1;
    std::string pending_;
    std::size_t whole_ = 0;  // bytes of whole pieces in the file
    std::string error_;
};

RecordFile::RecordFile(const fs::path& path) : std::ostream(nullptr), buffer_(std::make_unique<Buffer>(path)) {
    rdbuf(buffer_.get());
}

RecordFile::~RecordFile() = default;

const std::string& RecordFile::error() const { return buffer_->error(); }

void RecordFile::close() { flush(); }

int usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return ::sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(CPU_COUNT(&set), 1) : 1;
}

}  // namespace inferlint::util
