#include "support.hpp"

#include "inferlint/checks/series_checks.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/files.hpp"

#include <regex>

using namespace inferlint;
using namespace inferlint::checks;
namespace fs = std::filesystem;

namespace {

SeriesSummary summary_of(const fs::path& p) { return summarize_series_file(p); }

// The recording's text with the first match of `pattern` replaced (a one-line mutation).
SeriesSummary mutated(const fs::path& p, const std::string& pattern, const std::string& replacement) {
    std::string text = util::read_file(p);
    std::string out =
        std::regex_replace(text, std::regex(pattern), replacement, std::regex_constants::format_first_only);
    REQUIRE(out != text);
    return summarize(series_from_text(out, p.string()));
}

}  // namespace

TEST_CASE("T14: gauge denominator is num_gpu_blocks - 1 on the live run", "[series][T14][shared]") {
    REQUIRE_REFERENCE(root);
    auto live = root / "vllm-0.28" / "live";
    auto s = summary_of(live / "run.series.jsonl");
    auto r = check_null_block(s, load_snapshot(live / "after.snapshot.json"));
    CHECK(r.status == Status::pass);
    CHECK(r.evidence["inferred_usable_blocks"] == 42);
    CHECK(r.evidence["reported_num_gpu_blocks"] == 43);
    CHECK(r.evidence["distinct_readings"] == 17);
    CHECK(r.message == "gauge denominator is 42 = num_gpu_blocks (43) - 1 null block");
}

TEST_CASE("T14: the series fixtures infer 44 and 52 usable blocks", "[series][T14][shared]") {
    REQUIRE_REFERENCE(root);
    auto dir = root / "vllm-0.28" / "series";
    for (auto [stem, reported] : {std::pair{"blocks", 45}, std::pair{"ladder", 53}}) {
        auto s = summary_of(dir / (std::string(stem) + ".series.jsonl"));
        auto r = check_null_block(s, load_snapshot(dir / (std::string(stem) + "_snapshot.prom")));
        INFO(stem);
        CHECK(r.status == Status::pass);
        CHECK(r.evidence["inferred_usable_blocks"] == reported - 1);
    }
}

TEST_CASE("T14: a recording and a snapshot from different boots fail", "[series][T14][shared]") {
    REQUIRE_REFERENCE(root);
    auto dir = root / "vllm-0.28" / "series";
    auto r = check_null_block(summary_of(dir / "blocks.series.jsonl"), load_snapshot(dir / "ladder_snapshot.prom"));
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["inferred_usable_blocks"] == 44);
    CHECK(r.evidence["reported_num_gpu_blocks"] == 53);
}

TEST_CASE("T14: one reading off the block grid makes the count unknown, never a guess", "[series][T14][shared]") {
    REQUIRE_REFERENCE(root);
    auto dir = root / "vllm-0.28" / "series";
    // sqrt(2)/2: no fraction with a denominator up to 65536 fits it together with 1/44
    // (0.123456789 would not do: it is 10/81 to within the tolerance, and 44 and 81 fit)
    auto s = mutated(dir / "blocks.series.jsonl", R"("kv_usage": 0\.[0-9]+)", R"("kv_usage": 0.70710678)");
    auto r = check_null_block(s, load_snapshot(dir / "blocks_snapshot.prom"));
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["inferred_usable_blocks"].is_null());
}

TEST_CASE("T14: a snapshot without num_gpu_blocks is unknown; other engines do not apply", "[series][T14][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "vllm-0.28" / "series" / "blocks.series.jsonl");
    auto bare = snapshot_from_text("vllm:num_requests_running 1\n", "bare.prom");
    auto r = check_null_block(s, bare);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Catch::Contains("vllm:cache_config_info has no num_gpu_blocks"));
    auto na = does_not_apply(TripwireId::T14, sglang());
    REQUIRE(na);
    CHECK(na->status == Status::not_applicable);
    CHECK(na->evidence["engine"] == "sglang");
    CHECK(does_not_apply(TripwireId::T14, trtllm()));
    CHECK_FALSE(does_not_apply(TripwireId::T14, vllm()));
    CHECK_FALSE(does_not_apply(TripwireId::T9, sglang()));
    auto sg = check_null_block(s, load_snapshot(root / "sglang-0.5" / "live" / "after.snapshot.json"));
    CHECK(sg.status == Status::not_applicable);
}

TEST_CASE("T9: the live run's ceiling moved between 7 and 10", "[series][T9][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "vllm-0.28" / "live" / "run.series.jsonl");
    auto r = concurrency_ceiling(s, 42);
    CHECK(r.status == Status::warn);
    CHECK(r.evidence["ceiling_min"] == 7);
    CHECK(r.evidence["ceiling_max"] == 10);
    CHECK(r.evidence["ceiling_at_fullest"] == 8);
    CHECK(r.evidence["samples"] == 246);
    CHECK(r.evidence["basis"] == "saturated");
    CHECK(r.evidence["blocks_per_request_min"].get<double>() == Approx(4.0));
    CHECK(r.evidence["blocks_per_request_max"].get<double>() == Approx(6.0));
    CHECK_THAT(r.message, Catch::Contains("9.5% to 14.3% of the cache"));
}

TEST_CASE("T9: fixed-length requests give one ceiling on every saturated sample", "[series][T9][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "vllm-0.28" / "series" / "ladder.series.jsonl");
    auto r = concurrency_ceiling(s);
    CHECK(r.status == Status::pass);
    CHECK(r.evidence["ceiling_min"] == 4);
    CHECK(r.evidence["ceiling_max"] == 4);
    CHECK(r.evidence["samples"] == 760);
    CHECK(r.evidence["usable_blocks"].is_null());
    CHECK_FALSE(r.evidence.contains("blocks_per_request_min"));
    CHECK(r.message ==
          "one request holds 22.6% to 25.0% of the cache; ceiling = floor(1/share) = 4 on every "
          "saturated sample");
}

TEST_CASE("T9: no busy sample is unknown, with the engine's hint when no gauge was served", "[series][T9][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "trtllm-1.3" / "no-iter-stats" / "run.series.jsonl");
    auto r = concurrency_ceiling(s);
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence.empty());
    CHECK_THAT(r.message, Catch::Contains("enable_iter_perf_stats"));
    SeriesStats empty;
    CHECK(concurrency_ceiling(empty, vllm()).message == "no sample with requests running and KV in use");
}

TEST_CASE("T9: TensorRT-LLM's lagging gauges are said in the message", "[series][T9][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "trtllm-1.3" / "qwen3-8b" / "run.series.jsonl");
    auto r = concurrency_ceiling(s);
    CHECK(r.evidence["gauges_lag"] == true);
    CHECK_THAT(r.message, Catch::Contains("updates its gauges only when a request completes"));
}

TEST_CASE("T8: the ladder never ran more than 4 of 32", "[series][T8][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "vllm-0.28" / "series" / "ladder.series.jsonl");
    auto r = check_concurrency_reached(s, 32);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["peak_running"] == 4.0);
    CHECK(r.message == "requested 32 concurrent, server never ran more than 4");
    // mutation: one reading of 32 running, and the verdict flips
    auto m = mutated(root / "vllm-0.28" / "series" / "ladder.series.jsonl", R"("running": 4\.0)", R"("running": 32.0)");
    CHECK(check_concurrency_reached(m, 32).status == Status::pass);
}

TEST_CASE("T8: the boot line's claim stands beside the answer", "[series][T8][shared]") {
    REQUIRE_REFERENCE(root);
    auto s = summary_of(root / "vllm-0.28" / "series" / "ladder.series.jsonl");
    auto facts = parse::parse_boot_log_file(root / "vllm-0.28" / "boot_eager.log", nullptr);
    auto r = check_concurrency_reached(s, 4, &facts);
    CHECK(r.status == Status::pass);
    CHECK(r.evidence["boot_line_max_concurrency"] == 1.93);
    CHECK(r.evidence["boot_line_request_len"] == 16384);
    CHECK(r.message == "reached 4 running (requested 4)");
}

TEST_CASE("T8: peak 10 of 32 on the live run, with the server's own limit", "[series][T8][shared]") {
    REQUIRE_REFERENCE(root);
    auto live = root / "vllm-0.28" / "live";
    auto s = summary_of(live / "run.series.jsonl");
    auto facts = parse::parse_boot_log_file(live / "boot.log", nullptr);
    auto r = check_concurrency_reached(s, 32, &facts);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["peak_running"] == 10.0);
    CHECK(r.evidence["peak_in_flight"] == 32.0);
    CHECK(r.evidence["running_cap"] == 32);
    CHECK(r.message == "requested 32 concurrent, server never ran more than 10");  // the cap was not the limit
}

TEST_CASE("T8: admission control and a lowered running limit are named", "[series][T8]") {
    SeriesStats stats;
    for (double running : {4.0, 8.0, 8.0}) stats.add(SeriesSample{.t_wall = 1.0, .running = running, .waiting = 8.0});
    parse::BootFacts facts;
    facts.asked.max_num_queued_reqs = 16;  // as the parser reads vLLM's non-default args
    facts.asked.max_num_queued_tokens = Json(4096);
    auto r = check_concurrency_reached(stats, vllm(), 32, &facts);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["max_num_queued_reqs"] == 16);
    CHECK(r.evidence["max_num_queued_tokens"] == 4096);
    CHECK_THAT(r.message, Catch::Contains("admission control (--max-num-queued-reqs 16) kept at most 16 in flight, "
                                          "so the other 16 were rejected"));

    parse::BootFacts sg;
    sg.running_cap = 8;
    sg.requested_running = 32;
    sg.running_cap_reason = "mamba state cache";
    auto cap = running_cap(&sg);
    REQUIRE(cap);
    CHECK(cap->first == 8);
    auto r2 = check_concurrency_reached(stats, sglang(), 32, &sg);
    CHECK(r2.evidence["running_cap"] == 8);
    CHECK_THAT(r2.message, Catch::Contains("SGLang lowered its limit to 8 running because of the mamba state cache"));
    CHECK_FALSE(running_cap(nullptr));
}

TEST_CASE("T8: no running gauge is unknown; lagging gauges below the request are unknown", "[series][T8][shared]") {
    REQUIRE_REFERENCE(root);
    auto none = summary_of(root / "trtllm-1.3" / "no-iter-stats" / "run.series.jsonl");
    auto r = check_concurrency_reached(none, 32);
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["peak_running"].is_null());
    CHECK(r.evidence["peak_in_flight"].is_null());
    SeriesStats stats;
    stats.add(SeriesSample{.t_wall = 1.0, .running = 8.0});
    auto lag = check_concurrency_reached(stats, trtllm(), 32);
    CHECK(lag.status == Status::unknown);
    CHECK(lag.evidence["gauges_lag"] == true);
}
