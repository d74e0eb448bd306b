// T18, added by this project: a load tool that counts stream chunks as tokens.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

// Statements about vLLM were read from vLLM 0.28's counters (fixtures vllm-0.28/metrics);
// about SGLang from 0.5.20's /metrics.
Tripwire chunks_not_tokens() {
    using Ex = TripwireExample;
    return {
        .id = "T18",
        .key = TripwireId::T18,
        .slug = "chunks-not-tokens",
        .name = "The load tool counted stream chunks, not tokens",
        .trap = "under speculative decoding one stream chunk carries several tokens",
        .what =
            "A streaming load tool that counts one token per server-sent chunk is right only while "
            "every step emits one token. Under speculative decoding a step emits one token plus the "
            "draft tokens it accepted, and the server sends them in one chunk. vLLM counts them in "
            "vllm:spec_decode_num_drafts_total and vllm:spec_decode_num_accepted_tokens_total, "
            "exported only when it runs with --speculative-config: on a recorded vLLM 0.28 run 4,808 "
            "drafts accepted 7,457 tokens, 2.55 tokens per step.",
        .why =
            "The tool's output-token count, and every throughput and time-per-token figure made from "
            "it, comes out short by the mean tokens per step, on the speculative arm only. A harness "
            "that did this saw output fall from 698 to 362 tok/s on the accelerated arm, and reported "
            "a win as a loss.",
        .check =
            "Once the load tool's completed requests agree with the server's finished ones (T15), "
            "compares its output tokens with the server's generated tokens and with the mean tokens "
            "per step the speculative-decoding counters give (`1 + accepted / drafts`). A client "
            "short of the server by that factor, within 10%, counted chunks. Counts that agree pass; "
            "without the result file, a counter or speculative-decoding counters to explain a "
            "difference, or across a restart, it is Can't tell. T15 then names T18 as the cause of "
            "its token difference.",
        .command = "inferlint client-counts before.json after.json --bench-result bench.json",
        .shown_by = {"client-counts", "report", "xray"},
        .needs = "need the load tool's result file",
        .examples = {Ex{{"client-counts", "vllm-0.30/live/before.snapshot.json", "vllm-0.30/live/after.snapshot.json",
                         "--bench-result", "vllm-0.30/live/bench.json"},
                        {"[T18] PASS  the load tool's 32,000 output tokens agree with the server's 32,000"},
                        Ex::Output::excerpt}},
        .measured =
            "vLLM 0.28 with a two-token draft generated 12,288 tokens for 48 requests in 4,808 "
            "drafts with 7,457 accepted: 2.55 tokens per step, so a client counting chunks would "
            "have counted about 4,820 tokens. Without "
            "speculative decoding every recorded client's count matched the server's exactly.",
        .verified = "recorded vLLM 0.28 counters; SGLang's gauge read on 0.5.20 (no speculative run)",
        .notes = {"",
                  "exports no counters of drafts, only the gauge sglang:spec_accept_length (accepted drafts "
                  "plus the bonus token per forward, 0 without speculative decoding), read from the after "
                  "snapshot.",
                  "1.3.0rc29 exports no speculative-decoding counter, so a difference in tokens is Can't "
                  "tell there; newer releases export trtllm_spec_decode_acceptance_length, which T18 reads "
                  "as the tokens per step."},
    };
}

}  // namespace inferlint::catalog_table
