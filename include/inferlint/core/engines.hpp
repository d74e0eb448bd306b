// The serving engines inferlint knows, their metric names, and how to tell which one
// produced a file (port of engines.py and metricnames.py). Everything engine-specific
// is asked of this table, so checks are written once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint {

enum class EngineId { vllm, sglang, trtllm };

// Every series inferlint reads, per engine. An empty string: the engine has no such series.
struct MetricNames {
    // gauges, recorded during the run
    std::string running;
    std::string waiting;
    std::string kv_usage;  // fraction of the KV pool in use, 0..1
    // counters, compared between the before and after snapshots
    std::string preemptions;  // empty: the engine counts no preemptions (TensorRT-LLM)
    std::string generation_tokens;
    std::string prompt_tokens;
    std::string request_success;
    // histograms, read as _sum / _count
    std::string e2e_latency;
    std::string first_token;
    std::string queue_time;
    // an *_info series whose labels carry the cache configuration
    std::string cache_info;
    // the label of request_success that says why a request finished
    std::string finished_reason_label;
    // gauges that describe the KV pool itself
    std::string pool_tokens;
    std::string page_size;
    // a gauge of requests paused for recompute, for engines that count none
    std::string paused;
    // speculative decoding: counters of draft proposals (one per request per step) and of
    // the draft tokens accepted, or a gauge of the mean tokens a step emits
    std::string spec_drafts;
    std::string spec_accepted_tokens;
    std::string spec_accept_length;
    // counters of the prefix cache (T16), in prompt tokens: the tokens served from the cache
    // and the tokens looked up in it (empty: the prompt-token counter is the denominator)
    std::string prefix_cache_hits;
    std::string prefix_cache_queries;
    // a histogram of the prompt tokens each request computed (SGLang), read as _sum
    std::string uncached_prompt_tokens;
    // the KV blocks found in the cache and not found (TensorRT-LLM)
    std::string cache_reused_blocks;
    std::string cache_missed_blocks;
};

struct Engine {
    EngineId id;
    std::string key;     // "vllm", "sglang", "trtllm"
    std::string name;    // "vLLM", "SGLang", "TensorRT-LLM"
    std::string prefix;  // what its metric names start with
    MetricNames metrics;
    std::vector<std::string> tested;  // release series checked live on a GPU
    std::string preemption;           // the engine's word for evicting a running request
    std::string serve;                // how its server is usually started
    // counter -> a series exported from the start, for counters written only once they count
    std::vector<std::pair<std::string, std::string>> witnesses;
    bool logs_preemptions = false;
    bool gauges_lag = false;  // gauges updated only when a request completes
    std::string metrics_hint;
    bool tokens_at_finish = false;  // generated-token counter moves only at completion
    int default_port = 8000;
    std::string gauges_hint;
    std::string no_prefix_cache;  // how to start the server without a prefix cache

    // The series that witnesses `counter` (empty if none).
    std::string witness(std::string_view counter) const;
};

inline constexpr const char* kEngineEnvVar = "INFERLINT_ENGINE";

const Engine& vllm();
const Engine& sglang();
const Engine& trtllm();
const std::vector<const Engine*>& all_engines();

const Engine& engine(EngineId id);
// The engine with this key; vLLM for an unknown or empty key.
const Engine& by_key(std::string_view key);
// The engine a user named: key or name, any case ("trtllm", "TensorRT-LLM").
const Engine* parse_key(std::string_view value);
// The engine whose metric prefix most names carry; nullptr when none does.
const Engine* named_by(const std::vector<std::string>& names);
// The engine a server command starts (`vllm serve`, `sglang serve`, `trtllm-serve`,
// `python -m vllm...`), also behind a path or `env X=1`; nullptr if none.
const Engine* from_command(const std::vector<std::string>& argv);
const Engine* from_command(std::string_view shell_command);
// The engine that wrote a boot log, from lines only it prints; nullptr if unknown.
const Engine* from_log(std::string_view text);

// Splits a command line as POSIX shlex does; nullopt for unbalanced quotes.
std::optional<std::vector<std::string>> shell_split(std::string_view cmd);

}  // namespace inferlint
