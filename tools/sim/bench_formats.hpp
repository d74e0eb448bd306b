// The simulator's bench client writing its result as other load tools do
// (--sim-result-format), so that every reader inferlint has is watched end to end.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sim {

struct RequestSummary {
    bool ok = false;
    double start_s = 0, ttft_s = 0, latency_s = 0;  // start on the client's monotonic clock
    long long output_tokens = 0, chunks = 0;
    std::vector<double> itl_s;
    std::string error;
};

struct RunSummary {
    std::string model;
    int num_prompts = 0, concurrency = 0, input_len = 0;
    int completed = 0, failed = 0;
    long long input_tokens = 0, output_tokens = 0, chunks = 0;
    double duration_s = 0;
    bool count_chunks = false;  // the client counted one token per chunk (the trap)
    std::vector<double> ttft_ms, tpot_ms, itl_ms, e2e_ms;
    std::vector<RequestSummary> requests;
};

// The formats: vllm (the default, written by bench.cpp), guidellm, aiperf, genai-perf,
// inference-perf, llmperf, inferlint-load. nullopt for a name it does not know.
std::optional<nlohmann::ordered_json> result_as(const std::string& format, const RunSummary& run);

// The file name each tool gives its result, for when --result-filename names none.
std::string default_result_name(const std::string& format);

}  // namespace sim
