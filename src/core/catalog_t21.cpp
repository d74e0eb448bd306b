// T21, added by this project: the client's streams contradict the server's running gauge.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

Tripwire streams_vs_running() {
    return {
        .id = "T21",
        .key = TripwireId::T21,
        .slug = "streams-vs-running",
        .name = "The client's streams contradict the running gauge",
        .trap = "the server counted requests as running that received no tokens",
        .what =
            "A server's running gauge is its own word for how many requests it ran at once. The load tool's "
            "per-request times (sent, first token, end) say how many were receiving tokens at once. When the "
            "gauge says more, it counted requests that were not producing output: admitted to the batch but "
            "waiting for KV memory, or finished and not yet taken off.",
        .why =
            "32 requests were sent to a TensorRT-LLM server whose cache held about 24; the running gauge said 32, "
            "but at most 24 requests were streaming output at the same moment, and the slowest 5% waited 34 s "
            "for their first token. A concurrency of 32 was reported for a server that ran 24.",
        .check =
            "From the load tool's per-request times (vllm bench serve --save-detailed, which xray asks for; "
            "GuideLLM, AIPerf's profile_export.jsonl, inference-perf's per-request file, inferlint.load/1; a "
            "request's first token and end are its start plus its TTFT and latency where the tool states only "
            "those): the most requests in flight at once and the most between their first token and their end. "
            "Each reading of the running gauge taken during the load, put on the client's clock (an epoch clock: "
            "the reading's wall time; vllm bench serve's perf_counter: its monotonic time), is held against the "
            "streams within the recording's interval of it (at least 0.25 s): a reading that counts more running "
            "is a warning naming it. When the clocks cannot be lined up, the recording's peak against the streaming "
            "peak, each stream counted from that slack before its first token. Can't tell without per-request "
            "times, with times out of order, negative or not numbers (naming the request), or without a recording "
            "of the running gauge. SGLang's bench_serving (even with --output-details) and TensorRT-LLM's "
            "benchmark_serving (even with --save-detailed) write no request's start time: there the message "
            "says so and names the clients that do.",
        .command = "inferlint xray -o RUN --serve 'vllm serve MODEL' -- vllm bench serve ...",
        .shown_by = {"report", "xray"},
        .needs = "need the load tool's per-request times and a recording",
        .examples = {},
        .measured =
            "The simulator with --sim-running-counts-waiting (its running gauge counts requests admitted to the "
            "batch but waiting for memory, as TensorRT-LLM's did), 32 requests on a cache for about 24: the "
            "gauge said 32 and at most 24 streamed; without it, a pass. No recorded file in the project's "
            "evidence has both per-request times and a recording.",
        .verified = "the simulator end to end with the mode on and off; AIPerf's and GuideLLM's per-request times",
        .notes = {"",
                  "SGLang's running gauge is its scheduler's batch, read at each scrape: the check applies as to "
                  "vLLM. Its generation-token counter moves only when a request finishes, which T21 does not read.",
                  "its running gauge moves only when a request completes (1.3.0rc29), so it can lag below the "
                  "client's streams (no warning), and it counts requests the capacity scheduler admitted but "
                  "that wait for KV blocks (a warning). T8 takes the client's streaming peak as its second "
                  "witness here."},
    };
}

}  // namespace inferlint::catalog_table
