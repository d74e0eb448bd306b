// `vllm serve MODEL ...`: the simulated server (see README.md for every option).
#pragma once

#include "args.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

struct ServeConfig {
    std::string model;
    std::string served_name;
    std::string host = "127.0.0.1";
    int port = 8000;  // 0: any free port (the boot log says which)
    int max_num_seqs = 256;
    int max_model_len = 16384;
    int num_gpu_blocks = 2022;
    int block_size = 16;
    int max_queued = 0;  // 0: no limit beyond the simulator's slots
    double gpu_memory_utilization = 0.9;
    bool enforce_eager = false;
    bool prefix_caching = true;                 // vLLM 0.30's default; --no-enable-prefix-caching turns it off
    std::string kv_cache_dtype_asked = "auto";  // --kv-cache-dtype
    std::string kv_cache_dtype = "auto";        // what the engine stores: the asked, or the checkpoint's fp8
    // --speculative-config '{"method": "ngram", "num_speculative_tokens": 3}'
    std::string spec_method;  // "": off
    std::string spec_model;   // the drafter, as vLLM's SpeculativeConfig names it
    int spec_tokens = 0;
    // A local model folder: what its config.json says, or why it could not be read.
    bool model_is_folder = false;
    std::string model_error;  // the exception line transformers would raise; "": none
    std::string architecture = "Qwen3ForCausalLM";
    std::string quantization = "None";  // its quantization_config's quant_method
    bool checkpoint_kv_fp8 = false;     // its quantization_config has an 8-bit float kv_cache_scheme
    // Simulation: time runs `time_scale` times faster than the model's own figures.
    double time_scale = 1.0;
    double min_step_ms = 20.0;
    double tokens_per_s = 1400.0;
    double prefill_tokens_per_s = 20000.0;
    double boot_s = 1.0;
    double spec_accept = 0.6;   // --sim-spec-accept-rate: each draft token's chance, given the ones before it
    double noise_pct = 0;       // --sim-noise: this start's decode speed drawn within +-PCT%
    std::uint64_t seed = 0;     // --sim-seed, else drawn afresh each start
    double speed_factor = 1.0;  // the draw
    // Failure modes.
    std::string fail_boot;       // "", "oom", "kv"
    int crash_on_request = 0;    // the engine dies when this completion arrives
    double die_after_s = 0;      // the whole server is killed this long after it is ready
    int die_after_scrapes = 0;   // ... or once it has answered this many /metrics requests
    double metrics_delay_s = 0;  // /metrics answers this late
    int abort_every = 0;         // every K-th streamed completion is aborted (T20's trap)
    // --api-key: the /v1 endpoints answer 401 without "Authorization: Bearer KEY" (as vLLM's
    // AuthenticationMiddleware; /metrics and /health stay open).
    std::string api_key;
    double dead_linger_s = 1.0;   // after the engine dies, the API server exits this much later
    double orphan_linger_s = 60;  // an EngineCore whose parent was killed lives this long
    // --sim-running-counts-waiting: TensorRT-LLM-like. A request is admitted only when the
    // blocks for its whole length are free (no preemption, as its GUARANTEED_NO_EVICT
    // policy), and the running gauge counts the requests the batch took though they wait
    // for those blocks (up to --max-num-seqs), as TensorRT-LLM 1.x's did.
    bool running_counts_waiting = false;
    double log_interval_s = 10;  // the "Engine 000: Avg prompt throughput" line
    // --sim-version 0.30|0.31|0.33: the release the log, /version and /metrics speak.
    // 0.31 differs from 0.30 in its boot lines' source places (`sites`) only; 0.33 adds
    // "Preemptions: N" to the stats line when the interval preempted
    // (vllm/v1/metrics/loggers.py, vllm-project/vllm PR #28522).
    std::string version = "0.30.0";
    bool stats_preemptions = false;
    // Where vLLM's boot lines say they come from ("[kv_cache_utils.py:2395]"): 0.30's as its
    // recorded logs print them; 0.31's as a real 0.31.0 log prints them (../shared/field/
    // vllm-0.31.0-a100-llama31-8b-ok-fragment.log). The texts are the same in both; a line
    // no 0.31 log shows keeps 0.30's place.
    struct Sites {
        const char* load_weights = "default_loader.py:430";
        const char* model_loading = "model_runner.py:428";
        const char* available_kv = "gpu_worker.py:640";
        const char* kv_cache_size = "kv_cache_utils.py:2395";
        const char* free_memory = "gpu_worker.py:888";
    } sites;
    // "non-default args: {...}" as vLLM prints it.
    std::string non_default_args;
};

ServeConfig serve_config(const Args& args);

// Reads MODEL/config.json when MODEL is a local folder (model_is_folder and the fields
// after it); a folder without one, or with one that is not JSON, sets model_error.
void read_model_folder(ServeConfig& cfg);

// Bytes of KV cache per token for the simulated model (a Qwen3-8B: 144 KiB at 16 bits).
double kv_bytes_per_token(const ServeConfig& cfg);

// Runs the server until SIGTERM/SIGINT (exit 0) or a simulated failure (exit 1).
// argv_area/argv_bytes: the process's argv memory, which the EngineCore child rewrites
// to carry its name.
int serve_main(const ServeConfig& cfg, char* argv_area, std::size_t argv_bytes);

}  // namespace sim
