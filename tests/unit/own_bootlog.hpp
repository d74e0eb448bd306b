// What the tests on the project's own boot logs share (tests/fixtures/bootlog/): running
// check-log and boot-facts on them as a user would, picking results, and editing a log in a
// scratch copy.
#pragma once

#include "support.hpp"

#include "inferlint/core/result.hpp"
#include "inferlint/util/files.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

// In one named namespace: the tests are compiled in unity batches, where another file's
// helpers of the same name would otherwise clash.
namespace own_bootlog_test {

namespace fs = std::filesystem;
using inferlint::Json;

inline fs::path logs() { return testsupport::own_fixtures() / "bootlog"; }

struct Checked {
    int rc = -1;
    Json results;  // the --json array
    std::string err;
};

// check-log --json on the logs; the output must be a JSON array.
inline Checked check_log(const std::vector<fs::path>& paths, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"check-log", "--json"};
    for (const auto& p : paths) {
        INFO("fixture " << p.string());
        REQUIRE(fs::is_regular_file(p));
        args.push_back(p.string());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testsupport::run_cli(args, testsupport::kAllTripwiresEnv);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    Json parsed = Json::parse(r.out, nullptr, false);
    REQUIRE(parsed.is_array());
    return {r.rc, std::move(parsed), r.err};
}

// boot-facts --json on one log (exit 0 expected: facts are facts, not verdicts).
inline Json boot_facts(const fs::path& path) {
    auto r = testsupport::run_cli({"boot-facts", "--json", path.string()});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.rc == 0);
    Json parsed = Json::parse(r.out, nullptr, false);
    REQUIRE(parsed.is_object());
    return parsed;
}

// Every result of one tripwire, in output order.
inline std::vector<Json> results_of(const Json& results, const std::string& tripwire) {
    std::vector<Json> out;
    for (const auto& r : results)
        if (r.value("tripwire", "") == tripwire) out.push_back(r);
    return out;
}

// The one result of a tripwire (the test fails when there is not exactly one).
inline Json only(const Json& results, const std::string& tripwire) {
    auto found = results_of(results, tripwire);
    INFO("tripwire " << tripwire << " in " << results.dump());
    REQUIRE(found.size() == 1);
    return found.front();
}

// A scratch folder for this test process, removed by the caller.
inline fs::path scratch() {
    static const fs::path dir = testsupport::scratch_dir("own-bootlog");
    fs::create_directories(dir);
    return dir;
}

// Copies `from` to `to` line by line; `edit` may change a line, or return false to drop it.
// Requires that the edit changed something, so a fixture edited under the test is noticed.
inline void write_edited(const fs::path& from, const fs::path& to, const std::function<bool(std::string&)>& edit) {
    const std::string text = inferlint::util::read_file(from);
    int changed = 0;
    std::string out = testsupport::each_line(text, [&](std::string& line) {
        const std::string before = line;
        bool keep = edit(line);
        if (!keep || line != before) ++changed;
        return keep;
    });
    INFO("editing " << from.string());
    REQUIRE(changed > 0);
    inferlint::util::write_file(to, out);
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
inline bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace own_bootlog_test
