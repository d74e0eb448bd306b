// The test support's own promise: a test case that needs ../shared/reference never passes
// without it. CTest runs the test cases without [shared] with the reference pointed at a
// missing folder (tests/shard.sh), so there an untagged one that reaches REQUIRE_REFERENCE
// fails; these tests show that it does, on hidden probes run in a child test process.
#include "support.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

// This test binary run on one test spec with INFERLINT_REFERENCE_DIR set: its exit status,
// and its output (the compact reporter: one line a message, never wrapped).
testsupport::CliResult run_probe(const std::string& spec, const fs::path& reference) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    const std::string cmd = "INFERLINT_REFERENCE_DIR=" + testsupport::shell_quote(reference.string()) + " " +
                            testsupport::shell_quote(self.string()) + " --reporter compact " +
                            testsupport::shell_quote(spec) + " </dev/null 2>&1";
    testsupport::CliResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int status = ::pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace

TEST_CASE("support probe: an untagged test case that needs the reference", "[.][support_probe_untagged]") {
    REQUIRE_REFERENCE(root);
    CHECK(fs::is_directory(root));
    CHECK(root.filename() == "fixtures");
}

TEST_CASE("support probe: a [shared] test case that needs the reference", "[.][shared][support_probe_tagged]") {
    REQUIRE_REFERENCE(root);
    CHECK(fs::is_directory(root));
}

TEST_CASE("support: an untagged test case that reaches REQUIRE_REFERENCE fails where the reference is absent",
          "[support]") {
    testsupport::TempDir tmp("support");
    auto r = run_probe("[support_probe_untagged]", tmp.path / "no-reference");
    INFO(r.out);
    CHECK(r.rc != 0);
    CHECK(r.out.find("Failed 1 test case") != std::string::npos);
    const std::string where = (tmp.path / "no-reference" / "fixtures").string();
    CHECK(r.out.find(where + ", which is absent, but is not tagged [shared]") != std::string::npos);
}

TEST_CASE("support: a [shared] test case run by hand where the reference is absent fails, never passes", "[support]") {
    testsupport::TempDir tmp("support");
    auto r = run_probe("[support_probe_tagged]", tmp.path / "no-reference");
    INFO(r.out);
    CHECK(r.rc != 0);
    CHECK(r.out.find("which is absent: ctest skips the [shared] test cases there") != std::string::npos);
    CHECK(r.out.find("not tagged") == std::string::npos);
}

TEST_CASE("support: where the reference is, REQUIRE_REFERENCE yields its fixtures folder", "[support]") {
    testsupport::TempDir tmp("support");
    fs::create_directories(tmp.path / "reference" / "fixtures");
    auto r = run_probe("[support_probe_untagged]", tmp.path / "reference");
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(r.out.find("Passed 1 test case") != std::string::npos);
}

TEST_CASE("support: INFERLINT_REFERENCE_DIR names the reference folder", "[support]") {
    // tests/shard.sh sets it for this shard (unit): a folder that does not exist.
    const char* set = std::getenv("INFERLINT_REFERENCE_DIR");
    if (set && *set) {
        CHECK(testsupport::reference_dir() == fs::path(set));
        CHECK(testsupport::reference_fixtures() == std::nullopt);
    } else {
        CHECK(testsupport::reference_dir() == testsupport::source_dir().parent_path() / "shared" / "reference");
    }
}
