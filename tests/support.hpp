// Shared helpers for the unit tests: where the reference fixtures are, and running the
// built binary as a user would.
#pragma once

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace testsupport {

inline std::filesystem::path source_dir() { return INFERLINT_SOURCE_DIR; }

// ../shared/reference/fixtures beside the clone, or nullopt (tests then skip, saying why).
inline std::optional<std::filesystem::path> reference_fixtures() {
    auto p = source_dir().parent_path() / "shared" / "reference" / "fixtures";
    if (std::filesystem::is_directory(p)) return p;
    return std::nullopt;
}

inline std::optional<std::filesystem::path> reference_golden() {
    auto p = source_dir().parent_path() / "shared" / "reference" / "golden";
    if (std::filesystem::is_directory(p)) return p;
    return std::nullopt;
}

// The project's own fixtures (tests/fixtures).
inline std::filesystem::path own_fixtures() { return source_dir() / "tests" / "fixtures"; }

#define REQUIRE_REFERENCE(var)                                                                 \
    auto var##_opt = testsupport::reference_fixtures();                                        \
    if (!var##_opt) {                                                                          \
        WARN("skipped: ../shared/reference/fixtures is absent");                             \
        return;                                                                                \
    }                                                                                          \
    const std::filesystem::path var = *var##_opt

// A fresh scratch folder for this test process ("inferlint-TAG-PID-N" in the temp folder);
// the caller removes it.
inline std::filesystem::path scratch_dir(const std::string& tag) {
    static int counter = 0;
    auto dir = std::filesystem::temp_directory_path() /
               ("inferlint-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    return dir;
}

// The text rebuilt line by line (each line with its newline): `keep` may change a line,
// or return false to drop it. For the mutation tests' edits.
inline std::string each_line(const std::string& text, const std::function<bool(std::string&)>& keep) {
    std::string out;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        end = end == std::string::npos ? text.size() : end + 1;
        std::string line = text.substr(pos, end - pos);
        if (keep(line)) out += line;
        pos = end;
    }
    return out;
}

struct CliResult {
    int rc = -1;
    std::string out;
    std::string err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs the built inferlint with args (each quoted); stdin from /dev/null. env_prefix,
// e.g. "INFERLINT_ENGINE=sglang ", goes before the command.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& env_prefix = "env -u INFERLINT_ENGINE ") {
    static int counter = 0;
    auto err_path = std::filesystem::temp_directory_path() /
                    ("inferlint-test-err-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::string cmd = env_prefix + shell_quote(INFERLINT_BINARY);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " </dev/null 2>" + shell_quote(err_path.string());
    CliResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 65536> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int status = ::pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (FILE* e = std::fopen(err_path.c_str(), "rb")) {
        while ((n = std::fread(buf.data(), 1, buf.size(), e)) > 0) r.err.append(buf.data(), n);
        std::fclose(e);
    }
    std::filesystem::remove(err_path);
    return r;
}

}  // namespace testsupport
