// xray on a fleet (two --serve replicas) with T19's trap on and off: one gpu.jsonl in the run
// folder from the simulator's nvidia-smi (INFERLINT_NVIDIA_SMI), every replica's process tree
// counted as the server's, and the fleet's T19 from it. Only processes these tests start are
// ever signalled.
#include "xray_sandbox.hpp"

#include <cstdlib>

using namespace xraytest;
using Catch::Matchers::Contains;

namespace xraytrap19fleet {

struct FleetSmiEnv {
    FleetSmiEnv(const fs::path& smi, const std::string& tenant) {
        ::setenv("INFERLINT_NVIDIA_SMI", smi.c_str(), 1);
        if (tenant.empty())
            ::unsetenv("INFERLINT_SIM_GPU_TENANT");
        else
            ::setenv("INFERLINT_SIM_GPU_TENANT", tenant.c_str(), 1);
    }
    ~FleetSmiEnv() {
        ::unsetenv("INFERLINT_NVIDIA_SMI");
        ::unsetenv("INFERLINT_SIM_GPU_TENANT");
    }
};

const CheckResult* t19_in(const std::vector<CheckResult>& rs) {
    for (const auto& r : rs)
        if (r.tripwire == TripwireId::T19) return &r;
    return nullptr;
}

// Two replicas, a load on each; T19 of the fleet, with the run checked for leftovers.
std::optional<CheckResult> fleet_t19(const Sandbox& sb, const std::string& tenant, Ran& ran) {
    fs::create_symlink(INFERLINT_SIM_BINARY, sb.dir / "nvidia-smi");
    FleetSmiEnv env(sb.dir / "nvidia-smi", tenant);
    const std::vector<int> ports{free_port(), free_port()};
    xray::Plan plan;
    plan.out = sb.out();
    std::string script;
    for (int p : ports) {
        plan.replicas.push_back({.serve = serve_cmd(sb, p, "--sim-time-scale 20")});
        script += util::shell_join(bench_cmd(sb, p, 8, 4, 64, 96)) + " >/dev/null & ";
    }
    plan.load = {"sh", "-c", script + "wait"};
    plan.interval_s = 0.05;
    ran = run_xray(plan);
    INFO(ran.text());
    CHECK(fs::is_regular_file(sb.out() / "gpu.jsonl"));
    for (const auto& rep : ran.outcome.replicas) require_all_gone(sb.out() / rep.folder / "boot.log");
    const CheckResult* r = t19_in(ran.outcome.results);
    return r ? std::optional<CheckResult>(*r) : std::nullopt;
}

}  // namespace xraytrap19fleet

using namespace xraytrap19fleet;

TEST_CASE("xray on a fleet: T19 from one GPU recording passes alone and fails a tenant mid-run",
          "[sim][xray][fleet][T19]") {
    Sandbox off_sb("trap-t19-fleet-off");
    Ran off_run;
    auto off = fleet_t19(off_sb, "", off_run);
    INFO(off_run.text());
    REQUIRE(off);
    CHECK(off->status == Status::pass);
    CHECK_THAT(off->message, Contains("no other process on the server's GPU"));
    CHECK(off->evidence["readings"].get<long long>() >= 2);

    Sandbox on_sb("trap-t19-fleet-on");
    Ran on_run;
    auto on = fleet_t19(on_sb, "999999:watchdog-restored-service:51200", on_run);
    INFO(on_run.text());
    REQUIRE(on);
    CHECK(on->status == Status::fail);
    CHECK_THAT(on->message, Contains("process 999999 (watchdog-restored-service) held 51200 MiB on GPU 0"));
    CHECK(on_run.exit == 1);
}
