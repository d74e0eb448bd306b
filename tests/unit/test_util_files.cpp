#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <fstream>
#include <string>

using inferlint::InputError;
using inferlint::util::AllowEmpty;
namespace fs = std::filesystem;
using namespace inferlint;

namespace {

void put_file(const fs::path& path, const std::string& content) { std::ofstream(path, std::ios::binary) << content; }

// The one-line InputError that reading the file gives; it names the path.
std::string read_error_of(const fs::path& path, AllowEmpty allow_empty = AllowEmpty::no,
                          std::size_t max_bytes = std::size_t{4} << 30) {
    try {
        util::read_file(path, allow_empty, max_bytes);
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.starts_with(path.string() + ": "));
        CHECK(what.find('\n') == std::string::npos);
        return what;
    }
    FAIL("no InputError for " << path);
    return "";
}

}  // namespace

TEST_CASE("files: read_file gives the whole file, bytes as they are", "[files]") {
    testsupport::TempDir tmp("files");
    std::string content = "line one\r\nline two\n";
    content += std::string("\0\xff\x01", 3);
    content += std::string(200000, 'x');  // more than one read buffer
    put_file(tmp.path / "f.bin", content);
    CHECK(util::read_file(tmp.path / "f.bin") == content);
}

TEST_CASE("files: a missing file is an InputError naming it", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    CHECK(read_error_of(tmp.path / "nope.log") == (tmp.path / "nope.log").string() + ": no such file");
}

TEST_CASE("files: an empty file is an error unless AllowEmpty::yes", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    put_file(tmp.path / "empty.log", "");
    CHECK(read_error_of(tmp.path / "empty.log") == (tmp.path / "empty.log").string() + ": empty file");
    CHECK(util::read_file(tmp.path / "empty.log", AllowEmpty::yes).empty());
    // a device that reads as nothing is empty too, not a crash
    CHECK(read_error_of("/dev/null") == "/dev/null: empty file");
}

TEST_CASE("files: a folder is refused as one, even with AllowEmpty::yes", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    CHECK(read_error_of(tmp.path) == tmp.path.string() + ": is a folder, not a file");
    CHECK(read_error_of(tmp.path, AllowEmpty::yes) == tmp.path.string() + ": is a folder, not a file");
}

TEST_CASE("files: a file over max_bytes is refused with its size", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    put_file(tmp.path / "big.txt", std::string(10, 'a'));
    CHECK(read_error_of(tmp.path / "big.txt", AllowEmpty::no, 9) ==
          (tmp.path / "big.txt").string() + ": too large (10 bytes)");
    CHECK(util::read_file(tmp.path / "big.txt", AllowEmpty::no, 10) == std::string(10, 'a'));
}

TEST_CASE("files: looks_binary is NUL bytes in the first 64 KiB", "[files]") {
    CHECK_FALSE(util::looks_binary("plain text\nwith \x1b[1mescapes\x1b[0m and UTF-8 \xc3\xa9\n"));
    CHECK(util::looks_binary(std::string("abc\0def", 7)));
    std::string late(65536, 'a');
    late += '\0';
    CHECK_FALSE(util::looks_binary(late));
    late[65535] = '\0';
    CHECK(util::looks_binary(late));
    CHECK_FALSE(util::looks_binary(""));
}

TEST_CASE("files: write_file makes the folders on the way and reads back the same bytes", "[files]") {
    testsupport::TempDir tmp("files");
    const fs::path p = tmp.path / "runs" / "today" / "x.json";
    const std::string text = std::string("{\"a\": 1}\n") + std::string("\0z", 2);
    util::write_file(p, text);
    CHECK(fs::is_directory(tmp.path / "runs" / "today"));
    CHECK(util::read_file(p) == text);
}

TEST_CASE("files: write_file replaces a longer file whole", "[files]") {
    testsupport::TempDir tmp("files");
    put_file(tmp.path / "x.txt", "a much longer first version\n");
    util::write_file(tmp.path / "x.txt", "short\n");
    CHECK(util::read_file(tmp.path / "x.txt") == "short\n");
    util::write_file(tmp.path / "x.txt", "");
    CHECK(util::read_file(tmp.path / "x.txt", AllowEmpty::yes).empty());
}

TEST_CASE("files: write_file where a file stands in for the folder names the folder", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    put_file(tmp.path / "plain", "not a folder");
    try {
        util::write_file(tmp.path / "plain" / "sub" / "x.txt", "text");
        FAIL("no InputError");
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.starts_with((tmp.path / "plain" / "sub").string() + ": cannot create folder ("));
    }
}

TEST_CASE("files: write_file onto a folder names the path", "[files][badinput]") {
    testsupport::TempDir tmp("files");
    fs::create_directories(tmp.path / "dir");
    try {
        util::write_file(tmp.path / "dir", "text");
        FAIL("no InputError");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).starts_with((tmp.path / "dir").string() + ": cannot write ("));
    }
    CHECK(fs::is_directory(tmp.path / "dir"));
}

TEST_CASE("files: make_parent of a bare name makes nothing and throws nothing", "[files]") {
    CHECK_NOTHROW(util::make_parent("bare-name.txt"));
    testsupport::TempDir tmp("files");
    util::make_parent(tmp.path / "a" / "b" / "c.txt");
    CHECK(fs::is_directory(tmp.path / "a" / "b"));
    CHECK_FALSE(fs::exists(tmp.path / "a" / "b" / "c.txt"));
}

TEST_CASE("write_file_atomic replaces a file whole and leaves no temporary file", "[files][output-file]") {
    testsupport::TempDir dir("atomic");
    const fs::path p = dir.path / "out.xml";
    put_file(p, "old");
    util::write_file_atomic(p, "new content\n");
    CHECK(util::read_file(p) == "new content\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
    CHECK(entries == 1);
}

TEST_CASE("write_file_atomic: a full disk or a missing folder is one InputError, and what was there stays",
          "[files][output-file]") {
    testsupport::TempDir dir("atomic-fail");
    // /dev/full answers every write with ENOSPC: the full disk, without filling one.
    if (fs::exists("/dev/full")) {
        try {
            util::write_file_atomic("/dev/full", std::string(1 << 16, 'x'));
            FAIL("no error on a full device");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("/dev/full: cannot write (No space left on device)") == 0);
        }
    }
    const fs::path missing = dir.path / "no-such-folder" / "out.xml";
    CHECK_THROWS_AS(util::write_file_atomic(missing, "x"), InputError);
    CHECK_FALSE(fs::exists(missing.parent_path()));
    CHECK_THROWS_AS(util::write_file_atomic(dir.path, "x"), InputError);  // a folder
    const fs::path kept = dir.path / "kept.txt";
    put_file(kept, "what was there");
    CHECK(util::read_file(kept) == "what was there");
}
