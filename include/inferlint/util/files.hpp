// Reading whole files with errors a user can act on.
#pragma once

#include "inferlint/util/error.hpp"
#include "inferlint/util/fd.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace inferlint::util {

// A file this program writes could not be written (a full disk, a folder not writable):
// bad input as far as the exit status goes (2), told apart by those that carry on.
class WriteError : public InputError {
public:
    using InputError::InputError;
};

// The CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus();

enum class AllowEmpty { no, yes };

// The whole file. Throws InputError naming the path when it is missing, a directory,
// unreadable, larger than max_bytes, or empty (unless allowed).
std::string read_file(const std::filesystem::path& path, AllowEmpty allow_empty = AllowEmpty::no,
                      std::size_t max_bytes = std::size_t{4} << 30);

// A file read in pieces, closed on every path out. Opening throws InputError naming the
// path when it is missing, a folder, or cannot be opened.
class InputFile {
public:
    explicit InputFile(const std::filesystem::path& path);
    // Up to n bytes into `into`, 0 at the end (a pipe may give fewer); retries on EINTR,
    // and throws InputError naming the file on a read error.
    std::size_t read_some(char* into, std::size_t n);
    // Up to n bytes from `offset` (pread: the file's own position is left as it is), fewer
    // only at the end; the same errors. For a regular file only.
    std::size_t read_at(char* into, std::size_t n, std::uint64_t offset);
    // The size of a regular file (one read_at can be used on); nullopt for a pipe or a
    // device.
    std::optional<std::uint64_t> regular_size() const;

private:
    std::string path_;
    UniqueFd fd_;
};

// True when the text looks like binary junk (NUL bytes in its first 64 KiB).
bool looks_binary(std::string_view text);

// Writes text to path whole or not at all (write_file_atomic), creating the parent folder
// (so -o runs/today/x works).
void write_file(const std::filesystem::path& path, std::string_view text);

// Writes text to path whole or not at all: into a temporary file beside it, then renamed
// over it, so a reader never sees half a file and a failed write (a full disk, a folder
// that is not there or not writable) leaves what was there. A path that exists and is not
// a regular file (/dev/stdout, a pipe) is written directly. Throws InputError naming the
// path; the parent folder is not made.
void write_file_atomic(const std::filesystem::path& path, std::string_view text);

// Makes the parent folder of path.
void make_parent(const std::filesystem::path& path);

// A file of records, one a line (a series recording), each written whole or not at all:
// what is written between two flushes goes out as one piece, and a piece cut short (a full
// disk) is cut back off, so the file always ends after its last whole record. Opened
// empty; throws InputError naming the path when it cannot be. After a failed write the
// stream is bad, and error() says why, naming the path.
class RecordFile : public std::ostream {
public:
    explicit RecordFile(const std::filesystem::path& path);
    ~RecordFile() override;
    RecordFile(const RecordFile&) = delete;
    RecordFile& operator=(const RecordFile&) = delete;

    const std::string& error() const;
    void close();  // flushes; the stream is bad if that failed

private:
    class Buffer;
    std::unique_ptr<Buffer> buffer_;
};

}  // namespace inferlint::util
