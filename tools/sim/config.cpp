// `vllm serve` options -> ServeConfig, and the "non-default args" dict vLLM prints.
#include "serve.hpp"

#include "engine.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

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
                                 "kv_cache_dtype",
                                 "num_gpu_blocks_override",
                                 "enable_prefix_caching",
                                 "max_num_seqs",
                                 "max_num_batched_tokens",
                                 "speculative_config"};

// vLLM's --kv-cache-dtype choices (0.30).
const char* const kKvDtypes[] = {"auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"};

// A JSON value as Python's repr() shows the dict json.loads made of it.
std::string py_repr(const nlohmann::ordered_json& v) {
    if (v.is_string()) return fmt::format("'{}'", v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_null()) return "None";
    if (v.is_object()) {
        std::string out;
        for (const auto& [k, x] : v.items()) out += fmt::format("{}'{}': {}", out.empty() ? "" : ", ", k, py_repr(x));
        return "{" + out + "}";
    }
    if (v.is_array()) {
        std::string out;
        for (const auto& x : v) out += (out.empty() ? "" : ", ") + py_repr(x);
        return "[" + out + "]";
    }
    return v.dump();
}

bool is_int(const std::string& v) {
    if (v.empty()) return false;
    std::size_t i = v[0] == '-' ? 1 : 0;
    return i < v.size() &&
           std::all_of(v.begin() + static_cast<long>(i), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_float(const std::string& v) {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    return !v.empty() && *end == '\0';
}

// A value as Python's repr() shows what argparse made of it.
std::string py_value(const std::string& key, const std::optional<std::string>& v) {
    if (!v) return "True";
    if (*v == "False") return "False";
    if (key == "served_model_name") return fmt::format("['{}']", *v);
    if (key == "speculative_config") return py_repr(nlohmann::ordered_json::parse(*v, nullptr, false));
    if (is_int(*v) || (is_float(*v) && v->find_first_of(".eE") != std::string::npos)) return *v;
    return fmt::format("'{}'", *v);
}

std::string canonical(const std::string& key) {
    if (key == "num_gpu_blocks") return "num_gpu_blocks_override";
    if (key == "no_enable_prefix_caching") return "enable_prefix_caching";
    return key;
}

// argparse's BooleanOptionalAction: --no-X stores False under X.
std::optional<std::string> stored_value(const Option& o) {
    if (o.key == "no_enable_prefix_caching") return std::string("False");
    return o.value;
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
            if (canonical(o.key) == key && !is_default(o.key, o.value)) add(key, stored_value(o));
    }
    for (const auto& o : a.options) {
        std::string key = canonical(o.key);
        if (key.rfind("sim_", 0) == 0 || is_default(key, o.value)) continue;
        if (std::find(std::begin(kArgOrder), std::end(kArgOrder), key) != std::end(kArgOrder)) continue;
        add(key, stored_value(o));
    }
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += fmt::format("{}'{}': {}", i ? ", " : "", items[i].first, items[i].second);
    return out + "}";
}

// --speculative-config: the JSON vLLM takes; the drafter is counted, not run.
void read_speculative(const Args& a, ServeConfig& c) {
    c.spec_accept = a.number("sim_spec_accept_rate", c.spec_accept);
    if (!(c.spec_accept >= 0 && c.spec_accept <= 1)) usage_error("--sim-spec-accept-rate takes a number from 0 to 1");
    const Option* o = a.find("speculative_config");
    if (!o) return;
    auto j = nlohmann::json::parse(o->value.value_or(""), nullptr, false);
    if (!j.is_object())
        usage_error(fmt::format("argument --speculative-config: Value {} cannot be converted to <function loads>.",
                                o->value.value_or("")));
    c.spec_method = j.value("method", std::string());
    auto n = j.find("num_speculative_tokens");
    if (c.spec_method.empty() || n == j.end() || !n->is_number_integer())
        usage_error("argument --speculative-config: needs a method and an integer num_speculative_tokens");
    c.spec_tokens = n->get<int>();
    if (c.spec_tokens < 1 || c.spec_tokens > kMaxSpecTokens)
        usage_error(fmt::format("num_speculative_tokens must be from 1 to {} in the simulator", kMaxSpecTokens));
    c.spec_model = j.value("model", c.spec_method == "ngram" ? std::string("ngram") : c.model);
}

// Prefix caching (the last of --enable-prefix-caching / --no-enable-prefix-caching wins),
// the KV dtype asked and the one the engine stores, and the pool it makes of it.
void read_cache_options(const Args& a, ServeConfig& c) {
    for (const auto& o : a.options) {
        if (o.key == "enable_prefix_caching") c.prefix_caching = a.flag("enable_prefix_caching");
        if (o.key == "no_enable_prefix_caching") c.prefix_caching = false;
    }
    c.kv_cache_dtype_asked = a.str("kv_cache_dtype", "auto");
    if (std::find(std::begin(kKvDtypes), std::end(kKvDtypes), c.kv_cache_dtype_asked) == std::end(kKvDtypes)) {
        std::string choices;
        for (const char* d : kKvDtypes) choices += fmt::format("{}'{}'", choices.empty() ? "" : ", ", d);
        usage_error(fmt::format("argument --kv-cache-dtype: invalid choice: '{}' (choose from {})",
                                c.kv_cache_dtype_asked, choices));
    }
    read_model_folder(c);
    // "auto" follows the checkpoint: an 8-bit kv_cache_scheme makes vLLM store FP8.
    c.kv_cache_dtype = c.kv_cache_dtype_asked == "auto" && c.checkpoint_kv_fp8 ? "fp8" : c.kv_cache_dtype_asked;
    // The same memory holds twice the tokens at 8 bits; an override is taken as given.
    if (!a.find("num_gpu_blocks_override") && !a.find("num_gpu_blocks") && c.kv_cache_dtype.rfind("fp8", 0) == 0)
        c.num_gpu_blocks = 2 * c.num_gpu_blocks;
}

// --sim-noise PCT: this start's decode speed, drawn from --sim-seed (else a fresh seed).
void read_noise(const Args& a, ServeConfig& c) {
    c.noise_pct = a.number("sim_noise", 0);
    if (!(c.noise_pct >= 0 && c.noise_pct < 50)) usage_error("--sim-noise takes a percentage from 0 to 50");
    const Option* seed = a.find("sim_seed");
    if (seed && seed->value) {
        const std::string& t = *seed->value;
        char* end = nullptr;
        c.seed = std::strtoull(t.c_str(), &end, 10);
        if (t.empty() || *end != '\0' || t[0] == '-')
            usage_error(fmt::format("argument --sim-seed: invalid int value: '{}'", t));
    } else {
        c.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    }
    std::mt19937_64 rng(c.seed);
    c.speed_factor = 1.0 + c.noise_pct / 100.0 * std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
}

}  // namespace

double kv_bytes_per_token(const ServeConfig& cfg) {
    return cfg.kv_cache_dtype.rfind("fp8", 0) == 0 ? 73728.0 : 147456.0;
}

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
    c.abort_every = a.integer("sim_abort_every", 0);
    if (c.abort_every < 0) usage_error("--sim-abort-every must be 0 (off) or more");
    c.api_key = a.str("api_key", "");
    c.dead_linger_s = a.number("sim_dead_linger_s", c.dead_linger_s);
    c.orphan_linger_s = a.number("sim_orphan_linger_s", c.orphan_linger_s);
    c.log_interval_s = a.number("sim_log_interval_s", c.log_interval_s);
    c.running_counts_waiting = a.flag("sim_running_counts_waiting");
    if (c.num_gpu_blocks < 2) usage_error("--num-gpu-blocks-override must be at least 2 (one is the null block)");
    if (c.block_size < 1 || c.max_num_seqs < 1 || c.max_model_len < 1) usage_error("sizes must be positive");
    if (!(c.time_scale > 0) || !(c.tokens_per_s > 0) || !(c.prefill_tokens_per_s > 0))
        usage_error("--sim-time-scale and the rates must be positive");
    if (!c.fail_boot.empty() && c.fail_boot != "oom" && c.fail_boot != "kv")
        usage_error("--sim-fail-boot takes oom or kv");
    const std::string version = a.str("sim_version", "0.30");
    if (version != "0.30" && version != "0.31" && version != "0.33")
        usage_error("--sim-version takes 0.30, 0.31 or 0.33");
    c.version = version + ".0";
    c.stats_preemptions = version == "0.33";
    if (version == "0.31")
        c.sites = {"default_loader.py:484", "model_runner.py:407", "gpu_worker.py:692", "kv_cache_utils.py:2464",
                   "gpu_worker.py:955"};
    read_speculative(a, c);
    read_cache_options(a, c);
    read_noise(a, c);
    c.non_default_args = non_default_args(a, c.model);
    return c;
}

}  // namespace sim
