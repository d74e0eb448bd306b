// `vllm serve` options -> ServeConfig, and the "non-default args" dict vLLM prints.
#include "serve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace sim {
namespace {

// The options vLLM lists in this order in its non-default args (its argparse order).
const char* const kArgOrder[] = {"host",
                                 "port",
                                 "model",
                                 "max_model_len",
                                 "served_model_name",
                                 "enforce_eager",
                                 "block_size",
                                 "gpu_memory_utilization",
                                 "num_gpu_blocks_override",
                                 "max_num_seqs",
                                 "max_num_batched_tokens"};

bool is_int(const std::string& v) {
    if (v.empty()) return false;
    std::size_t i = v[0] == '-' ? 1 : 0;
    return i < v.size() && std::all_of(v.begin() + static_cast<long>(i), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_float(const std::string& v) {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    return !v.empty() && *end == '\0';
}

// A value as Python's repr() shows what argparse made of it.
std::string py_value(const std::string& key, const std::optional<std::string>& v) {
    if (!v) return "True";
    if (key == "served_model_name") return fmt::format("['{}']", *v);
    if (is_int(*v) || (is_float(*v) && v->find_first_of(".eE") != std::string::npos)) return *v;
    return fmt::format("'{}'", *v);
}

std::string canonical(const std::string& key) {
    if (key == "num_gpu_blocks") return "num_gpu_blocks_override";
    return key;
}

// Defaults that vLLM leaves out of its non-default args.
bool is_default(const std::string& key, const std::optional<std::string>& v) {
    if (!v) return false;
    if (key == "port") return *v == "8000";
    if (key == "kv_cache_dtype") return *v == "auto";
    if (key == "block_size") return false;
    if (key == "gpu_memory_utilization") return std::strtod(v->c_str(), nullptr) == 0.9;
    return false;
}

std::string non_default_args(const Args& a, const std::string& model) {
    std::vector<std::pair<std::string, std::string>> items;
    items.emplace_back("model_tag", fmt::format("'{}'", model));
    auto add = [&](const std::string& key, const std::optional<std::string>& value) {
        for (auto& it : items)
            if (it.first == key) {
                it.second = py_value(key, value);
                return;
            }
        items.emplace_back(key, py_value(key, value));
    };
    for (const char* key : kArgOrder) {
        if (std::string(key) == "model") {
            add("model", model);
            continue;
        }
        for (const auto& o : a.options)
            if (canonical(o.key) == key && !is_default(o.key, o.value)) add(key, o.value);
    }
    for (const auto& o : a.options) {
        std::string key = canonical(o.key);
        if (key.rfind("sim_", 0) == 0 || is_default(key, o.value)) continue;
        if (std::find(std::begin(kArgOrder), std::end(kArgOrder), key) != std::end(kArgOrder)) continue;
        add(key, o.value);
    }
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += fmt::format("{}'{}': {}", i ? ", " : "", items[i].first, items[i].second);
    return out + "}";
}

}  // namespace

ServeConfig serve_config(const Args& a) {
    ServeConfig c;
    if (a.positional.empty() && !a.find("model")) usage_error("the following arguments are required: model_tag");
    c.model = a.positional.empty() ? a.str("model", "") : a.positional[0];
    c.served_name = a.str("served_model_name", c.model);
    c.host = a.str("host", "127.0.0.1");
    c.port = a.integer("port", 8000);
    c.max_num_seqs = a.integer("max_num_seqs", c.max_num_seqs);
    c.max_model_len = a.integer("max_model_len", c.max_model_len);
    c.num_gpu_blocks = a.integer("num_gpu_blocks_override", a.integer("num_gpu_blocks", c.num_gpu_blocks));
    c.block_size = a.integer("block_size", c.block_size);
    c.max_queued = a.integer("max_num_queued_reqs", a.integer("sim_max_waiting", 0));
    c.gpu_memory_utilization = a.number("gpu_memory_utilization", c.gpu_memory_utilization);
    c.enforce_eager = a.flag("enforce_eager");
    c.time_scale = a.number("sim_time_scale", c.time_scale);
    c.min_step_ms = a.number("sim_step_ms", c.min_step_ms);
    c.tokens_per_s = a.number("sim_tokens_per_s", c.tokens_per_s);
    c.prefill_tokens_per_s = a.number("sim_prefill_tokens_per_s", c.prefill_tokens_per_s);
    c.boot_s = a.number("sim_boot_s", c.boot_s);
    c.fail_boot = a.str("sim_fail_boot", "");
    c.crash_on_request = a.flag("sim_crash_on_first_request") ? 1 : a.integer("sim_crash_on_request", 0);
    c.die_after_s = a.number("sim_die_after_s", 0);
    c.die_after_scrapes = static_cast<int>(a.integer("sim_die_after_scrapes", 0));
    c.metrics_delay_s = a.number("sim_metrics_delay_s", 0);
    c.dead_linger_s = a.number("sim_dead_linger_s", c.dead_linger_s);
    c.orphan_linger_s = a.number("sim_orphan_linger_s", c.orphan_linger_s);
    c.log_interval_s = a.number("sim_log_interval_s", c.log_interval_s);
    if (c.num_gpu_blocks < 2) usage_error("--num-gpu-blocks-override must be at least 2 (one is the null block)");
    if (c.block_size < 1 || c.max_num_seqs < 1 || c.max_model_len < 1) usage_error("sizes must be positive");
    if (!(c.time_scale > 0) || !(c.tokens_per_s > 0) || !(c.prefill_tokens_per_s > 0))
        usage_error("--sim-time-scale and the rates must be positive");
    if (!c.fail_boot.empty() && c.fail_boot != "oom" && c.fail_boot != "kv")
        usage_error("--sim-fail-boot takes oom or kv");
    c.non_default_args = non_default_args(a, c.model);
    return c;
}

}  // namespace sim
