#include "log.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <vector>
#include <unistd.h>

namespace sim {
namespace {


std::string stamp() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    return fmt::format("{:%m-%d %H:%M:%S}", tm);
}

void write_all(const std::string& text) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        ssize_t n = ::write(STDOUT_FILENO, p, left);
        if (n <= 0) return;  // stdout closed: the log is lost, the server goes on
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

void traceback(const char* proc, int pid, const char* where, const std::vector<std::string>& lines) {
    for (const auto& l : lines) log(proc, pid, "ERROR", where, l);
}

const std::vector<std::string> kEngineFrames = {
    "Traceback (most recent call last):",
    "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py\", line 1328, in run_engine_core",
    "    engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
    "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py\", line 145, in __init__",
    "    kv_cache_config = self._initialize_kv_caches(vllm_config)",
};

std::string thousands(long long v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// vLLM's SpeculativeConfig repr in the engine's config line (recorded: vllm-0.28
// boot_spec_backend_override.log, "SpeculativeConfig(method='mtp', model='...', num_spec_tokens=3)").
std::string speculative_text(const ServeConfig& cfg) {
    if (cfg.spec_method.empty()) return "None";
    return fmt::format("SpeculativeConfig(method='{}', model='{}', num_spec_tokens={})", cfg.spec_method,
                       cfg.spec_model, cfg.spec_tokens);
}

}  // namespace

void log(const char* proc, int pid, const char* level, const char* where, const std::string& msg) {
    write_all(fmt::format("({} pid={}) {} {} [{}] {}\n", proc, pid, level, stamp(), where, msg));
}

void log_plain(const char* proc, int pid, const std::string& msg) {
    write_all(fmt::format("({} pid={}) {}\n", proc, pid, msg));
}

void log_api_start(const ServeConfig& cfg, int pid) {
    const char* w = "api_utils.py:347";
    log("APIServer", pid, "INFO", w, "");
    log("APIServer", pid, "INFO", w, "       \u2588     \u2588     \u2588\u2584   \u2584\u2588");
    log("APIServer", pid, "INFO", w,
        fmt::format(" \u2584\u2584 \u2584\u2588 \u2588     \u2588     \u2588 \u2580\u2584\u2580 \u2588  version {}",
                    cfg.version));
    log("APIServer", pid, "INFO", w,
        fmt::format("  \u2588\u2584\u2588\u2580 \u2588     \u2588     \u2588     \u2588  model   {}", cfg.model));
    log("APIServer", pid, "INFO", w,
        "   \u2580\u2580  \u2580\u2580\u2580\u2580\u2580 \u2580\u2580\u2580\u2580\u2580 \u2580     \u2580");
    log("APIServer", pid, "INFO", w, "");
    log("APIServer", pid, "INFO", "api_utils.py:286", "non-default args: " + cfg.non_default_args);
}

void log_api_config(const ServeConfig& cfg, int pid) {
    log("APIServer", pid, "INFO", "model.py:692", "Resolved architecture: " + cfg.architecture);
    log("APIServer", pid, "INFO", "model.py:2030", fmt::format("Using max model len {}", cfg.max_model_len));
    // vLLM 0.28's CacheConfig logs this for any fp8 cache dtype, asked or the checkpoint's
    // (recorded: vllm-0.28/boot_fp8_triton.log).
    if (cfg.kv_cache_dtype.rfind("fp8", 0) == 0)
        log("APIServer", pid, "INFO", "cache.py:282",
            fmt::format("Using {} data type to store kv cache. It reduces the GPU memory footprint and boosts the "
                        "performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
                        cfg.kv_cache_dtype));
}

void log_api_config_failure(const ServeConfig& cfg, int pid) {
    const bool missing = cfg.model_error.find("does not appear to have") != std::string::npos;
    std::vector<std::string> lines = {
        "Traceback (most recent call last):",
        "  File \"/opt/venv/bin/vllm\", line 10, in <module>",
        "    sys.exit(main())",
        "  File \"/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py\", line 1420, in create_model_config",
        "    return ModelConfig(",
        "  File \"/opt/venv/lib/python3.12/site-packages/vllm/transformers_utils/config.py\", line 611, in get_config",
        "    config_dict, _ = PretrainedConfig.get_config_dict(",
        "  File \"/opt/venv/lib/python3.12/site-packages/transformers/configuration_utils.py\", line 662, in "
        "get_config_dict",
        "    config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)",
        missing ? "  File \"/opt/venv/lib/python3.12/site-packages/transformers/utils/hub.py\", line 479, in "
                  "cached_files"
                : "  File \"/opt/venv/lib/python3.12/site-packages/transformers/configuration_utils.py\", line 748, "
                  "in _get_config_dict",
        missing ? "    raise OSError("
                : "    raise OSError(f\"It looks like the config file at '{resolved_config_file}' "
                  "is not a valid JSON file.\")",
        cfg.model_error};
    for (const auto& l : lines) log_plain("APIServer", pid, l);
}

void log_engine_boot(const ServeConfig& cfg, int pid, double kv_gib) {
    const char* E = "EngineCore";
    log(E, pid, "INFO", "core.py:123",
        fmt::format("Initializing a V1 LLM engine (v{}) with config: model='{}', speculative_config={}, "
                    "tokenizer='{}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
                    "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len={}, download_dir=None, "
                    "load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, "
                    "quantization={}, enforce_eager={}, kv_cache_dtype={}, device_config=cuda, seed=0, "
                    "served_model_name={}, enable_prefix_caching={}, enable_chunked_prefill=True",
                    cfg.version, cfg.model, speculative_text(cfg), cfg.model, cfg.max_model_len, cfg.quantization,
                    cfg.enforce_eager ? "True" : "False", cfg.kv_cache_dtype, cfg.served_name,
                    cfg.prefix_caching ? "True" : "False"));
    log(E, pid, "INFO", "parallel_state.py:1827",
        "world_size=1 rank=0 local_rank=0 distributed_init_method=file:///tmp/vllm_dist_sim backend=nccl");
    log(E, pid, "INFO", "gpu_worker.py:441", "Using V2 Model Runner");
    log(E, pid, "INFO", "model_runner.py:396", "Loading model from scratch...");
    log(E, pid, "INFO", "cuda.py:538",
        "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', "
        "'TRITON_ATTN', 'FLEX_ATTENTION'].");
    log(E, pid, "INFO", "flash_attn.py:1116", "Using FlashAttention version 2");
    log(E, pid, "INFO", cfg.sites.load_weights, fmt::format("Loading weights took {:.2f} seconds", cfg.boot_s * 0.4));
    log(E, pid, "INFO", cfg.sites.model_loading,
        fmt::format("Model loading took 15.27 GiB memory and {:.6f} seconds", cfg.boot_s * 0.5));
    if (cfg.enforce_eager) {
        log(E, pid, "INFO", "gpu_model_runner.py:5120", "Cudagraph is disabled under eager mode");
    } else {
        log(E, pid, "INFO", "monitor.py:53", "torch.compile took 0.20 s in total");
    }
    log(E, pid, "INFO", cfg.sites.available_kv, fmt::format("Available KV cache memory: {:.2f} GiB", kv_gib));
}

void log_engine_ready(const ServeConfig& cfg, int pid) {
    const char* E = "EngineCore";
    const long long tokens = static_cast<long long>(cfg.num_gpu_blocks) * cfg.block_size;
    log(E, pid, "INFO", cfg.sites.kv_cache_size,
        fmt::format("GPU KV cache size: {} tokens, Maximum concurrency for {} tokens per request: {:.2f}x",
                    thousands(tokens), thousands(cfg.max_model_len), static_cast<double>(tokens) / cfg.max_model_len));
    double graphs_gib = 0.0;
    if (!cfg.enforce_eager) {
        graphs_gib = 0.07;
        log(E, pid, "INFO", "model_runner.py:1066", "Graph capturing finished in 1 secs, took 0.07 GiB");
        log(E, pid, "INFO", "gpu_worker.py:825",
            "CUDA graph pool memory: 0.07 GiB (actual), 0.12 GiB (estimated), difference: 0.05 GiB (82.4%).");
    }
    log(E, pid, "INFO", cfg.sites.free_memory,
        fmt::format("Free memory on device (22.45/23.99 GiB) on startup. Desired GPU memory utilization is ({}, "
                    "22.31 GiB). Actual usage is 16.56 GiB for consumed memory (weights + non-torch), 1.3 GiB for "
                    "peak activation, and {} GiB for CUDAGraph memory.",
                    cfg.gpu_memory_utilization, graphs_gib));
    log(E, pid, "INFO", "core.py:372",
        fmt::format("init engine (profile, create kv cache, warmup model) took {:.2f} s (compilation: 0.20 s)",
                    cfg.boot_s * 0.5));
}

void log_api_ready(const ServeConfig& cfg, int pid, int port) {
    const char* A = "APIServer";
    log(A, pid, "INFO", "entry.py:135", "Supported tasks: ['generate']");
    log(A, pid, "INFO", "entry.py:139", fmt::format("Starting vLLM server on http://{}:{}", cfg.host, port));
    log(A, pid, "INFO", "launcher.py:61", "Available routes are:");
    for (const char* r : {"/health, Methods: GET", "/metrics, Methods: GET", "/version, Methods: GET",
                          "/v1/models, Methods: GET", "/v1/completions, Methods: POST"})
        log(A, pid, "INFO", "launcher.py:70", std::string("Route: ") + r);
    log_plain(A, pid, fmt::format("INFO:     Started server process [{}]", pid));
    log_plain(A, pid, "INFO:     Waiting for application startup.");
    log_plain(A, pid, "INFO:     Application startup complete.");
}

void log_engine_boot_failure(const ServeConfig& cfg, int pid, const std::string& kind, double kv_gib) {
    const char* w = "core.py:1366";
    log("EngineCore", pid, "ERROR", w, "EngineCore failed to start.");
    std::vector<std::string> lines = kEngineFrames;
    if (kind == "kv") {
        const double need_gib = static_cast<double>(cfg.max_model_len) * 147456.0 / (1 << 30);
        long long fits = static_cast<long long>(cfg.num_gpu_blocks - 1) * cfg.block_size;
        lines.push_back(
            "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py\", line 712, "
            "in check_enough_kv_cache_memory");
        lines.push_back("    raise ValueError(");
        lines.push_back(fmt::format(
            "ValueError: To serve at least one request with the models's max seq len ({}), ({:.2f} GiB KV cache is "
            "needed, which is larger than the available KV cache memory ({:.2f} GiB). Based on the available memory, "
            "the estimated maximum model length is {}. Try increasing `gpu_memory_utilization` or decreasing "
            "`max_model_len` when initializing the engine.",
            cfg.max_model_len, need_gib, kv_gib, fits));
    } else {
        lines.push_back(
            "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py\", line 811, "
            "in compile_or_warm_up_model");
        lines.push_back("    self.model_runner.capture_model()");
        lines.push_back(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
            "capacity of 23.99 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process "
            "has 22.85 GiB memory in use.");
    }
    traceback("EngineCore", pid, w, lines);
}

void log_api_boot_failure(int pid) {
    const char* A = "APIServer";
    for (const char* l :
         {"Traceback (most recent call last):", "  File \"/opt/venv/bin/vllm\", line 10, in <module>",
          "    sys.exit(main())",
          "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/utils.py\", line 1320, in "
          "wait_for_engine_startup",
          "    raise RuntimeError(",
          "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"})
        log_plain(A, pid, l);
}

void log_engine_fatal(int pid) {
    const char* w = "core.py:1001";
    log("EngineCore", pid, "ERROR", w, "EngineCore encountered a fatal error.");
    traceback("EngineCore", pid, w,
              {"Traceback (most recent call last):",
               "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py\", line 992, in run_busy_loop",
               "    self._process_engine_step()",
               "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py\", line 2410, in "
               "execute_model",
               "    torch.cuda.synchronize()",
               "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"});
}

void log_api_engine_dead(int pid) {
    const char* w = "async_llm.py:708";
    log("APIServer", pid, "ERROR", w, "AsyncLLM output_handler failed.");
    traceback("APIServer", pid, w,
              {"Traceback (most recent call last):",
               "  File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py\", line 664, in "
               "output_handler",
               "    outputs = await engine_core.get_output_async()",
               "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) "
               "for the root cause."});
}

void log_engine_shutdown(int pid, const char* signal_name) {
    const char* E = "EngineCore";
    log(E, pid, "INFO", "core.py:1342", fmt::format("[shutdown] EngineCore: trigger received signal={}", signal_name));
    log(E, pid, "INFO", "core.py:1493", "[shutdown] EngineCore: start mode=abort timeout=0s");
    log(E, pid, "INFO", "core.py:1355", "[shutdown] EngineCore: exiting busy loop");
}

}  // namespace sim
