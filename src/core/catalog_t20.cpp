// T20, added by this project: failed requests left out of the load tool's figures.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

Tripwire failed_requests() {
    return {
        .id = "T20",
        .key = TripwireId::T20,
        .slug = "failed-requests",
        .name = "Failed requests left out of the figures",
        .trap = "requests failed and the figures cover only the survivors",
        .what =
            "Load tools compute latency and throughput over the requests that succeeded. A request that "
            "failed, was cancelled or never finished is in none of the figures, and vllm bench serve can exit "
            "0 with every request failed.",
        .why =
            "The requests that fail are often the slowest (timeouts, aborts under memory pressure), so "
            "leaving them out makes latency look better and hides that the server could not carry the "
            "load (InferenceX #357, guidellm #444, pytorch PR #172616).",
        .check =
            "Reads the failed, errored, cancelled and incomplete requests the load tool's result states "
            "(for vLLM's benchmark_serving without a failed field: num_prompts minus completed), and the "
            "requests the server itself finished as aborted or errored between the snapshots. Fails with "
            "the count, the share and which figures cover only the survivors when either side says "
            "requests failed; `--max-failed-share PCT` accepts a small share (WARN at or under it). "
            "Passes when every side present says none failed. Can't tell without either side, or with "
            "counts that contradict themselves (negative, more failed than sent, none at all). vLLM's "
            "counter is vllm:request_success_total{finished_reason=\"abort\"} (and \"error\" where the release "
            "has it), registered at start-up, so a server without the series is read as not saying. The HTTP "
            "error answers (4xx, 5xx) the server gave on its generation handlers between the snapshots are a "
            "second server-side witness where the engine exports them (vLLM: http_requests_total{handler,method,"
            "status}, the status grouped as 4xx and 5xx); an abort and its 500 can be one request, "
            "so the server's count is the larger of the two, never their sum, and errors on other handlers "
            "(/tokenize) are shown, not counted. A request refused before the engine is in that HTTP counter "
            "where the engine exports one, else only in the load tool's count.",
        .command = "inferlint report RUN --bench-result RESULT [--max-failed-share PCT]",
        .shown_by = {"client-counts", "report", "xray"},
        .needs = "need the load tool's result or snapshots before and after",
        .examples = {},
        .measured =
            "AIPerf's gpt-oss-20b run (../shared/loadtools/aiperf/examples-artifacts-run1): 11 of 100 "
            "requests cancelled, a failure; vllm bench serve on A100 (llm-d 2p1d) completed 240 of 250, a "
            "failure; its 250-of-250 repeat passes. The simulator with --sim-abort-every 4: a failure "
            "(the client's failed count, the server's aborts and its 2 /v1/completions 5xx answers); without it, a "
            "pass.",
        .verified = "real load-tool files; the simulator end to end with the trap on and off",
        .notes = {"",
                  "sglang:num_aborted_requests_total, written from the first abort on; read as 0 before it only "
                  "where num_requests_total shows the collector was live. HTTP answers: sglang:http_responses_total "
                  "{endpoint,status_code,method}, with --enable-metrics.",
                  "1.3.0rc29 exports no counter of failed or cancelled requests: only the load tool's count. "
                  "Newer releases export trtllm_request_error_total, read when present. No HTTP answer counter."},
    };
}

}  // namespace inferlint::catalog_table
