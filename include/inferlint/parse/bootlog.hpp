// A server's start-up log -> the facts about the server that actually started (port of
// bootlog.py): KV pool, block size, attention backend, memory split, limits, readiness.
//
// Each fact is found in two steps: a fixed anchor says the line is there, a pattern takes
// the value out. Anchor without a matching pattern puts the line in `unparsed`, which
// tells "not printed" apart from "printed in a format this parser does not know" (what a
// release bump produces). A fact is never filled with a default.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/failures.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::parse {

// A line whose anchor matched but whose value could not be read.
struct Unparsed {
    std::string field;
    int lineno = 0;
    std::string line;  // without the log prefix, at most 300 characters
};

// What the engine says it ran, beyond the Python tool's facts (T17 compares it with what
// was asked). Kept out of to_json and result_block, whose keys are the Python tool's.
struct RealizedFacts {
    // The KV cache's element type as the log states it: vLLM "fp8" ("Using fp8 data type to
    // store kv cache", else its engine config's kv_cache_dtype), SGLang "torch.bfloat16"
    // (the KV allocation line), TensorRT-LLM the KV quantization it set ("auto", "fp8").
    std::optional<std::string> kv_cache_dtype;
    // TensorRT-LLM: "Using checkpoint KV quantization" (the dtype is the checkpoint's).
    bool kv_dtype_from_checkpoint = false;
    // TensorRT-LLM: the KV dtype setting its loader validated ("auto", "fp8"), asked or the
    // default; AskedSettings::kv_cache_dtype where no LLM Args line says (1.1 prints none).
    std::optional<std::string> trt_kv_dtype_setting;
    // vLLM's "Initializing a V1 LLM engine (v...) with config:" line, the keys T17 reads
    // (key -> value text, quotes removed; compilation_mode and cudagraph_mode from
    // compilation_config).
    Json engine_config = Json::object();
    std::optional<long long> max_model_len;           // SGLang context_len, TensorRT-LLM max sequence length
    std::optional<double> gpu_memory_utilization;     // vLLM "Desired GPU memory utilization", TensorRT-LLM fraction
    std::optional<long long> chunked_prefill_tokens;  // SGLang chunked_prefill_size (-1: off)
    // vLLM 0.2x-0.31: "Actual usage is ... and 0.23 GiB for CUDAGraph memory" (the graphs'
    // share of the memory profile; vLLM's "CUDA graph pool memory" line is cudagraph_actual_gib).
    std::optional<double> cudagraph_memory_gib;
    // SGLang: "Capture draft verify CUDA graph end ... mem usage=X GB", the drafter's graphs
    // (first rank, phases added; a difference of free memory, so it can be below zero).
    std::optional<double> drafter_cudagraph_gib;
    // SGLang hybrid linear-attention models: "Linear attention kernel backend: decode=triton".
    std::optional<std::string> linear_attention_backend;
    // vLLM's periodic stats lines ("Engine 000: Avg prompt throughput: ...") and the sum of
    // their "Preemptions: N" (the preemptions since the line before; printed only when N > 0,
    // vllm/v1/metrics/loggers.py LoggingStatLogger.log, from vllm-project/vllm PR #28522,
    // merged 2025-11-12). nullopt: no line counted one, which is not "none" (older releases
    // print no count, and some never do: vllm-project/vllm PR #38452).
    long long stats_lines = 0;
    std::optional<long long> logged_preemptions;
    // TensorRT-LLM: the log has DEBUG lines ("[TRT-LLM] [D]", "[TensorRT-LLM][DEBUG]"), so a
    // pause logged at DEBUG would be in it.
    bool trt_debug_lines = false;
    // vLLM: "V2" where the log says "Using V2 Model Runner"; nullopt where it does not.
    std::optional<std::string> model_runner;
};

// The settings a start asked for that the checks use, typed. Each engine's parser fills
// them from its arguments line (vLLM: non-default args; SGLang: server_args; TensorRT-LLM:
// LLM Args); nullopt where the line does not say, or there is none. The attention backend
// asked for is BootFacts::requested_backend.
struct AskedSettings {
    std::optional<long long>
        max_running;  // vLLM --max-num-seqs, SGLang --max-running-requests, TensorRT-LLM max_batch_size
    std::optional<std::string> kv_cache_dtype;  // as written; vLLM's absent flag is its default "auto"
    std::optional<bool>
        prefix_caching;  // vLLM enable_prefix_caching, SGLang !disable_radix_cache, TensorRT-LLM enable_block_reuse
    std::optional<long long> block_size;  // vLLM --block-size, SGLang --page-size, TensorRT-LLM tokens_per_block
    std::optional<std::string>
        speculative_method;  // vLLM speculative_config's method, SGLang speculative_algorithm, TensorRT-LLM speculative_config
    std::optional<long long> max_num_queued_reqs;  // vLLM 0.29+ admission control
    std::optional<Json> max_num_queued_tokens;     // vLLM, as written
    std::optional<std::string> scheduler_policy;   // TensorRT-LLM capacity_scheduler_policy
};

// Field names and meanings follow the Python BootFacts dataclass one to one; nullopt is
// Python's None (the log did not say).
struct BootFacts {
    std::optional<std::string> engine;  // "vllm", "sglang", "trtllm"; else the one named
    std::optional<std::string> vllm_version;
    std::optional<std::string> engine_version;  // another engine's version, when its log prints it
    std::optional<std::string> server_version;  // reported over HTTP, for logs that do not print it
    std::optional<Json> non_default_args;       // vLLM: a dict
    std::optional<Json> server_args;            // SGLang: every argument; TensorRT-LLM: LLM Args
    std::optional<long long> page_size;         // SGLang/TensorRT-LLM KV allocation unit, tokens
    // The most requests the server runs at once after its own adjustments, and why it is
    // lower than asked (SGLang: "mamba state cache").
    std::optional<long long> running_cap;
    std::optional<std::string> running_cap_reason;
    std::optional<long long> requested_running;
    std::optional<std::string> requested_backend;
    std::vector<std::string> selected_backends;  // target model
    std::vector<std::string> drafter_backends;   // speculative drafter
    std::vector<std::string> candidate_backends;
    std::optional<long long> attention_block_size;
    std::optional<double> mamba_page_padding_pct;
    std::optional<long long> kv_pool_tokens;
    std::optional<double> max_concurrency;
    std::optional<long long> max_concurrency_request_len;
    std::optional<double> available_kv_cache_gib;
    std::optional<double> model_load_gib;
    std::optional<double> model_load_s;
    std::optional<bool> cudagraphs;
    std::optional<double> cudagraph_estimated_gib;
    std::optional<double> cudagraph_actual_gib;
    std::optional<std::pair<std::string, std::string>> cudagraph_mode_downgrade;  // (from, to)
    std::optional<double> consumed_gib;  // weights + non-torch memory, as vLLM counts it
    std::optional<double> peak_activation_gib;
    std::optional<double> compile_s;     // torch.compile, all models together
    std::optional<bool> compiled_fresh;  // true: from scratch; false: loaded a cached graph
    // TensorRT-LLM requests paused for recompute; nullopt when the log has no INFO lines or
    // covers no served request, so could not have recorded them.
    std::optional<long long> pauses;
    std::optional<long long> served_in_log;  // requests answered with HTTP 200 in the log
    std::optional<bool> speculative;
    bool ready = false;
    std::optional<long long> ready_lineno;
    std::map<std::string, std::vector<long long>> processes;  // "EngineCore" -> pids (sorted)
    std::vector<Unparsed> unparsed;
    // field -> every distinct value seen when a log holds more than one (two boots in one
    // file). The last value wins; the conflict stays visible. Values as Json (tuples: arrays).
    std::vector<std::pair<std::string, std::vector<Json>>> conflicts;
    long long lines = 0;
    RealizedFacts realized;  // beyond the Python tool (T17); not in to_json
    AskedSettings asked;     // typed from the arguments line; not in to_json

    // The engine's version: from the log (vLLM, TensorRT-LLM) or from the server.
    std::optional<std::string> version() const;
    // The arguments that identify a start's configuration, for comparing starts: vLLM's
    // non-default args, or SGLang's server args less the ones drawn afresh every start.
    std::optional<Json> config_args() const;
    // The `boot` block of an rv.result/1 document.
    Json result_block() const;
};

// Every field, keyed as Python's dataclasses.asdict writes them.
Json to_json(const BootFacts& facts);

// The facts in a boot log. `named`: the engine to assume when the log does not say.
BootFacts parse_boot_log(std::string_view text, const Engine* named);

// What one pass over a log file finds.
struct BootLogScan {
    const Engine* found = nullptr;   // the engine the log itself names, if any
    BootFacts facts;                 // as parse_boot_log reads them
    std::optional<Failure> failure;  // as classify_failure names it
};

// Reads a log file in pieces and walks it once for its facts and its failure. Memory is
// bounded by the longest line and the facts kept, not by the log's length. `accept` is
// asked once the head of the log has said which engine wrote it; false stops the walk and
// gives nullopt (another engine's log). `each_line`, when given, sees every line as read
// (prefixes and colour codes still on) with its number, as the facts count lines. Throws
// InputError naming the path for a missing file, a folder, an empty file, binary junk or
// a read error.
std::optional<BootLogScan> scan_boot_log_file(const std::filesystem::path& path, const Engine* named,
                                              const std::function<bool(const Engine*)>& accept = {},
                                              const std::function<void(std::string_view, long long)>& each_line = {});

// The facts of a log file (scan_boot_log_file without a question).
BootFacts parse_boot_log_file(const std::filesystem::path& path, const Engine* named);

// A note when the log comes from a release series inferlint was not tested on.
std::optional<std::string> untested_version(const BootFacts& facts);

// Short distinct names for logs: the file name, with parent folders added until unique
// ("run1/boot.log", "run2/boot.log").
std::vector<std::string> log_labels(const std::vector<std::filesystem::path>& paths);

// The text without ANSI colour codes (cheap when there are none).
std::string strip_ansi(std::string_view line);
// "(EngineCore pid=3475) ERROR 09-05 23:33:11 [core.py:1348] msg" -> "msg".
std::string_view strip_log_prefix(std::string_view line);

}  // namespace inferlint::parse
