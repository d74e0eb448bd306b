// A load tool's own account of a run, from the result file it saved (port of
// benchresult.py).
//
// `vllm bench serve --save-result` and TensorRT-LLM's `benchmark_serving --save-result`
// write one JSON document per run; SGLang's `python -m sglang.benchmark.serving
// --output-file` appends one JSON line per run, and the last line is the latest run. All
// three use vLLM's field names. A field the file does not have is nullopt, never 0.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/load_result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace inferlint {

struct BenchResult {
    std::string path;  // the file it was read from, as given
    std::optional<long long> completed;
    std::optional<long long> failed;
    std::optional<long long> input_tokens;   // total_input_tokens
    std::optional<long long> output_tokens;  // total_output_tokens
    std::optional<double> duration_s;
    std::optional<double> output_throughput;  // output tokens/s over the whole run
    std::optional<long long> max_concurrency;
    std::optional<long long> num_prompts;
    std::optional<std::string> backend;
    // latencies the client measured
    std::optional<double> mean_ttft_ms;
    std::optional<double> median_ttft_ms;
    std::optional<double> p99_ttft_ms;
    std::optional<double> mean_tpot_ms;
    std::optional<double> median_tpot_ms;
    std::optional<double> p99_tpot_ms;
    std::optional<double> request_throughput;  // completed requests/s over the whole run
    // vLLM's client: "openai" (/v1/completions), "openai-chat" (/v1/chat/completions), ...
    std::optional<std::string> endpoint_type;
    // The load tool that wrote the file, told by the fields only it writes: "vllm bench
    // serve", "sglang bench_serving", "tensorrt_llm benchmark_serving"; nullopt when none tells.
    std::optional<std::string> client;

    // Every figure the file states, in one shape for every tool (load_result.hpp); set by
    // every reader, the vLLM family's included.
    std::optional<LoadResult> load;

    // Both counts T15 needs are present.
    bool has_counts() const { return completed.has_value() && output_tokens.has_value(); }
};

// The fields of one run's JSON object. Counts written as floats are truncated as
// Python's int() does. Throws InputError naming `path` when a field has the wrong type
// (a string, a bool, an object, a list, or a count that is not finite); null is absent.
BenchResult bench_result_from_json(const Json& doc, const std::string& path);

// One JSON document, or JSON lines of which the last is taken. NaN and +-Infinity, which
// Python's json writes (SGLang's `"request_rate": Infinity`), are accepted. Throws
// InputError naming `source` (and the line, for JSON lines) when the text is binary, not
// JSON, truncated, not an object, or an inferlint file, or has none of the fields a load
// tool writes.
BenchResult parse_bench_result(std::string_view text, const std::string& source);

// The figures of any tool's LoadResult under BenchResult's names (request_throughput is
// completed / duration where both are stated; client is the tool).
BenchResult bench_from_load(const LoadResult& load);

// Reads and parses the file; InputError also for a missing, empty or unreadable file. A
// file in vLLM's format is read as always; any other tool's file or folder (GuideLLM,
// AIPerf, genai-perf, inference-perf, LLMPerf, inferlint.load/1) through
// load_load_result, and a text no reader takes keeps vLLM's reader's message.
BenchResult load_bench_result(const std::filesystem::path& path);

}  // namespace inferlint
