// T20 through the built binary: explain, report on a real load-tool result with and
// without --max-failed-share, and a share that is not one (exit 2, one line).
#include "support.hpp"

#include <cstdlib>

using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json t20_cli_pick(const std::string& out) {
    for (const auto& r : json::parse(out))
        if (r["tripwire"] == "T20") return r;
    return nullptr;
}

}  // namespace

TEST_CASE("explain T20 names the trap, the check and the option", "[T20][cli]") {
    auto r = testsupport::run_cli({"explain", "T20"});
    CHECK(r.rc == 0);
    CHECK_THAT(r.out, Contains("Failed requests left out of the figures"));
    CHECK_THAT(r.out, Contains("--max-failed-share"));
    auto slug = testsupport::run_cli({"explain", "failed-requests"});
    CHECK(slug.out == r.out);
}

TEST_CASE("report on AIPerf's result with 11 cancelled requests: T20 fails, and warns under --max-failed-share 15",
          "[T20][cli][shared]") {
    const fs::path result = testsupport::loadtools_dir() / "aiperf/examples-artifacts-run1/profile_export_aiperf.json";
    if (!fs::exists(result)) FAIL("needs " << result.string() << "; leave [shared] out with ~[shared]");
    const fs::path page = testsupport::scratch_dir("t20-cli") / "report.html";
    const std::string env = "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ";
    auto failed =
        testsupport::run_cli({"report", "--bench-result", result.string(), "-o", page.string(), "--json"}, env);
    INFO(failed.err);
    json t20 = t20_cli_pick(failed.out);
    REQUIRE(t20.is_object());
    CHECK(t20["status"] == "fail");
    CHECK(failed.rc == 0);  // report writes its page and exits 0 whatever the verdicts
    auto warned = testsupport::run_cli(
        {"report", "--bench-result", result.string(), "-o", page.string(), "--json", "--max-failed-share", "15"}, env);
    CHECK(t20_cli_pick(warned.out)["status"] == "warn");
    auto bad = testsupport::run_cli(
        {"report", "--bench-result", result.string(), "-o", page.string(), "--max-failed-share", "150"}, env);
    CHECK(bad.rc == 2);
    CHECK_THAT(bad.err, Contains("--max-failed-share"));
}
