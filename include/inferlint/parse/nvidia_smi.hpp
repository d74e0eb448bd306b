// What `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` prints, as values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::nvidia_smi {

// The fields asked for, in order; compute_cap needs a 2022 or newer driver, so it is
// asked for last and can be left off.
inline constexpr std::string_view kBaseFields = "index,name,memory.total,memory.used,memory.free,driver_version";
inline constexpr std::string_view kCapField = "compute_cap";
inline constexpr std::string_view kFormat = "--format=csv,noheader,nounits";

enum class WithCap { no, yes };

struct GpuInfo {
    int index = 0;
    std::string name;
    std::optional<long long> memory_total_mib;
    std::optional<long long> memory_used_mib;
    std::optional<long long> memory_free_mib;
    std::optional<std::string> driver;
    std::optional<std::string> compute_cap;

    // The architecture family of compute_cap, e.g. "Ada Lovelace"; nullopt if unknown.
    std::optional<std::string> family() const;
    bool operator==(const GpuInfo&) const = default;
};

// "8.9" -> "Ada Lovelace", "9.0" -> "Hopper"; nullopt when missing, malformed or unknown.
std::optional<std::string> family(std::optional<std::string_view> compute_cap);

// One GPU per line. A line with too few fields or a non-numeric index is skipped; a
// value nvidia-smi cannot give ("[N/A]", "[Not Supported]", empty) becomes nullopt.
// A comma inside the model name stays in the name.
std::vector<GpuInfo> parse_gpus(std::string_view text, WithCap with_cap = WithCap::yes);

// The output of --query-gpu=memory.used: one whole number of MiB per GPU. nullopt when
// any token is not a number (e.g. "[N/A]"): a partial reading is not a reading.
std::optional<std::vector<long long>> parse_used_mib(std::string_view text);

}  // namespace inferlint::nvidia_smi
