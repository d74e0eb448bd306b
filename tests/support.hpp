// Shared helpers for the unit tests: where the reference fixtures are, and running the
// built binary as a user would.
#pragma once

#include "inferlint/core/tripwire_id.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace inferlint {
// Test messages (INFO, CHECK) show a tripwire by its code.
inline std::ostream& operator<<(std::ostream& os, TripwireId id) { return os << code(id); }
}  // namespace inferlint

namespace testsupport {

inline std::filesystem::path source_dir() { return INFERLINT_SOURCE_DIR; }

// The Python tool's recorded evidence: ../shared/reference beside the clone, or the folder
// INFERLINT_REFERENCE_DIR names (tests/shard.sh points it at a missing folder for the test
// cases without [shared], so that one which needs the reference fails there).
inline std::filesystem::path reference_dir() {
    if (const char* dir = std::getenv("INFERLINT_REFERENCE_DIR"); dir && *dir) return dir;
    return source_dir().parent_path() / "shared" / "reference";
}

// The load tools' real result files: ../shared/loadtools beside the clone, or the folder
// INFERLINT_LOADTOOLS_DIR names.
inline std::filesystem::path loadtools_dir() {
    if (const char* dir = std::getenv("INFERLINT_LOADTOOLS_DIR"); dir && *dir) return dir;
    return source_dir().parent_path() / "shared" / "loadtools";
}

// Its fixtures and golden folders, or nullopt when absent. A test case reaches them after
// REQUIRE_REFERENCE, and is tagged [shared].
inline std::optional<std::filesystem::path> reference_fixtures() {
    auto p = reference_dir() / "fixtures";
    if (std::filesystem::is_directory(p)) return p;
    return std::nullopt;
}

inline std::optional<std::filesystem::path> reference_golden() {
    auto p = reference_dir() / "golden";
    if (std::filesystem::is_directory(p)) return p;
    return std::nullopt;
}

// The project's own fixtures (tests/fixtures).
inline std::filesystem::path own_fixtures() { return source_dir() / "tests" / "fixtures"; }

// Whether the running test case carries the tag (written without brackets, any case).
inline bool current_test_has_tag(const std::string& tag) {
    const std::string name = Catch::getResultCapture().getCurrentTestName();
    const std::string want = Catch::toLower(tag);
    for (const auto& tc : Catch::getAllTestCasesSorted(*Catch::getCurrentContext().getConfig()))
        if (tc.name == name) return std::find(tc.lcaseTags.begin(), tc.lcaseTags.end(), want) != tc.lcaseTags.end();
    return false;
}

// Why a test case that reached REQUIRE_REFERENCE fails: the reference is absent. Never a
// pass: CTest runs the [shared] test cases only where the reference is and reports them
// Skipped elsewhere, so getting here means a missing tag, or a run by hand.
inline std::string reference_absent_reason() {
    const std::string where = (reference_dir() / "fixtures").string();
    if (!current_test_has_tag("shared"))
        return "needs " + where +
               ", which is absent, but is not tagged [shared]: tag it, so that ctest "
               "skips it where the reference is absent";
    return "needs " + where +
           ", which is absent: ctest skips the [shared] test cases there; "
           "by hand, leave them out with ~[shared]";
}

// The reference's fixtures folder as `var`. Absent, the test case fails, saying why.
#define REQUIRE_REFERENCE(var)                                    \
    auto var##_opt = testsupport::reference_fixtures();           \
    if (!var##_opt) FAIL(testsupport::reference_absent_reason()); \
    const std::filesystem::path var = *var##_opt

// A fresh scratch folder for this test process ("inferlint-TAG-PID-N" in the temp folder).
// Every one is removed, with all in it, when the test process exits (by the process that
// made it: a forked child that exits never removes its parent's); a test may remove its
// own sooner.
inline std::filesystem::path scratch_dir(const std::string& tag) {
    struct Made {
        pid_t owner = ::getpid();
        std::vector<std::filesystem::path> dirs;
        ~Made() {
            if (::getpid() != owner) return;
            std::error_code ec;
            for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
        }
    };
    static Made made;
    static int counter = 0;
    auto dir = std::filesystem::temp_directory_path() /
               ("inferlint-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    made.dirs.push_back(dir);
    return dir;
}

// A scratch folder (scratch_dir's) removed with everything in it when it goes out of scope.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& tag = "tmp") : path(scratch_dir(tag)) {}
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

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

// The environment a comparison with the Python tool's golden outputs runs under: no engine
// named, and only the tripwires the Python tool has (T1-T15).
inline const std::string kGoldenEnv = "env -u INFERLINT_ENGINE INFERLINT_TRIPWIRES=T1-T15 ";

// Every tripwire reported, this project's too (commands of the Python tool report its
// fifteen unless asked).
inline const std::string kAllTripwiresEnv = "env -u INFERLINT_ENGINE INFERLINT_TRIPWIRES=all ";

// Runs the built inferlint with args (each quoted); stdin from /dev/null. env_prefix,
// e.g. "INFERLINT_ENGINE=sglang ", goes before the command.
inline CliResult run_cli(const std::vector<std::string>& args,
                         const std::string& env_prefix = "env -u INFERLINT_ENGINE ") {
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

// Where ours (a) and the reference (b) differ, by conform.py's rule: the same keys, numbers
// equal to 1e-6 relative (or 1e-9 absolute), strings, booleans and nulls equal. "" when
// they agree, else the path of the first difference and the two values.
inline std::string json_differ(const nlohmann::json& a, const nlohmann::json& b, const std::string& path = "") {
    auto unequal = [&] { return path + ": " + a.dump() + " != " + b.dump(); };
    if (b.is_number()) {
        if (!a.is_number()) return unequal();
        double x = a.get<double>(), y = b.get<double>();
        if (x == y || std::abs(x - y) <= 1e-6 * std::max(std::abs(x), std::abs(y)) || std::abs(x - y) <= 1e-9)
            return "";
        return unequal();
    }
    if (b.is_object()) {
        if (!a.is_object() || a.size() != b.size()) return unequal();
        for (const auto& [k, v] : b.items()) {
            if (!a.contains(k)) return path + ": no key " + k;
            if (auto d = json_differ(a[k], v, path + "." + k); !d.empty()) return d;
        }
        return "";
    }
    if (b.is_array()) {
        if (!a.is_array() || a.size() != b.size()) return unequal();
        for (std::size_t i = 0; i < b.size(); ++i)
            if (auto d = json_differ(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
        return "";
    }
    return a == b ? "" : unequal();
}

}  // namespace testsupport
