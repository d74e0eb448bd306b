// xray end to end on the simulator with T19's trap on and off: the simulator as nvidia-smi
// (a link named nvidia-smi, named by INFERLINT_NVIDIA_SMI) with a tenant that appears
// mid-run (INFERLINT_SIM_GPU_TENANT), and without it; then `report` on each run folder gives
// xray's verdict. The card's T2 readings come from the quiet machine, so the tenant left on
// the card does not hold the teardown. Only processes these tests start are ever signalled.
#include "xray_sandbox.hpp"

#include <cstdlib>

using namespace xraytest;
using Catch::Matchers::Contains;

namespace xraytrap19 {

using T19Run = TrapVerdicts;

Json t19_pick(const Json& list, const std::string& id) { return verdict_of(list, id); }

// Sets the environment the simulator's nvidia-smi reads, for this process and its
// children, and puts it back when done.
struct T19Env {
    explicit T19Env(const fs::path& smi, const std::string& tenant) {
        ::setenv("INFERLINT_NVIDIA_SMI", smi.c_str(), 1);
        if (tenant.empty())
            ::unsetenv("INFERLINT_SIM_GPU_TENANT");
        else
            ::setenv("INFERLINT_SIM_GPU_TENANT", tenant.c_str(), 1);
    }
    ~T19Env() {
        ::unsetenv("INFERLINT_NVIDIA_SMI");
        ::unsetenv("INFERLINT_SIM_GPU_TENANT");
    }
};

T19Run t19_xray(const Sandbox& sb, const std::string& tenant) {
    const int port = free_port();
    fs::create_symlink(INFERLINT_SIM_BINARY, sb.dir / "nvidia-smi");
    T19Env env(sb.dir / "nvidia-smi", tenant);
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 20");
    plan.load = bench_cmd(sb, port, 8, 4, 64, 96);
    plan.interval_s = 0.05;
    T19Run run = xray_and_report(sb, std::move(plan), "T19");
    INFO(run.ran.text());
    REQUIRE(fs::is_regular_file(sb.out() / "gpu.jsonl"));
    return run;
}

}  // namespace xraytrap19

using namespace xraytrap19;

TEST_CASE("xray traps: T19 passes a card to itself and fails a tenant that arrives mid-run", "[sim][xray][T19]") {
    Sandbox off_sb("trap-t19-off");
    T19Run off = t19_xray(off_sb, "");
    INFO(off.ran.text());
    REQUIRE(off.xray.is_object());
    CHECK(off.xray["status"] == "pass");
    CHECK_THAT(off.xray["message"].get<std::string>(), Contains("no other process on the server's GPU"));
    CHECK(off.xray["evidence"]["readings"] == 2);
    CHECK(off.report == off.xray);

    Sandbox on_sb("trap-t19-on");
    T19Run on = t19_xray(on_sb, "999999:watchdog-restored-service:51200");
    INFO(on.ran.text());
    REQUIRE(on.xray.is_object());
    CHECK(on.xray["status"] == "fail");
    CHECK_THAT(on.xray["message"].get<std::string>(),
               Contains("process 999999 (watchdog-restored-service) held 51200 MiB on GPU 0"));
    CHECK_THAT(on.ran.text(), Contains("[T19] TRIPWIRE-FAILED  another tenant on the server's GPUs"));
    CHECK(on.ran.exit == 1);
    CHECK(on.report == on.xray);
}

TEST_CASE("xray: no nvidia-smi on the machine, no GPU recording and no T19", "[sim][xray][T19]") {
    Sandbox sb("t19-no-smi");
    ::setenv("INFERLINT_NVIDIA_SMI", (sb.dir / "no-such-nvidia-smi").c_str(), 1);
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 20");
    plan.load = bench_cmd(sb, port, 4, 2, 32, 32);
    plan.interval_s = 0.05;
    Ran r = run_xray(plan);
    ::unsetenv("INFERLINT_NVIDIA_SMI");
    INFO(r.text());
    CHECK_FALSE(fs::exists(sb.out() / "gpu.jsonl"));
    CHECK(t19_pick(r.results["results"], "T19").is_null());
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray: an nvidia-smi that prints garbage or hangs gives T19 Can't tell, never a pass", "[sim][xray][T19]") {
    for (const std::string body :
         {"echo 'NVIDIA-SMI has failed because it could not communicate with the driver'", "exec sleep 60"}) {
        Sandbox sb("t19-bad-smi");
        const fs::path smi = sb.dir / "nvidia-smi";
        util::write_file(smi, "#!/bin/sh\n" + body + "\n");
        fs::permissions(smi, fs::perms::owner_all);
        ::setenv("INFERLINT_NVIDIA_SMI", smi.c_str(), 1);
        const int port = free_port();
        xray::Plan plan;
        plan.out = sb.out();
        plan.serve = serve_cmd(sb, port, "--sim-time-scale 20");
        plan.load = bench_cmd(sb, port, 4, 2, 32, 32);
        plan.interval_s = 0.05;
        Ran r = run_xray(plan);
        ::unsetenv("INFERLINT_NVIDIA_SMI");
        INFO(body << "\n" << r.text());
        Json t19 = t19_pick(r.results["results"], "T19");
        REQUIRE(t19.is_object());
        CHECK(t19["status"] == "unknown");
        CHECK_THAT(t19["message"].get<std::string>(), Contains("Can't tell: nvidia-smi gave 0 readings"));
        require_all_gone(sb.out() / "boot.log");
    }
}
