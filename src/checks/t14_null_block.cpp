// T14: vLLM reserves one KV block as the null block, so kv_cache_usage_perc counts out
// of num_gpu_blocks - 1, not the num_gpu_blocks its cache_config_info exports.
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/core/blocks.hpp"

#include <fmt/format.h>

#include <charconv>

namespace inferlint::checks {

std::optional<CheckResult> does_not_apply(TripwireId tripwire, const Engine& engine) {
    if (tripwire == TripwireId::T14 && engine.metrics.cache_info.empty()) {
        return CheckResult{
            .tripwire = TripwireId::T14,
            .status = Status::not_applicable,
            .message = fmt::format("does not apply to {}: T14 is about vLLM's reserved null block", engine.name),
            .evidence = Json{{"engine", engine.key}},
        };
    }
    return std::nullopt;
}

namespace {

// A label value of plain digits, as Python's str.isdigit() accepts before int().
std::optional<long long> digits_value(std::string_view text) {
    if (text.empty()) return std::nullopt;
    for (char c : text)
        if (c < '0' || c > '9') return std::nullopt;
    long long v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc()) return std::nullopt;
    return v;
}

}  // namespace

CheckResult check_null_block(const SeriesStats& stats, const Snapshot& snapshot) {
    return null_block(stats, snapshot).result;
}

NullBlockFinding null_block(const SeriesStats& stats, const Snapshot& snapshot) {
    const Engine& engine = engine_of({&snapshot});
    const std::string& cache_info = engine.metrics.cache_info;
    if (cache_info.empty()) return {*does_not_apply(TripwireId::T14, engine), std::nullopt};

    std::optional<long long> reported;
    if (auto info = snapshot.metrics().info(cache_info)) {
        auto it = info->find("num_gpu_blocks");
        if (it != info->end()) reported = digits_value(it->second);
    }
    if (!reported)
        return {{TripwireId::T14, Status::unknown, fmt::format("{} has no num_gpu_blocks label", cache_info)},
                std::nullopt};

    BlockInference inf = infer_blocks(stats.kv_levels());
    Json ev = {
        {"reported_num_gpu_blocks", *reported},
        {"inferred_usable_blocks", or_null(inf.blocks)},
        {"distinct_readings", inf.distinct},
    };
    if (!inf.blocks || !inf.trusted)
        return {{TripwireId::T14, Status::unknown, fmt::format("block count not inferable: {}", inf.reason()), ev},
                std::nullopt,
                reported,
                inf.blocks};
    if (*inf.blocks == *reported - 1) {
        // Only a count that matched the server's own figure is trusted for T9.
        return {
            {TripwireId::T14, Status::pass,
             fmt::format("gauge denominator is {} = num_gpu_blocks ({}) - 1 null block", *inf.blocks, *reported), ev},
            *inf.blocks,
            reported,
            inf.blocks};
    }
    return {{TripwireId::T14, Status::fail,
             fmt::format("gauge denominator is {}, expected num_gpu_blocks - 1 = {}; either the gauge's meaning "
                         "changed or the recording comes from another boot than the snapshot",
                         *inf.blocks, *reported - 1),
             ev},
            std::nullopt,
            reported,
            inf.blocks};
}

}  // namespace inferlint::checks
