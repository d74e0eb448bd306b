// Every input the fuzzers ever found a fault with (tests/fuzz/regressions/<target>/), and
// the targets' own seeds, replayed through the same entry points the fuzz targets call,
// in the plain and the sanitized builds. A fault fixed stays fixed.
#include "fuzz/fuzz_targets.hpp"

#include "inferlint/util/files.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

namespace {

using FuzzOne = inferlint::fuzz::FuzzOne;

const std::map<std::string, FuzzOne>& fuzz_targets() { return inferlint::fuzz::targets(); }

// Replays every file of dir through target; how many there were.
int fuzz_replay(const std::string& target, const std::filesystem::path& dir) {
    int n = 0;
    if (!std::filesystem::is_directory(dir)) return n;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().filename() == ".gitkeep") continue;
        std::string bytes = inferlint::util::read_file(e.path(), inferlint::util::AllowEmpty::yes);
        INFO(target << ": " << e.path().string());
        CHECK_NOTHROW(fuzz_targets().at(target)(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("every fuzz target has a file, and its seeds and regressions replay cleanly", "[fuzz]") {
    const std::filesystem::path fuzz_dir = std::filesystem::path(INFERLINT_SOURCE_DIR) / "tests" / "fuzz";
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(fuzz_dir)) {
        auto name = e.path().filename().string();
        if (name.starts_with("fuzz_") && name.ends_with(".cpp")) files.insert(name.substr(5, name.size() - 9));
    }
    std::set<std::string> replayed;
    for (const auto& [name, one] : fuzz_targets()) replayed.insert(name);
    CHECK(files == replayed);  // a new target is replayed here too
    int total = 0;
    for (const auto& [name, one] : fuzz_targets()) {
        total += fuzz_replay(name, fuzz_dir / "seeds" / name);
        total += fuzz_replay(name, fuzz_dir / "regressions" / name);
    }
    CHECK(total >= 21);
}

TEST_CASE("the fuzz entry points take empty and odd bytes", "[fuzz]") {
    const std::vector<std::string> odd = {"",
                                          std::string(1, '\0'),
                                          "\xff\xfe",
                                          "{",
                                          "[",
                                          "# HELP",
                                          "\n\n\n",
                                          std::string(70000, '{'),
                                          "{\"schema\": \"inferlint.series/1\"}\n{\"t\":"};
    for (const auto& [name, one] : fuzz_targets())
        for (const auto& s : odd) {
            INFO(name << " on " << s.size() << " bytes");
            CHECK_NOTHROW(one(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
        }
}
