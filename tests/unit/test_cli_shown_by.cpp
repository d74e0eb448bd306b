// The catalog's "shown by" column is what the commands print: each command run on our own
// simulator run (tests/fixtures/vllm-sim/healthy) prints verdicts only for the tripwires
// whose row names it, and the commands that pick from a run's verdicts print every one.
#include "support.hpp"
#include "inferlint/core/catalog.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace fs = std::filesystem;

namespace {

std::set<std::string> printed(const std::vector<std::string>& args) {
    auto r = testsupport::run_cli(args, testsupport::kAllTripwiresEnv);
    INFO(r.err);
    REQUIRE((r.rc == 0 || r.rc == 1 || r.rc == 2));
    const auto doc = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(!doc.is_discarded());
    const auto& list = doc.is_array() ? doc : doc.at("results");
    std::set<std::string> ids;
    for (const auto& v : list) ids.insert(v.at("tripwire").get<std::string>());
    return ids;
}

std::set<std::string> catalog_ids(std::string_view command) {
    std::set<std::string> ids;
    for (auto id : inferlint::shown_by(command)) ids.insert(std::string(inferlint::code(id)));
    return ids;
}

}  // namespace

TEST_CASE("catalog: each command prints the tripwires its rows say it shows", "[catalog][cli]") {
    const fs::path d = fs::path(INFERLINT_SOURCE_DIR) / "tests/fixtures/vllm-sim/healthy";
    const std::string before = (d / "before.snapshot.json").string(), after = (d / "after.snapshot.json").string();
    // The commands that pick from the run's verdicts: exactly their rows.
    CHECK(printed({"series", (d / "run.series.jsonl").string(), "--requested", "32", "--snapshot", after, "--json"}) ==
          catalog_ids("series"));
    CHECK(printed({"preemption", before, after, "--json"}) == catalog_ids("preemption"));
    CHECK(printed({"rate", before, after, "--json"}) == catalog_ids("rate"));
    CHECK(printed({"prefix-cache", before, after, "--json"}) == catalog_ids("prefix-cache"));
    CHECK(printed({"client-counts", before, after, "--bench-result", (d / "bench.json").string(), "--json"}) ==
          catalog_ids("client-counts"));
    // The others: nothing outside their rows.
    const auto boot = printed({"check-log", (d / "boot.log").string(), "--json"});
    const auto check_log = catalog_ids("check-log");
    for (const auto& id : boot) CHECK(check_log.count(id) == 1);
    CHECK(boot.count("T12") == 1);
    const fs::path page = testsupport::scratch_dir("shown-by") / "report.html";  // not into the fixture
    const auto report = printed({"report", d.string(), "-o", page.string(), "--json"});
    const auto report_rows = catalog_ids("report");
    for (const auto& id : report) CHECK(report_rows.count(id) == 1);
    CHECK(report.size() >= 10);
    // A pattern to follow has no verdict, and no command shows it.
    for (const auto& t : inferlint::tripwires())
        if (t.key == inferlint::TripwireId::T3 || t.key == inferlint::TripwireId::T13) CHECK(t.shown_by.empty());
}
