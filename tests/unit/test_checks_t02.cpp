// T2's verdicts from typed readings: the messages and evidence gpu-inspect, teardown and
// xray print (test_cli_gpu.cpp sees the same text through the built binary).
#include "inferlint/checks/t02_gpu_clear.hpp"

#include <catch2/catch.hpp>

using namespace inferlint;
using checks::ClearResult;

namespace {

// The RTX 4090 of test_cli_gpu.cpp, as nvidia-smi reports it.
nvidia_smi::GpuInfo rtx4090() {
    nvidia_smi::GpuInfo g;
    g.name = "NVIDIA GeForce RTX 4090";
    g.memory_total_mib = 24564;
    g.memory_used_mib = 0;
    g.memory_free_mib = 24138;
    g.driver = "616.56";
    g.compute_cap = "8.9";
    return g;
}

ClearResult clear_after_two() { return {true, {{0.0, 300, 0}, {2.0, 250, 0}}, "2 consecutive clear readings"}; }

}  // namespace

TEST_CASE("T2: a card that read clear passes with the wait's reason, everywhere", "[T2]") {
    const auto wait = clear_after_two();
    const std::string readings = R"("readings":[[0.0,300,0],[2.0,250,0]])";

    auto boot = checks::check_gpu_clear_to_boot(wait, {rtx4090()});
    CHECK(boot.tripwire == "T2");
    CHECK(boot.status == Status::pass);
    CHECK(terminal_line(boot) == "[ T2] PASS  2 consecutive clear readings");
    CHECK(boot.evidence.dump() ==
          "{" + readings +
              R"(,"gpus":[{"index":0,"name":"NVIDIA GeForce RTX 4090","memory_total_mib":24564,)"
              R"("memory_used_mib":0,"memory_free_mib":24138,"driver":"616.56","compute_cap":"8.9",)"
              R"("family":"Ada Lovelace"}]})");

    auto gate = checks::check_gpu_clear_to_start_server(wait);
    CHECK(gate.status == Status::pass);
    CHECK(gate.message == "2 consecutive clear readings");
    CHECK(gate.evidence.dump() == "{" + readings + "}");

    auto torn = checks::check_gpu_clear_after_teardown(wait, {200, 201});
    CHECK(torn.status == Status::pass);
    CHECK(torn.message == "2 consecutive clear readings");
    CHECK(torn.evidence.dump() == "{" + readings + R"(,"signalled":[200,201]})");

    auto stopped = checks::check_gpu_clear_after_stop(wait, {});
    CHECK(stopped.status == Status::pass);
    CHECK(stopped.message == "2 consecutive clear readings");
    CHECK(stopped.evidence.dump() == "{" + readings + R"(,"left_after_the_server_stopped":[]})");
}

TEST_CASE("T2: a busy card fails, and before a start the refusal is said", "[T2]") {
    // 21,768 MiB is what the killed server's engine held in the reference's recorded run.
    const ClearResult held{
        false, {{0.0, 21768, 0}}, "not clear after 0s: last reading 21768 MiB used, 0 server processes alive"};
    auto boot = checks::check_gpu_clear_to_boot(held, {rtx4090()});
    CHECK(boot.status == Status::fail);
    CHECK(terminal_line(boot) ==
          "[ T2] TRIPWIRE-FAILED  card not clear; refusing to boot. not clear after 0s: last "
          "reading 21768 MiB used, 0 server processes alive");
    CHECK(boot.evidence["readings"].dump() == "[[0.0,21768,0]]");

    auto gate = checks::check_gpu_clear_to_start_server(held);
    CHECK(gate.status == Status::fail);
    CHECK(gate.message ==
          "card not clear; refusing to start a server. not clear after 0s: last reading 21768 MiB "
          "used, 0 server processes alive");

    // After a stop the reason alone: nothing is being refused.
    auto stopped = checks::check_gpu_clear_after_stop(held, {301, 302});
    CHECK(stopped.status == Status::fail);
    CHECK(stopped.message == "not clear after 0s: last reading 21768 MiB used, 0 server processes alive");
    CHECK(stopped.evidence.dump() == R"({"readings":[[0.0,21768,0]],"left_after_the_server_stopped":[301,302]})");
}

TEST_CASE("T2: live server processes fail a card whose memory reads low", "[T2]") {
    const ClearResult alive{
        false, {{0.0, 0, 5}}, "not clear after 0s: last reading 0 MiB used, 5 server processes alive"};
    auto boot = checks::check_gpu_clear_to_boot(alive, {rtx4090()});
    CHECK(boot.status == Status::fail);
    CHECK(boot.message ==
          "card not clear; refusing to boot. not clear after 0s: last reading 0 MiB used, 5 server processes alive");
    CHECK(boot.evidence["readings"].dump() == "[[0.0,0,5]]");

    auto torn = checks::check_gpu_clear_after_teardown(alive, {200, 201, 300, 301, 600});
    CHECK(torn.status == Status::fail);
    CHECK(torn.message == "not clear after 0s: last reading 0 MiB used, 5 server processes alive");
    CHECK(torn.evidence["signalled"].dump() == "[200,201,300,301,600]");
}

TEST_CASE("T2: no nvidia-smi is no reading: not clear, its memory null and never 0", "[T2]") {
    const ClearResult unread{
        false, {{0.0, std::nullopt, 0}}, "not clear after 0s: last reading None MiB used, 0 server processes alive"};
    auto boot = checks::check_gpu_clear_to_boot(unread, {});
    CHECK(boot.status == Status::fail);
    CHECK(terminal_line(boot) ==
          "[ T2] TRIPWIRE-FAILED  card not clear; refusing to boot. not clear after 0s: last "
          "reading None MiB used, 0 server processes alive");
    CHECK(boot.evidence.dump() == R"({"readings":[[0.0,null,0]],"gpus":[]})");
}

TEST_CASE("T2: without a process table it cannot tell", "[T2]") {
    auto td = checks::gpu_clear_needs_linux("teardown", "/no/proc");
    CHECK(td.status == Status::unknown);
    CHECK(terminal_line(td) ==
          "[ T2] ????  teardown needs Linux: it finds the server's processes in /no/proc. Run it "
          "where the server runs.");
    CHECK(td.evidence.dump() == "{}");

    auto inspect = checks::gpu_clear_needs_linux("Checking that the GPU is free", "/no/proc", {rtx4090()});
    CHECK(inspect.status == Status::unknown);
    CHECK(inspect.message ==
          "Checking that the GPU is free needs Linux: it finds the server's processes in /no/proc. "
          "Run it where the server runs.");
    REQUIRE(inspect.evidence.size() == 1);
    CHECK(inspect.evidence["gpus"][0]["family"] == "Ada Lovelace");
    CHECK(checks::gpu_clear_needs_linux("Checking that the GPU is free", "/no/proc", {}).evidence.dump() ==
          R"({"gpus":[]})");
}
