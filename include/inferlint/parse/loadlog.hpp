// What a benchmark client printed while it ran (xray saves it as load.log): the requests
// it sent but left out of its result file, which T15 must allow for (port of
// xray.untimed_requests).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace inferlint {

// Requests the client sent that its result file does not count:
//  - 1 for "Initial test run completed." (vllm bench serve and TensorRT-LLM's
//    benchmark_serving send one test request first; whether vLLM's does depends on
//    --ready-check-timeout-sec, whose default has changed between releases);
//  - N from "Warming up with N requests" (vllm bench serve --num-warmups);
//  - N from "Warmup completed with N sequences" (SGLang's client, --warmup-requests, 1 by
//    default).
// The first occurrence of each counts. 0 when the output says none of these.
long long untimed_requests(std::string_view load_output);

// The same from a saved load.log. A missing file or a folder is an InputError; an empty
// log says 0. The log is another program's console output (progress bars included), so
// bytes that are not text are not an error.
long long untimed_requests_in(const std::filesystem::path& load_log);

// Why the load's prompts were meant to be unique (T16), from the arguments `vllm bench
// serve` prints first ("Namespace(... dataset_name='random', ... random_prefix_len=0, ...)"):
// a random dataset with no shared prefix (random_prefix_len absent or 0) says
// "dataset_name='random' in load.log". nullopt for another dataset, a shared prefix, or no
// Namespace line. The same rule xray applies to the load's command line.
std::optional<std::string> unique_prompts_from_namespace(std::string_view load_output);

// The same from a saved load.log; nullopt when the file cannot be read.
std::optional<std::string> unique_prompts_in(const std::filesystem::path& load_log);

}  // namespace inferlint
