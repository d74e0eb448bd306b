// T16, beyond the reference's fifteen: the benchmark measured the server's prefix cache.
// Counters verified on the recorded runs of vLLM 0.28, 0.29 and 0.30, SGLang 0.5.20 and
// TensorRT-LLM 1.3.0rc29 (../shared/reference/fixtures).
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

Tripwire prefix_cache_hits() {
    using Ex = TripwireExample;
    return {
        .id = "T16",
        .key = TripwireId::T16,
        .slug = "prefix-cache-hits",
        .name = "Prefix cache served the benchmark",
        .trap = "repeated prompts are answered from the prefix cache, so the run measures skipped prefill",
        .what =
            "vLLM keeps the KV blocks of prompts it has computed and reuses them for a later prompt that "
            "starts the same way. A benchmark that sends one prompt again and again (a seed taken from a "
            "batch index that is always 0) is then served mostly from the cache. The server counts it: "
            "vllm:prefix_cache_hits_total against vllm:prefix_cache_queries_total, in prompt tokens.",
        .why =
            "Prefill the server skips makes throughput higher and time to first token lower than the same "
            "load of distinct prompts would. In one paired A/B test the hit rate was 67% on one arm and 45% "
            "on the other, and paired throughput came out 2.0-2.8x that of a sweep on the identical server "
            "(61,347 against 22,159 tokens/s at concurrency 32). The arm with more free KV memory keeps "
            "prefixes longer, so the bonus is not even the same on both arms.",
        .check =
            "Takes the increase of the cache counters between the before and after snapshots and "
            "divides the prompt tokens served from the cache by the prompt tokens looked up. At most 1% "
            "passes, as does a boot log that shows the cache off (vLLM's non-default args "
            "`enable_prefix_caching: False`, SGLang's `disable_radix_cache: True`, TensorRT-LLM's "
            "`enable_block_reuse=False`) or vLLM's `cache_config_info` saying so. Above 1% warns with the "
            "share and the token counts: real traffic that shares a system prompt is a reason, and the "
            "message says how to measure without the cache. Above 10% fails when the prompts were meant "
            "to be unique: `--unique-prompts`, or a random dataset in the load command `xray` runs "
            "(`--dataset-name random` without `--random-prefix-len`). Absent counters, or a restart "
            "between the snapshots, are Can't tell.",
        .command = "inferlint prefix-cache before.json after.json",
        .shown_by = {"prefix-cache", "report", "xray"},
        .needs = "need before and after readings",
        .examples = {Ex{{"prefix-cache", "vllm-0.29/live/before.snapshot.json", "vllm-0.29/live/after.snapshot.json"},
                        {"[T16] PASS  0 of 2,816 prompt tokens came from the prefix cache (0.0%)"}},
                     Ex{{"prefix-cache", "sglang-0.5/live/before.snapshot.json", "sglang-0.5/live/after.snapshot.json",
                         "--boot-log", "sglang-0.5/live/boot.log"},
                        {"[T16] PASS  prefix caching was off (server_args: disable_radix_cache True); 0 of 2,979 "
                         "prompt tokens came from the cache"}}},
        .measured =
            "No recorded vLLM run was served from the cache: 0 of 2,816 queried prompt tokens on 0.29 "
            "and 0.30 under `vllm bench serve`. Under their own benchmark clients, sending random token "
            "ids, SGLang still served 2.8% of the prompt tokens from its cache (87 of 3,064) and "
            "TensorRT-LLM 3.1% (97 of 3,111): a warning, below the 10% that fails a load meant to be "
            "unique.",
        .verified = "recorded 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "the radix cache is SGLang's prefix cache. sglang:cached_tokens_total counts its hits but "
                  "appears only at the first one; where a snapshot lacks it, the prompt tokens less "
                  "sglang:uncached_prompt_tokens_histogram_sum give the same figure (the two agree on the "
                  "recorded runs). The gauge "
                  "sglang:cache_hit_rate describes recent batches and is not used. --disable-radix-cache turns "
                  "the cache off.",
                  "reuse of KV blocks is TensorRT-LLM's prefix cache. trtllm_prompt_cached_tokens_total is read "
                  "against trtllm_prompt_tokens_total; trtllm_kv_cache_reused_blocks_total also counts a paused "
                  "request taking back its own blocks, so the blocks are used only when the token counter is "
                  "absent. 'kv_cache_config: {enable_block_reuse: false}' in the --config YAML turns it off."},
    };
}

}  // namespace inferlint::catalog_table
