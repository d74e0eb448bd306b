// Any load tool's own account of a run, in one typed shape (issue 28).
//
// Each reader (src/parse/load_<tool>.cpp) fills a LoadResult from what one tool wrote; the
// dispatcher tells the tool by the file's content, never by its name alone. A figure the
// file does not state is nullopt, never 0: counting records or multiplying a rate by a
// duration would be a new computation, and this layer reads, it does not estimate.
//
// One unit and one definition per latency, whatever the tool called it (docs/load-tools.md
// has the table):
//   ttft_ms      request sent -> first token (or first chunk) received.
//   tpot_ms      (end - first token) / (output tokens - 1): the decode time per token after
//                the first. vLLM's TPOT, AIPerf's and genai-perf's inter_token_latency,
//                GuideLLM's inter_token_latency_ms, inference-perf's time_per_output_token.
//   itl_ms       the gap between successive stream chunks: vLLM's ITL, AIPerf's
//                inter_chunk_latency, inference-perf's inter_token_latency.
//   e2e_ms       request sent -> last byte received.
//   norm_tpot_ms end-to-end latency / output tokens, TTFT included: GuideLLM's
//                time_per_output_token_ms, LLMPerf's inter_token_latency_s,
//                inference-perf's normalized_time_per_output_token. Never mixed with tpot.
// inference-perf and LLMPerf write seconds; they are converted to milliseconds here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint {

// How the output tokens the file states were counted.
enum class TokenCounting {
    unknown,           // the file does not say
    server_usage,      // the server's `usage` figures, as returned to the client
    client_tokenizer,  // the client re-tokenized the text it received
    stream_chunks,     // one per stream chunk: too few under speculative decoding (T18)
};
std::string_view to_string(TokenCounting c);
std::optional<TokenCounting> token_counting_from(std::string_view name);

// Whether the prompts were meant to be unique or to share a prefix (T16).
enum class PromptSharing { unknown, unique, shared_prefix };
std::string_view to_string(PromptSharing p);

// Latency figures of one metric, in milliseconds.
struct LatencyStats {
    std::optional<double> mean;
    std::optional<double> p50;
    std::optional<double> p90;
    std::optional<double> p95;
    std::optional<double> p99;
    std::optional<double> max;
    bool empty() const { return !mean && !p50 && !p90 && !p95 && !p99 && !max; }
};

// One request as the tool recorded it. Times are seconds on the tool's own clock (an epoch
// or a monotonic origin: only differences mean anything).
struct RequestRecord {
    std::optional<double> start_s;
    std::optional<double> first_token_s;
    std::optional<double> end_s;
    std::optional<double> ttft_ms;  // where the tool states it rather than the times
    std::optional<double> e2e_ms;
    std::optional<long long> input_tokens;
    std::optional<long long> output_tokens;
    std::optional<long long> stream_chunks;
    std::optional<std::string> error;  // nullopt: completed
};

struct LoadResult {
    std::string path;  // the file or folder it was read from, as given
    std::string tool;  // "guidellm", "aiperf", "genai-perf", "inference-perf", "llmperf",
                       // "vllm bench serve", "sglang bench_serving",
                       // "tensorrt_llm benchmark_serving", "inferlint.load/1"
    std::optional<std::string> tool_version;

    std::optional<long long> completed;
    std::optional<long long> failed;
    std::optional<long long> cancelled;
    std::optional<long long> incomplete;
    std::vector<std::string> failure_reasons;  // as the file states them: "what (n)"

    std::optional<long long> input_tokens;
    std::optional<long long> output_tokens;
    TokenCounting output_counting = TokenCounting::unknown;
    // The same completed requests' output as the server's usage reported it, where the file
    // states it beside a client count (AIPerf's total_usage_completion_tokens).
    std::optional<long long> server_output_tokens;
    // The stream chunks the completed requests' output arrived in, where the file states
    // them (GuideLLM's iterations, vLLM's per-request ITL lists + 1).
    std::optional<long long> stream_chunks;
    std::optional<long long> warmup_excluded;  // requests sent but left out as warm-up
    // The mean tokens one step of speculative decoding emitted, as the client read it from
    // the server (vLLM's spec_decode_acceptance_length).
    std::optional<double> spec_accept_length;

    std::optional<double> concurrency;   // asked for
    std::optional<double> request_rate;  // asked for, requests/s (infinity: all at once)
    std::optional<std::string> dataset;
    PromptSharing prompts = PromptSharing::unknown;
    std::optional<std::string> endpoint;  // "/v1/completions", "openai-chat", ... as written
    std::optional<double> duration_s;
    std::optional<double> output_throughput;  // output tokens/s, as the file states it

    LatencyStats ttft_ms, tpot_ms, itl_ms, e2e_ms, norm_tpot_ms;
    // Where a tool's metric name means something else than ours, said once (for `compare`).
    std::vector<std::string> metric_notes;

    std::vector<RequestRecord> requests;  // empty when the file has none
    // The parts of a file or folder that holds several benchmarks (GuideLLM's sweep,
    // inference-perf's stages); the figures above are then the whole run's where the file
    // states or sums them, nullopt where not (a latency of several parts is not summed).
    std::vector<LoadResult> stages;

    bool has_counts() const { return completed.has_value() && output_tokens.has_value(); }
};

// Reads text written by any load tool the project knows, told by content. `source` names
// it in errors. Throws InputError (one line naming `source` and what the text looked like)
// for binary or truncated text, another kind of file, zero parts, lists of different
// lengths, negative or NaN latencies, or a unit no reader knows.
LoadResult parse_load_result(std::string_view text, const std::string& source);

// A file, or a folder (inference-perf's report folder, AIPerf's artifact folder).
LoadResult load_load_result(const std::filesystem::path& path);

}  // namespace inferlint
