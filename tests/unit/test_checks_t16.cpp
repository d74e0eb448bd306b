// T16 on the recorded runs of every engine, and on their snapshots and logs edited here:
// hits raised, counters dropped, the cache switched off in the log.
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t16_prefix_cache.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <fmt/format.h>

#include <regex>

using namespace inferlint;
using inferlint::checks::check_prefix_cache;
using inferlint::checks::PrefixCacheContext;
namespace fs = std::filesystem;

namespace {

struct RecordedPair {
    Snapshot before, after;
};

RecordedPair recorded(const fs::path& root, const std::string& run) {
    return {load_snapshot(root / run / "before.snapshot.json"), load_snapshot(root / run / "after.snapshot.json")};
}

// The snapshot's text with `edit` applied to each line (false drops it), as bare
// Prometheus text: T16 needs no clock.
Snapshot edited(const Snapshot& s, const std::function<bool(std::string&)>& edit) {
    return snapshot_from_text(testsupport::each_line(s.text, edit), "edited.prom");
}

// The line of `series` (a sample line, not # HELP/# TYPE) with its value set to v.
std::function<bool(std::string&)> set_value(const std::string& series, double v) {
    return [=](std::string& line) {
        if (line.starts_with(series + "{") || line.starts_with(series + " ")) {
            auto space = line.rfind(' ');
            line = line.substr(0, space + 1) + fmt::format("{}\n", v);
        }
        return true;
    };
}

std::function<bool(std::string&)> drop(const std::string& series) {
    return [=](std::string& line) { return !(line.starts_with(series + "{") || line.starts_with(series + " ")); };
}

double number(const CheckResult& r, const char* key) { return r.evidence.at(key).get<double>(); }

parse::BootFacts facts_of(const std::string& text, const Engine& engine) {
    return parse::parse_boot_log(text, &engine);
}

}  // namespace

TEST_CASE("T16: vLLM 0.29's recorded run queried 2,816 prompt tokens and hit none", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    CheckResult r = check_prefix_cache(run.before, run.after);
    CHECK(r.tripwire == TripwireId::T16);
    CHECK(r.status == Status::pass);
    CHECK(r.message == "0 of 2,816 prompt tokens came from the prefix cache (0.0%)");
    CHECK(number(r, "hit_tokens") == 0);
    CHECK(number(r, "queried_tokens") == 2816);
    CHECK(number(r, "hit_rate") == 0);
    CHECK(r.evidence["engine"] == "vllm");
    CHECK(r.evidence["caching_off"].is_null());
}

TEST_CASE("T16: every recorded vLLM run passes with no hit", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    for (std::string run : {"vllm-0.28/live", "vllm-0.28/xray", "vllm-0.30/live", "vllm-0.30/capped",
                            "vllm-0.30/qwen3-8b-start1", "vllm-0.30/qwen3-8b-start2"}) {
        INFO(run);
        auto p = recorded(root, run);
        CheckResult r = check_prefix_cache(p.before, p.after);
        CHECK(r.status == Status::pass);
        CHECK(number(r, "hit_tokens") == 0);
        CHECK(number(r, "queried_tokens") > 1000);
    }
}

TEST_CASE("T16: SGLang's own client found 87 of 3,064 prompt tokens cached, a warning", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "sglang-0.5/qwen3-8b-own-client");
    CheckResult r = check_prefix_cache(run.before, run.after);
    CHECK(r.status == Status::warn);
    CHECK(r.message.starts_with("87 of 3,064 prompt tokens came from the prefix cache (2.8%): "));
    CHECK(r.message.find("start SGLang with --disable-radix-cache, or send unique prompts") != std::string::npos);
    CHECK(number(r, "hit_tokens") == 87);
    CHECK(number(r, "queried_tokens") == 3064);
    // The cached counter and the prompt tokens less the uncached ones agree.
    CHECK(number(r, "cached_tokens_counter") == 87);
    CHECK(number(r, "uncached_tokens") == 2977);
    // Below 10%, a load meant to be unique still warns, and says it was meant to be.
    CheckResult u = check_prefix_cache(run.before, run.after, {.unique_prompts = "--unique-prompts"});
    CHECK(u.status == Status::warn);
    CHECK(u.message.find("though the prompts were meant to be unique (--unique-prompts)") != std::string::npos);
}

TEST_CASE("T16: SGLang without the cached counter reads prompt less uncached tokens", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    // sglang-0.5/live never hit the cache, so cached_tokens_total was never written.
    auto run = recorded(root, "sglang-0.5/live");
    REQUIRE_FALSE(run.after.metrics().has("sglang:cached_tokens_total"));
    CheckResult r = check_prefix_cache(run.before, run.after);
    CHECK(r.status == Status::pass);
    CHECK(r.message == "0 of 2,979 prompt tokens came from the prefix cache (0.0%)");
    CHECK(r.evidence["cached_tokens_counter"].is_null());
    // Its log says the radix cache was off.
    auto facts = parse::parse_boot_log_file(root / "sglang-0.5/live/boot.log", nullptr);
    CHECK(checks::prefix_caching_off(facts) == "server_args: disable_radix_cache True");
    CheckResult off = check_prefix_cache(run.before, run.after, {.facts = &facts});
    CHECK(off.status == Status::pass);
    CHECK(off.message ==
          "prefix caching was off (server_args: disable_radix_cache True); 0 of 2,979 prompt tokens came from the "
          "cache");
    for (std::string other :
         {"sglang-0.5/qwen3-8b/boot.log", "vllm-0.29/live/boot.log", "trtllm-1.3/qwen3-8b/boot.log"}) {
        INFO(other);
        CHECK_FALSE(checks::prefix_caching_off(parse::parse_boot_log_file(root / other, nullptr)));
    }
}

TEST_CASE("T16: TensorRT-LLM's cached prompt tokens, with the blocks as evidence", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto plain = recorded(root, "trtllm-1.3/qwen3-8b");
    CheckResult p = check_prefix_cache(plain.before, plain.after);
    CHECK(p.status == Status::pass);
    CHECK(p.message == "0 of 2,816 prompt tokens came from the prefix cache (0.0%)");
    // The reused-block counter is absent before its first reuse: its witness reads it as 0.
    REQUIRE_FALSE(plain.before.metrics().has("trtllm_kv_cache_reused_blocks_total"));
    CHECK(number(p, "reused_blocks") == 1);
    CHECK(number(p, "missed_blocks") == 103);
    // Paused requests taking back their blocks count as reused blocks, not cached prompt tokens.
    auto paused = recorded(root, "trtllm-1.3/pauses");
    CheckResult q = check_prefix_cache(paused.before, paused.after);
    CHECK(q.status == Status::pass);
    CHECK(number(q, "reused_blocks") == 9);
    CHECK(number(q, "hit_tokens") == 0);

    auto own = recorded(root, "trtllm-1.3/qwen3-8b-own-client");
    CheckResult w = check_prefix_cache(own.before, own.after);
    CHECK(w.status == Status::warn);
    CHECK(w.message.starts_with("97 of 3,111 prompt tokens came from the prefix cache (3.1%): "));
    CHECK(w.message.find("enable_block_reuse: false") != std::string::npos);
}

TEST_CASE("T16: raising vLLM's hits flips PASS to WARN, and to FAIL for a load meant to be unique", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    const double before_hits = *run.before.metrics().total("vllm:prefix_cache_hits_total");
    auto with_hits = [&](double hits) {
        return edited(run.after, set_value("vllm:prefix_cache_hits_total", before_hits + hits));
    };
    const PrefixCacheContext unique{.unique_prompts = "--dataset-name random"};
    // 28 of 2,816 is 0.99%: at most 1% passes.
    CHECK(check_prefix_cache(run.before, with_hits(28)).status == Status::pass);
    CHECK(check_prefix_cache(run.before, with_hits(28), unique).status == Status::pass);
    CheckResult warn = check_prefix_cache(run.before, with_hits(29));
    CHECK(warn.status == Status::warn);
    CHECK(warn.message.starts_with("29 of 2,816 prompt tokens came from the prefix cache (1.0%)"));
    CHECK(warn.message.find("--no-enable-prefix-caching") != std::string::npos);
    // 281 is 9.98%, 282 is 10.01%.
    CHECK(check_prefix_cache(run.before, with_hits(281), unique).status == Status::warn);
    CheckResult fail = check_prefix_cache(run.before, with_hits(1887), unique);
    CHECK(fail.status == Status::fail);
    CHECK(
        fail.message.starts_with("1,887 of 2,816 prompt tokens came from the prefix cache (67.0%) although the "
                                 "prompts were meant to be unique (--dataset-name random): the harness repeated "
                                 "prompts"));
    CHECK(number(fail, "hit_rate") == Approx(1887.0 / 2816.0));
    CHECK(fail.evidence["unique_prompts"] == "--dataset-name random");
    CHECK(check_prefix_cache(run.before, with_hits(282), unique).status == Status::fail);
    CHECK(check_prefix_cache(run.before, with_hits(1887)).status == Status::warn);
}

TEST_CASE("T16: a counter missing from a snapshot is Can't tell, never a pass", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    CheckResult r = check_prefix_cache(run.before, edited(run.after, drop("vllm:prefix_cache_hits_total")));
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "vllm:prefix_cache_hits_total absent from a snapshot: the prefix cache's share cannot be told");
    CHECK(r.evidence["hit_tokens"].is_null());
    CHECK(r.evidence["hit_rate"].is_null());
    auto no_queries = [](std::string& l) { return drop("vllm:prefix_cache_queries_total")(l); };
    CheckResult both = check_prefix_cache(edited(run.before, no_queries), edited(run.after, no_queries));
    CHECK(both.status == Status::unknown);
    CHECK(both.message.starts_with("vllm:prefix_cache_queries_total absent"));

    auto sgl = recorded(root, "sglang-0.5/live");
    auto no_uncached = [](std::string& l) { return !l.starts_with("sglang:uncached_prompt_tokens_histogram"); };
    CheckResult s = check_prefix_cache(sgl.before, edited(sgl.after, no_uncached));
    CHECK(s.status == Status::unknown);
    CHECK(s.message.starts_with("sglang:uncached_prompt_tokens_histogram_sum absent"));

    // TensorRT-LLM without its token counter falls back to the blocks; without both, unknown.
    auto trt = recorded(root, "trtllm-1.3/qwen3-8b-own-client");
    auto no_tokens = [](std::string& l) { return drop("trtllm_prompt_cached_tokens_total")(l); };
    CheckResult blocks = check_prefix_cache(edited(trt.before, no_tokens), edited(trt.after, no_tokens));
    CHECK(blocks.status == Status::warn);
    CHECK(blocks.message.starts_with("5 of 114 KV blocks came from the prefix cache (4.4%)"));
    CHECK(blocks.evidence["hit_tokens"].is_null());
    CHECK(blocks.evidence["unit"] == "blocks");
    auto nothing = [](std::string& l) {
        return !l.starts_with("trtllm_prompt_cached_tokens_total") && !l.starts_with("trtllm_kv_cache_missed_blocks");
    };
    CheckResult none = check_prefix_cache(edited(trt.before, nothing), edited(trt.after, nothing));
    CHECK(none.status == Status::unknown);
    CHECK(none.message.starts_with("trtllm_prompt_cached_tokens_total absent"));
}

TEST_CASE("T16: a restart between the snapshots is Can't tell", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    Snapshot restarted = edited(run.after, [](std::string& line) {
        if (line.starts_with("vllm:prefix_cache_hits_created"))
            line = std::regex_replace(line, std::regex(R"(\S+\n$)"), "1.8e+09\n");
        return true;
    });
    CheckResult r = check_prefix_cache(run.before, restarted);
    CHECK(r.status == Status::unknown);
    CHECK(r.message.starts_with("server restarted between snapshots"));
    CHECK(r.evidence["restarted"] == true);
    // A counter that went down is a restart too.
    CheckResult down =
        check_prefix_cache(run.before, edited(run.after, set_value("vllm:prefix_cache_queries_total", 1)));
    CHECK(down.status == Status::unknown);
    CHECK(down.message.find("went down") != std::string::npos);
}

TEST_CASE("T16: the cache switched off in the log or in vLLM's cache_config_info passes", "[T16][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    const std::string boot = util::read_file(root / "vllm-0.29/live/boot.log");
    const std::string args = "'max_num_seqs': 32}";
    REQUIRE(boot.find(args) != std::string::npos);
    std::string off_log = boot;
    off_log.replace(off_log.find(args), args.size(), "'max_num_seqs': 32, 'enable_prefix_caching': False}");
    auto facts = facts_of(off_log, vllm());
    CHECK(checks::prefix_caching_off(facts) == "non-default args: enable_prefix_caching False");
    CHECK_FALSE(checks::prefix_caching_off(facts_of(boot, vllm())));
    // No prompt looked up at all: with the cache off a pass, else Can't tell.
    auto idle = [](std::string& l) { return set_value("vllm:prefix_cache_queries_total", 63)(l); };
    Snapshot none_queried = edited(run.after, idle);
    CHECK(check_prefix_cache(run.before, none_queried).status == Status::unknown);
    CheckResult off = check_prefix_cache(run.before, none_queried, {.facts = &facts});
    CHECK(off.status == Status::pass);
    CHECK(off.message == "prefix caching was off (non-default args: enable_prefix_caching False)");
    // The server's own metric says it too, without a log.
    Snapshot info_off = edited(none_queried, [](std::string& l) {
        if (l.starts_with("vllm:cache_config_info"))
            l = std::regex_replace(l, std::regex("enable_prefix_caching=\"True\""), "enable_prefix_caching=\"False\"");
        return true;
    });
    CHECK(checks::prefix_caching_off(info_off) == "vllm:cache_config_info enable_prefix_caching=\"False\"");
    CHECK(check_prefix_cache(run.before, info_off).status == Status::pass);
    // Counters that show hits win over a log that says off (a log of another start).
    Snapshot hits = edited(run.after, set_value("vllm:prefix_cache_hits_total", 500));
    CheckResult contradicted = check_prefix_cache(run.before, hits, {.facts = &facts});
    CHECK(contradicted.status == Status::warn);
    CHECK(contradicted.message.find("the log says the cache was off") != std::string::npos);

    const std::string trt_boot = util::read_file(root / "trtllm-1.3/qwen3-8b/boot.log");
    std::string trt_off =
        std::regex_replace(trt_boot, std::regex("enable_block_reuse=True"), "enable_block_reuse=False");
    REQUIRE(trt_off != trt_boot);
    CHECK(checks::prefix_caching_off(facts_of(trt_off, trtllm())) == "LLM Args: enable_block_reuse=False");
}

TEST_CASE("T16: the suite gives it after T1-T15's verdicts, with the run's unique_prompts", "[T16][suite][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = recorded(root, "vllm-0.29/live");
    checks::RunEvidence ev;
    ev.before = run.before;
    ev.after = edited(run.after, set_value("vllm:prefix_cache_hits_total", 2000));
    ev.unique_prompts = "--unique-prompts";
    checks::RunVerdicts v = checks::check_run(ev);
    REQUIRE_FALSE(v.results.empty());
    // Last of the load's verdicts; only T20 (failed requests, on both snapshots) follows it.
    REQUIRE(v.results.size() >= 2);
    CHECK(v.results.back().tripwire == TripwireId::T20);
    CHECK(v.results[v.results.size() - 2].tripwire == TripwireId::T16);
    CHECK(v.result(TripwireId::T16)->status == Status::fail);
    CHECK(v.result(TripwireId::T1));
    CHECK(v.result(TripwireId::T10));
    checks::RunEvidence only_boot;
    only_boot.boots.push_back({"boot.log", parse::parse_boot_log_file(root / "vllm-0.29/live/boot.log", nullptr), {}});
    CHECK_FALSE(checks::check_run(only_boot).result(TripwireId::T16));
}
