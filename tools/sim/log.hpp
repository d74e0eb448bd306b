// Log lines in vLLM's format, and the texts of a boot, a failure and a shutdown. The
// lines are the ones inferlint's boot-log parser and failure classifier read.
#pragma once

#include "serve.hpp"

#include <string>

namespace sim {

// "(APIServer pid=12) INFO 10-01 01:24:26 [api_utils.py:347] msg", written with one
// write() so lines from the two processes never interleave.
void log(const char* proc, int pid, const char* level, const char* where, const std::string& msg);
// A line as is (uvicorn's "INFO:     ..." lines carry only the process prefix).
void log_plain(const char* proc, int pid, const std::string& msg);

// The API server's first lines: banner, non-default args.
void log_api_start(const ServeConfig& cfg, int pid);
// The model's config as the API server resolves it: architecture, max model len, and the
// FP8 KV cache line when the cache is FP8.
void log_api_config(const ServeConfig& cfg, int pid);
// A model folder whose config.json is missing or not JSON: transformers' traceback.
void log_api_config_failure(const ServeConfig& cfg, int pid);
// The EngineCore's boot up to the KV cache and CUDA graphs.
void log_engine_boot(const ServeConfig& cfg, int pid, double kv_gib);
// The KV pool, CUDA graphs and memory split, after which the engine is ready.
void log_engine_ready(const ServeConfig& cfg, int pid);
// The API server's routes and uvicorn's start-up, ending in "Application startup complete.".
void log_api_ready(const ServeConfig& cfg, int pid, int port);

// Boot failures: the EngineCore's traceback (oom: CUDA out of memory; kv: the pool cannot
// hold one request of max_model_len), then the API server's.
void log_engine_boot_failure(const ServeConfig& cfg, int pid, const std::string& kind, double kv_gib);
void log_api_boot_failure(int pid);

// The engine dies while serving (T7): its traceback, then the API server's EngineDeadError.
void log_engine_fatal(int pid);
void log_api_engine_dead(int pid);

// An orderly stop, with vLLM's "[shutdown]" tags.
void log_engine_shutdown(int pid, const char* signal_name);

}  // namespace sim
