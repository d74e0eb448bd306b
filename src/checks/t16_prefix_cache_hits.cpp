// T16. The prompt tokens the prefix cache served between the snapshots. Every engine
// counts them its own way (verified on vLLM 0.28-0.30, SGLang 0.5.20, TensorRT-LLM
// 1.3.0rc29); each is turned into the same two numbers, tokens served from the cache and
// tokens looked up, before the verdict.
#include "inferlint/checks/t16_prefix_cache.hpp"

#include "inferlint/checks/snapshot_checks.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace inferlint::checks {

namespace {

// The counters' increase, in the unit the engine counts.
struct CacheCounts {
    std::optional<double> hit;         // served from the cache
    std::optional<double> queried;     // looked up in it
    bool in_blocks = false;            // KV blocks, not tokens (TensorRT-LLM without its token counter)
    std::vector<std::string> missing;  // the counters a snapshot lacks, when the counts cannot be had
    Json extra = Json::object();       // the engine's own figures, for the evidence
};

std::optional<double> t16_delta(Deltas& delta, const Engine& engine, const std::string& name) {
    return delta(name, engine.witness(name));
}

// Hits served through a KV connector or CPU offloading are counted apart, in
// vllm:external_prefix_cache_{queries,hits} (vllm/v1/metrics/loggers.py, 0.3x): the
// tokens served from the cache are both counters' hits together.
constexpr const char* kVllmExternalHits = "vllm:external_prefix_cache_hits_total";
constexpr const char* kVllmExternalQueries = "vllm:external_prefix_cache_queries_total";

CacheCounts vllm_counts(Deltas& delta, const MetricNames& m) {
    CacheCounts c;
    c.hit = delta(m.prefix_cache_hits);
    c.queried = delta(m.prefix_cache_queries);
    if (!c.hit) c.missing.push_back(m.prefix_cache_hits);
    if (!c.queried) c.missing.push_back(m.prefix_cache_queries);
    auto ext_hit = delta(kVllmExternalHits);
    if (ext_hit) {
        c.extra["external_hits"] = *ext_hit;
        c.extra["external_queries"] = or_null(delta(kVllmExternalQueries));
        c.extra["local_hits"] = or_null(c.hit);
        if (c.hit) c.hit = *c.hit + *ext_hit;
    }
    return c;
}

// SGLang 0.5.20 writes cached_tokens_total from the first hit only, so a run without one
// has none; the prompt tokens less the uncached ones say the same and are always there
// (the recorded own-client run: 3,064 - 2,977 = 87 = the cached counter's increase).
CacheCounts sglang_counts(Deltas& delta, const MetricNames& m) {
    CacheCounts c;
    c.queried = delta(m.prompt_tokens);
    auto uncached = delta(m.uncached_prompt_tokens + "_sum");
    auto cached = delta(m.prefix_cache_hits);
    c.extra["uncached_tokens"] = or_null(uncached);
    c.extra["cached_tokens_counter"] = or_null(cached);
    if (!c.queried) c.missing.push_back(m.prompt_tokens);
    if (cached) {
        c.hit = cached;
    } else if (uncached && c.queried) {
        c.hit = *c.queried - *uncached;
    } else if (!uncached) {
        c.missing.push_back(m.uncached_prompt_tokens + "_sum");
    }
    return c;
}

// TensorRT-LLM's block counters also count a paused request taking back its own blocks
// (the recorded pauses run: 9 reused blocks, 0 cached prompt tokens), so the token
// counter comes first and the blocks are the fallback.
CacheCounts trtllm_counts(Deltas& delta, const Engine& engine) {
    const MetricNames& m = engine.metrics;
    CacheCounts c;
    auto reused = t16_delta(delta, engine, m.cache_reused_blocks);
    auto missed = t16_delta(delta, engine, m.cache_missed_blocks);
    c.extra["reused_blocks"] = or_null(reused);
    c.extra["missed_blocks"] = or_null(missed);
    c.hit = delta(m.prefix_cache_hits);
    c.queried = delta(m.prompt_tokens);
    if (c.hit && c.queried) return c;
    if (reused && missed) {
        c.hit = reused;
        c.queried = *reused + *missed;
        c.in_blocks = true;
        return c;
    }
    if (!c.hit) c.missing.push_back(m.prefix_cache_hits);
    if (!c.queried) c.missing.push_back(m.prompt_tokens);
    return c;
}

CacheCounts counts_of(Deltas& delta, const Engine& engine) {
    switch (engine.id) {
        case EngineId::sglang:
            return sglang_counts(delta, engine.metrics);
        case EngineId::trtllm:
            return trtllm_counts(delta, engine);
        case EngineId::vllm:
            break;
    }
    return vllm_counts(delta, engine.metrics);
}

std::string t16_count(double n) { return util::text::with_commas(static_cast<long long>(std::llround(n))); }

std::string t16_names(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " and " : "") + names[i];
    return out;
}

// "87 of 3,064 prompt tokens" / "9 of 438 KV blocks"
std::string t16_share_text(const CacheCounts& c) {
    return fmt::format("{} of {} {}", t16_count(*c.hit), t16_count(*c.queried),
                       c.in_blocks ? "KV blocks" : "prompt tokens");
}

CheckResult t16_above(const CacheCounts& c, double share, const Engine& engine, const PrefixCacheContext& ctx,
                      const std::optional<std::string>& off, Json ev) {
    const std::string pct = fmt::format("{:.1f}%", share * 100);
    std::string said_off =
        off ? fmt::format("; the log says the cache was off ({}), so it may be another start's", *off) : "";
    if (ctx.unique_prompts && share > kPrefixCacheFailShare)
        return {TripwireId::T16, Status::fail,
                fmt::format("{} came from the prefix cache ({}) although the prompts were meant to be unique "
                            "({}): the harness repeated prompts, and the run measured prefill the server "
                            "skipped{}",
                            t16_share_text(c), pct, *ctx.unique_prompts, said_off),
                std::move(ev)};
    std::string meant =
        ctx.unique_prompts ? fmt::format(", though the prompts were meant to be unique ({})", *ctx.unique_prompts) : "";
    return {TripwireId::T16, Status::warn,
            fmt::format("{} came from the prefix cache ({}){}: throughput and latency include prefill the server "
                        "skipped. A shared system prompt is a reason; for a cache-free measurement {}, or send "
                        "unique prompts{}",
                        t16_share_text(c), pct, meant, engine.no_prefix_cache, said_off),
            std::move(ev)};
}

}  // namespace

std::optional<std::string> prefix_caching_off(const parse::BootFacts& facts) {
    if (facts.asked.prefix_caching != false) return std::nullopt;
    // Where the arguments line said so, in its own words.
    if (facts.non_default_args) return "non-default args: enable_prefix_caching False";
    if (facts.engine == "trtllm") return "LLM Args: enable_block_reuse=False";
    return "server_args: disable_radix_cache True";
}

std::optional<std::string> prefix_caching_off(const Snapshot& snapshot) {
    const std::string& name = engine_of({&snapshot}).metrics.cache_info;
    if (name.empty()) return std::nullopt;
    auto labels = snapshot.metrics().info(name);
    if (!labels) return std::nullopt;
    auto it = labels->find("enable_prefix_caching");
    if (it == labels->end() || it->second != "False") return std::nullopt;
    return name + " enable_prefix_caching=\"False\"";
}

CheckResult check_prefix_cache(const Snapshot& before, const Snapshot& after, const PrefixCacheContext& ctx,
                               Measured* measured) {
    const Engine& engine = engine_of({&before, &after});
    Deltas delta(before, after);
    CacheCounts c = counts_of(delta, engine);
    if (delta.restart()) return restarted(TripwireId::T16, Status::unknown, *delta.restart());
    std::optional<std::string> off = ctx.facts ? prefix_caching_off(*ctx.facts) : std::nullopt;
    if (!off) off = prefix_caching_off(after);
    const bool counted = c.hit && c.queried && std::isfinite(*c.hit) && std::isfinite(*c.queried);
    std::optional<double> share;
    if (counted && *c.queried > 0 && *c.hit >= 0) share = *c.hit / *c.queried;
    if (measured) measured->prefix_hit_rate = share;

    Json ev = Json::object();
    ev["hit_tokens"] = c.in_blocks ? Json(nullptr) : or_null(c.hit);
    ev["queried_tokens"] = c.in_blocks ? Json(nullptr) : or_null(c.queried);
    ev["hit_rate"] = or_null(share);
    ev["unit"] = c.in_blocks ? "blocks" : "tokens";
    ev["engine"] = engine.key;
    ev["unique_prompts"] = or_null(ctx.unique_prompts);
    ev["caching_off"] = or_null(off);
    for (const auto& [k, v] : c.extra.items()) ev[k] = v;

    if (share && *share > kPrefixCacheWarnShare) return t16_above(c, *share, engine, ctx, off, std::move(ev));
    if (off) {
        std::string counts = share ? fmt::format("; {} came from the cache", t16_share_text(c)) : "";
        return {TripwireId::T16, Status::pass, fmt::format("prefix caching was off ({}){}", *off, counts), ev};
    }
    if (!c.missing.empty())
        return {TripwireId::T16, Status::unknown,
                fmt::format("{} absent from a snapshot: the prefix cache's share cannot be told", t16_names(c.missing)),
                ev};
    if (!counted || *c.hit < 0)
        return {TripwireId::T16, Status::unknown, "the prefix-cache counters moved by a value that is not a count", ev};
    if (!share)
        return {TripwireId::T16, Status::unknown,
                fmt::format("no {} looked up in the prefix cache between the snapshots",
                            c.in_blocks ? "KV block was" : "prompt token was"),
                ev};
    return {TripwireId::T16, Status::pass,
            fmt::format("{} came from the prefix cache ({:.1f}%)", t16_share_text(c), *share * 100), ev};
}

}  // namespace inferlint::checks
