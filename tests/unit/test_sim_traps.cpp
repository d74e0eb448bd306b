// The simulator's traps (issue 13): its prefix cache and speculative decoding, each with
// its ground truth (/sim/state) as the answer key for inferlint's own readings (the model
// folder and the noise are in test_sim_traps_config.cpp). Every test starts its own
// servers on free ports of 127.0.0.1.
#include "sim_traps.hpp"

using Catch::Matchers::Contains;
using namespace simtraps;

TEST_CASE("prefix cache: a repeated prompt is served from cached blocks, and the counters say how much", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {});
    const fs::path run = s.tmp.path / "same";
    fs::path before = s.snapshot("before");
    Json result = trap_bench(s, run, 8, 64, 16, {"--sim-same-prompt"});
    fs::path after = s.snapshot("after");
    Json truth = s.state();
    CHECK(result["completed"] == 8);
    // The test request leaves its 4 full blocks cached; each of the 8 takes 3 of them
    // (vLLM computes the last prompt token, so the 4th block again): 8 x 48 of 9 x 64.
    CHECK(truth["prefix_cache_hit_tokens"] == 8 * 48);
    CHECK(truth["prefix_cache_query_tokens"] == 9 * 64);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_hits_total") == 8 * 48);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_queries_total") == 9 * 64);
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_total") == 9 * 64);  // every prompt token, cached or not
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_cached_total") == 8 * 48);
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_by_source_total", {{"source", "local_cache_hit"}}) == 8 * 48);
    // The prefill skipped what the cache served.
    CHECK(trap_delta(before, after, "vllm:request_prefill_kv_computed_tokens_sum") == 9 * 64 - 8 * 48);
    // Cached blocks no request holds count as free, as in vLLM's usage gauge.
    CHECK(truth["cached_blocks"] == 4);
    CHECK(truth["used_blocks"] == 0);
    CHECK(load_snapshot(after).metrics().single("vllm:kv_cache_usage_perc").value() == 0.0);
    // T16 from the snapshots: meant unique, it fails; otherwise a warning.
    auto unique = trap_results(
        testsupport::run_cli({"prefix-cache", before.string(), after.string(), "--unique-prompts", "--json"}));
    CHECK(unique["T16"]["status"] == "fail");
    CHECK(unique["T16"]["evidence"]["hit_tokens"] == truth["prefix_cache_hit_tokens"].get<double>());
    CHECK(unique["T16"]["evidence"]["queried_tokens"] == truth["prefix_cache_query_tokens"].get<double>());
    auto plain = trap_results(testsupport::run_cli({"prefix-cache", before.string(), after.string(), "--json"}));
    CHECK(plain["T16"]["status"] == "warn");
}

TEST_CASE("prefix cache: unique prompts miss it; a second run with the same --seed repeats the first", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {});
    fs::path before = s.snapshot("b0");
    trap_bench(s, s.tmp.path / "seed0", 8, 64, 16);
    fs::path mid = s.snapshot("b1");
    CHECK(s.state()["prefix_cache_hit_tokens"] == 0);
    CHECK(s.state()["prefix_cache_query_tokens"] == 9 * 64);
    auto first = trap_results(
        testsupport::run_cli({"prefix-cache", before.string(), mid.string(), "--unique-prompts", "--json"}));
    CHECK(first["T16"]["status"] == "pass");
    CHECK(first["T16"]["evidence"]["hit_tokens"] == 0.0);
    // Another seed: other prompts, nothing cached for them.
    trap_bench(s, s.tmp.path / "seed1", 8, 64, 16, {"--seed", "1"});
    CHECK(trap_hits(s) == 0);
    // The first seed again: every prompt (its test request's too) is in the cache.
    fs::path again_before = s.snapshot("b2");
    trap_bench(s, s.tmp.path / "seed0-again", 8, 64, 16, {"--seed", "0"});
    fs::path again_after = s.snapshot("b3");
    CHECK(trap_hits(s) == 9 * 48);
    auto again = trap_results(testsupport::run_cli(
        {"prefix-cache", again_before.string(), again_after.string(), "--unique-prompts", "--json"}));
    CHECK(again["T16"]["status"] == "fail");
    CHECK(again["T16"]["evidence"]["hit_tokens"] == 9 * 48.0);
    // The client says what it sent: a random dataset without a shared prefix.
    CHECK_THAT(util::read_file(s.tmp.path / "seed0" / "load.log"),
               Contains("dataset_name='random'") && Contains("random_prefix_len=0"));
}

TEST_CASE("prefix cache: cached blocks stay while empty ones last, then the least recently freed go", "[sim]") {
    // 64 usable blocks of 16. A (64 words) caches 4 blocks, B and C (900 words) 56 each.
    TrapSim s("sim/Qwen3-8B",
              {"--num-gpu-blocks", "65", "--block-size", "16", "--max-model-len", "1024", "--max-num-seqs", "4"});
    auto send = [&](char letter, int words) {
        auto r = util::http_post_json(s.url() + "/v1/completions",
                                      fmt::format(R"({{"model": "sim/Qwen3-8B", "prompt": "{}", "max_tokens": 4}})",
                                                  trap_words_prompt(letter, words)));
        REQUIRE(r.status == 200);
        return trap_hits(s);
    };
    CHECK(send('a', 64) == 0);
    CHECK(send('a', 64) == 48);  // 3 of its 4 blocks: the last prompt token is always computed
    CHECK(send('b', 900) == 48);
    CHECK(s.state()["cached_blocks"] == 60);  // A's 4 and B's 56: the pool had empty blocks for B
    CHECK(send('a', 64) == 96);               // still cached; now freed more recently than B
    // C needs 57 blocks with 4 empty: 53 cached ones go, least recently freed first: A's
    // 4th block (freed after A's first run; its later runs compute that block again rather
    // than take it), then 52 of B's, its tail first.
    CHECK(send('c', 900) == 96);
    CHECK(s.state()["cached_blocks"] == 3 + 4 + 56);
    // A's first 3 survived; its 2 new blocks, with 1 empty, take B's 4th.
    CHECK(send('a', 64) == 144);
    CHECK(send('b', 900) == 192);  // B's first 3 survived
    Json truth = s.state();
    CHECK(truth["used_blocks"] == 0);
    CHECK(truth["preemptions"] == 0);
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().single("vllm:prefix_cache_hits_total").value() == 192);
    CHECK(snap.metrics().single("vllm:kv_cache_usage_perc").value() == 0.0);
}

TEST_CASE("prefix caching off: nothing looked up, and the log and metrics say so", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {"--no-enable-prefix-caching"});
    fs::path before = s.snapshot("before");
    trap_bench(s, s.tmp.path / "same", 8, 64, 16, {"--sim-same-prompt"});
    fs::path after = s.snapshot("after");
    Json truth = s.state();
    CHECK(truth["prefix_caching"] == false);
    CHECK(truth["prefix_cache_hit_tokens"] == 0);
    CHECK(trap_delta(before, after, "vllm:prefix_cache_queries_total") == 0);  // as vLLM: no lookups at all
    CHECK(trap_delta(before, after, "vllm:prompt_tokens_total") == 9 * 64);
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    REQUIRE(facts.non_default_args);
    CHECK((*facts.non_default_args)["enable_prefix_caching"] == false);
    CHECK(facts.realized.engine_config["enable_prefix_caching"] == "False");
    CHECK(load_snapshot(after).metrics().info("vllm:cache_config_info")->at("enable_prefix_caching") == "False");
    auto r = trap_results(testsupport::run_cli(
        {"prefix-cache", before.string(), after.string(), "--unique-prompts", "--boot-log", s.log.string(), "--json"}));
    CHECK(r["T16"]["status"] == "pass");
    CHECK_THAT(r["T16"]["message"].get<std::string>(), Contains("prefix caching was off"));
    // Asked for by name, it is on and in the non-default args, as vLLM prints it.
    TrapSim on("sim/Qwen3-8B", {"--enable-prefix-caching"});
    auto on_facts = parse::parse_boot_log(on.text(), nullptr);
    CHECK((*on_facts.non_default_args)["enable_prefix_caching"] == true);
    CHECK(on.state()["prefix_caching"] == true);
}

TEST_CASE("speculative decoding: a step makes 1 + accepted tokens, one stream chunk, counted as vLLM does", "[sim]") {
    TrapSim s("sim/Qwen3-8B", {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})",
                               "--sim-spec-accept-rate", "0.7", "--sim-seed", "3"});
    auto facts = parse::parse_boot_log(s.text(), nullptr);
    REQUIRE(facts.non_default_args);
    CHECK((*facts.non_default_args)["speculative_config"] == Json{{"method", "ngram"}, {"num_speculative_tokens", 3}});
    CHECK(facts.speculative == true);
    CHECK_THAT(facts.realized.engine_config["speculative_config"].get<std::string>(),
               Contains("SpeculativeConfig(method='ngram'") && Contains("num_spec_tokens=3"));
    // One request alone: its chunks are its steps (the first without a draft).
    Json t0 = s.state();
    auto chunks = trap_stream_chunks(s, "a b c d", 40);
    Json t1 = s.state();
    int tokens = 0, longest = 0;
    for (const auto& c : chunks) tokens += trap_words(c), longest = std::max(longest, trap_words(c));
    CHECK(tokens == 40);
    CHECK(t1["generation_tokens"].get<int>() - t0["generation_tokens"].get<int>() == 40);
    const int drafts = t1["spec_drafts"].get<int>() - t0["spec_drafts"].get<int>();
    CHECK(static_cast<int>(chunks.size()) == 1 + drafts);
    CHECK(longest > 1);
    CHECK(longest <= 4);
    CHECK(static_cast<int>(chunks.size()) < 40);
    // The counters against the truth, and the per-position counts sum to the accepted.
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().single("vllm:spec_decode_num_drafts_total").value() == t1["spec_drafts"].get<double>());
    CHECK(snap.metrics().single("vllm:spec_decode_num_draft_tokens_total").value() ==
          3 * t1["spec_drafts"].get<double>());
    CHECK(snap.metrics().single("vllm:spec_decode_num_accepted_tokens_total").value() ==
          t1["spec_accepted_tokens"].get<double>());
    double per_pos = 0;
    for (int i = 0; i < 3; ++i)
        per_pos += snap.metrics()
                       .single("vllm:spec_decode_num_accepted_tokens_per_pos_total", {{"position", std::to_string(i)}})
                       .value();
    CHECK(per_pos == t1["spec_accepted_tokens"].get<double>());
}

TEST_CASE("speculative decoding: client-counts passes a client counting tokens, fails one counting chunks", "[sim]") {
    TrapSim s("sim/Qwen3-8B",
              {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})", "--sim-seed", "5"});
    for (bool chunks : {false, true}) {
        DYNAMIC_SECTION((chunks ? "--sim-count-chunks" : "usage tokens")) {
            const fs::path dir = s.tmp.path / (chunks ? "chunks" : "tokens");
            fs::path before = s.snapshot(chunks ? "cb" : "tb");
            std::vector<std::string> extra;
            if (chunks) extra.push_back("--sim-count-chunks");
            Json result = trap_bench(s, dir, 8, 32, 96, extra);
            fs::path after = s.snapshot(chunks ? "ca" : "ta");
            const double generated = trap_delta(before, after, "vllm:generation_tokens_total");
            CHECK(generated == 9 * 96);
            auto r = trap_results(testsupport::run_cli({"client-counts", before.string(), after.string(),
                                                        "--bench-result", (dir / "bench.json").string(), "--load-log",
                                                        (dir / "load.log").string(), "--json"}));
            REQUIRE(r.count("T18"));
            REQUIRE(r.count("T15"));
            CHECK(r["T18"]["evidence"]["tokens_per_step"].get<double>() > 1.5);
            if (!chunks) {
                CHECK(result["total_output_tokens"] == 8 * 96);
                CHECK(r["T18"]["status"] == "pass");
                CHECK(r["T15"]["status"] == "pass");
            } else {
                CHECK(result["total_output_tokens"].get<int>() < 8 * 96 * 0.7);
                CHECK(r["T18"]["status"] == "fail");
                // T15 warns, as the reference's does for a token difference, and names T18 as the cause.
                CHECK(r["T15"]["status"] == "warn");
                CHECK(r["T15"]["evidence"]["cause"] == "T18");
                CHECK_THAT(r["T15"]["message"].get<std::string>(),
                           Contains("it counted stream chunks, not tokens (T18)"));
            }
        }
    }
}

TEST_CASE("speculative decoding: the simulator's counter names are the recorded vLLM's", "[sim][shared]") {
    REQUIRE_REFERENCE(root);
    auto names_of = [](const std::string& text) {
        std::set<std::string> names;
        prom::Metrics m;
        prom::ParseError error;
        REQUIRE(prom::parse(text, m, error));
        for (const auto& smp : m.samples())
            if (smp.name.find("spec_decode") != std::string::npos) names.insert(smp.name);
        return names;
    };
    const auto recorded = names_of(util::read_file(root / "vllm-0.28" / "metrics" / "preempted_after.prom"));
    TrapSim s("sim/Qwen3-8B", {"--speculative-config", R"({"method": "mtp", "num_speculative_tokens": 2})"});
    const auto ours = names_of(util::get_text(s.url() + "/metrics"));
    CHECK(recorded.size() == 8);
    CHECK(ours == recorded);
    Snapshot snap = run::Scraper().scrape(s.url());
    CHECK(snap.metrics().select("vllm:spec_decode_num_accepted_tokens_per_pos_total").size() == 2);
    // And without a speculative config, none at all (vLLM registers them only then).
    TrapSim plain("sim/Qwen3-8B", {});
    CHECK(names_of(util::get_text(plain.url() + "/metrics")).empty());
}
