// xray end to end on the simulator with T20's trap on and off: the simulated engine aborting
// every 4th streamed completion (--sim-abort-every 4; the client gets HTTP 500, the server
// counts finished_reason="abort"), and the same run without it; then `report` on each run
// folder gives xray's verdict. Only processes these tests start are ever signalled.
#include "xray_sandbox.hpp"

using namespace xraytest;
using Catch::Matchers::Contains;

namespace xraytrap20 {

using T20Run = TrapVerdicts;

Json t20_pick(const Json& list) { return verdict_of(list, "T20"); }

T20Run t20_xray(const Sandbox& sb, const std::string& serve_extra) {
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 20" + serve_extra);
    plan.load = bench_cmd(sb, port, 8, 4, 64, 96);
    plan.interval_s = 0.05;
    return xray_and_report(sb, std::move(plan), "T20");
}

}  // namespace xraytrap20

using namespace xraytrap20;

TEST_CASE("xray traps: T20 passes a run where every request completed and fails one whose engine aborted some",
          "[sim][xray][T20]") {
    Sandbox off_sb("trap-t20-off");
    T20Run off = t20_xray(off_sb, "");
    INFO(off.ran.text());
    REQUIRE(off.xray.is_object());
    CHECK(off.xray["status"] == "pass");
    CHECK_THAT(off.xray["message"].get<std::string>(), Contains("none of the 8 requests failed"));
    CHECK(off.xray["evidence"]["server_failed"] == 0.0);
    CHECK(off.report == off.xray);

    Sandbox on_sb("trap-t20-on");
    T20Run on = t20_xray(on_sb, " --sim-abort-every 4");
    INFO(on.ran.text());
    REQUIRE(on.xray.is_object());
    CHECK(on.xray["status"] == "fail");
    CHECK_THAT(on.xray["message"].get<std::string>(), Contains("of 8 requests did not complete"));
    CHECK_THAT(on.xray["message"].get<std::string>(), Contains("as aborted or errored"));
    CHECK(on.xray["evidence"]["client_failed"].get<long long>() >= 1);
    CHECK(on.xray["evidence"]["server_failed"].get<double>() >= 1.0);
    CHECK(on.ran.exit == 1);
    CHECK(on.report == on.xray);
    // The share a user accepts turns the same folder's verdict into a warning.
    auto warned = testsupport::run_cli({"report", on_sb.out().string(), "--json", "--max-failed-share", "50"},
                                       "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ");
    INFO(warned.err);
    CHECK(t20_pick(Json::parse(warned.out))["status"] == "warn");
}
