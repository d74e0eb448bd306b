// nvidia-smi query output as values (cases pinned from the Python tool's test_gpu.py).
#include "inferlint/parse/nvidia_smi.hpp"

#include <catch2/catch.hpp>

using namespace inferlint;
using nvidia_smi::GpuInfo;

namespace {
// Read from the RTX 4090 the reference fixtures were recorded on (idle, driver 616.56).
const std::string kSmiRtx4090 = "0, NVIDIA GeForce RTX 4090, 24564, 0, 24138, 616.56, 8.9\n";
}  // namespace

TEST_CASE("nvidia-smi: one GPU parses into every field", "[nvidia-smi]") {
    auto gpus = nvidia_smi::parse_gpus(kSmiRtx4090);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0] == GpuInfo{0, "NVIDIA GeForce RTX 4090", 24564, 0, 24138, "616.56", "8.9"});
    CHECK(gpus[0].family() == "Ada Lovelace");
}

TEST_CASE("nvidia-smi: compute capability names the family", "[nvidia-smi]") {
    using O = std::optional<std::string>;
    const std::vector<std::pair<O, O>> cases = {
        {"6.1", "Pascal"},
        {"7.0", "Volta"},
        {"7.2", "Volta"},
        {"7.5", "Turing"},
        {"8.0", "Ampere"},
        {"8.6", "Ampere"},
        {"8.9", "Ada Lovelace"},
        {"9.0", "Hopper"},
        {"10.0", "Blackwell"},
        {"12.0", "Blackwell"},
        {"5.2", std::nullopt},
        {"", std::nullopt},
        {std::nullopt, std::nullopt},
        {"n/a", std::nullopt},
        {"8.", std::nullopt},
        {"7", std::nullopt},
    };
    for (const auto& [cap, expected] : cases) {
        INFO("cap " << cap.value_or("<none>"));
        std::optional<std::string_view> in;
        if (cap) in = *cap;
        CHECK(nvidia_smi::family(in) == expected);
    }
}

TEST_CASE("nvidia-smi: several GPUs, and values it cannot give are missing, not 0", "[nvidia-smi]") {
    auto gpus = nvidia_smi::parse_gpus(kSmiRtx4090 + "1, NVIDIA A100-SXM4-40GB, [N/A], [N/A], [N/A], 550.54, 8.0\n");
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].index == 0);
    CHECK(gpus[1].index == 1);
    CHECK_FALSE(gpus[1].memory_total_mib);
    CHECK_FALSE(gpus[1].memory_used_mib);
    CHECK_FALSE(gpus[1].memory_free_mib);
    CHECK(gpus[1].family() == "Ampere");

    auto ns = nvidia_smi::parse_gpus("0, Tesla T4, [Not Supported], 12, 15000, [Not Supported], \n");
    REQUIRE(ns.size() == 1);
    CHECK_FALSE(ns[0].memory_total_mib);
    CHECK(ns[0].memory_used_mib == 12);
    CHECK_FALSE(ns[0].driver);
    CHECK_FALSE(ns[0].compute_cap);
    CHECK_FALSE(ns[0].family());
}

TEST_CASE("nvidia-smi: a comma in the name stays in the name", "[nvidia-smi]") {
    auto gpus = nvidia_smi::parse_gpus("0, NVIDIA Example, Rev 2, 8192, 0, 8192, 550.54, 8.6\n");
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].name == "NVIDIA Example, Rev 2");
    CHECK(gpus[0].memory_total_mib == 8192);
    CHECK(gpus[0].compute_cap == "8.6");
}

TEST_CASE("nvidia-smi: an old driver's answer without compute_cap", "[nvidia-smi]") {
    auto gpus =
        nvidia_smi::parse_gpus("0, NVIDIA GeForce RTX 4090, 24564, 0, 24138, 470.82\n", nvidia_smi::WithCap::no);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].driver == "470.82");
    CHECK_FALSE(gpus[0].compute_cap);
    CHECK_FALSE(gpus[0].family());
    // The same line read as if it carried compute_cap is one field short: no GPU.
    CHECK(nvidia_smi::parse_gpus("0, NVIDIA GeForce RTX 4090, 24564, 0, 24138, 470.82\n").empty());
}

TEST_CASE("nvidia-smi: junk lines are skipped, never a crash", "[nvidia-smi]") {
    CHECK(nvidia_smi::parse_gpus("").empty());
    CHECK(nvidia_smi::parse_gpus("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
              .empty());
    CHECK(nvidia_smi::parse_gpus("index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB], "
                                 "driver_version, compute_cap\n")
              .empty());
    CHECK(nvidia_smi::parse_gpus(std::string("\0\xff,\x01,,,,,,\n", 10)).empty());
    // Memory as a decimal is truncated; as infinity or words it is missing.
    auto odd = nvidia_smi::parse_gpus("3, X, 1024.9, inf, abc, 1.0, 9.0\r\n");
    REQUIRE(odd.size() == 1);
    CHECK(odd[0].index == 3);
    CHECK(odd[0].memory_total_mib == 1024);
    CHECK_FALSE(odd[0].memory_used_mib);
    CHECK_FALSE(odd[0].memory_free_mib);
    CHECK(odd[0].family() == "Hopper");
}

TEST_CASE("nvidia-smi: memory.used readings, and when they are not readings", "[nvidia-smi]") {
    using V = std::vector<long long>;
    CHECK(nvidia_smi::parse_used_mib("21768\n") == V{21768});
    CHECK(nvidia_smi::parse_used_mib("0\n120\n") == V{0, 120});
    CHECK(nvidia_smi::parse_used_mib("") == V{});  // no GPU: empty, which is not a clear reading
    CHECK_FALSE(nvidia_smi::parse_used_mib("[N/A]\n"));
    CHECK_FALSE(nvidia_smi::parse_used_mib("12\n[Not Supported]\n"));
    CHECK_FALSE(nvidia_smi::parse_used_mib("12.5\n"));
    CHECK_FALSE(nvidia_smi::parse_used_mib("Failed to initialize NVML: Driver/library version mismatch\n"));
    CHECK_FALSE(nvidia_smi::parse_used_mib("99999999999999999999999\n"));
}
