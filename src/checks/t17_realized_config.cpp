// T17: the server ran a configuration nobody asked for. One start: the KV cache dtype
// the engine used against the one the command line asked. Several starts: every field of
// the configuration, as asked and as run, and the ones that differ.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/t17_realized_config.hpp"

#include "inferlint/parse/pyliteral.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace inferlint::checks {

namespace {

std::string t17_lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// What a KV dtype amounts to: "fp8", "fp4", "int8", or "16-bit" for the model's own dtype
// ("auto", bfloat16, float16); another name as written.
std::string kv_kind(std::string_view dtype) {
    std::string d = t17_lower(dtype);
    if (d.rfind("torch.", 0) == 0) d = d.substr(6);
    if (d.rfind("fp8", 0) == 0 || d.rfind("float8", 0) == 0) return "fp8";
    if (d.find("fp4") != std::string::npos || d.rfind("float4", 0) == 0) return "fp4";
    if (d == "int8") return "int8";
    for (std::string_view wide : {"auto", "bfloat16", "bf16", "float16", "fp16", "half"})
        if (d == wide) return "16-bit";
    return d;
}

std::string flag_for(const parse::BootFacts& f) {
    return f.engine == "trtllm" ? "kv_cache_config.dtype" : "--kv-cache-dtype";
}

// Why the engine used a KV dtype the command line did not ask for, as far as the
// model's config.json tells.
std::string kv_cause(const parse::ModelConfig* config, const std::string& realized_kind) {
    if (!config)
        return "cause not read: give --model-config PATH (the model's config.json or folder) to read its "
               "quantization_config";
    if (config->problem) return fmt::format("cause not read: {} is {}", config->path, *config->problem);
    if (!config->has_quantization) return fmt::format("cause unknown: {} has no quantization_config", config->path);
    if (!config->kv_cache_scheme)
        return fmt::format("cause unknown: {}'s quantization_config has no kv_cache_scheme", config->path);
    std::string cause = *config->kv_cause();
    if (config->kv_cache_dtype && kv_kind(*config->kv_cache_dtype) == realized_kind)
        return "the checkpoint asked for it: " + cause;
    return "cause unknown: " + cause + ", which does not name " + realized_kind;
}

Json t17_config_evidence(const parse::ModelConfig* config) {
    if (!config) return nullptr;
    return Json{{"path", config->path},
                {"problem", config->problem ? Json(*config->problem) : Json(nullptr)},
                {"quant_method", config->quant_method ? Json(*config->quant_method) : Json(nullptr)},
                {"kv_cache_scheme", config->kv_cache_scheme ? *config->kv_cache_scheme : Json(nullptr)},
                {"kv_cache_dtype", config->kv_cache_dtype ? Json(*config->kv_cache_dtype) : Json(nullptr)}};
}

// TensorRT-LLM's "auto": the checkpoint's KV quantization, which the config.json names.
std::optional<std::string> trt_checkpoint_dtype(const parse::ModelConfig* config) {
    if (!config || config->problem) return std::nullopt;
    return config->kv_cache_dtype ? *config->kv_cache_dtype : std::string("auto");
}

// `absent`: what null means in this list ("default" for asked, "?" for what the log
// does not say).
std::string value_text(const Json& v, std::string_view absent) {
    if (v.is_null()) return std::string(absent);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return util::text::with_commas(v.get<long long>());
    return parse::py_str(v);
}

std::string list_text(const std::vector<Json>& values, std::string_view absent) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + value_text(v, absent);
    return out;
}

}  // namespace

CheckResult check_kv_dtype_as_asked(const parse::BootFacts& facts, const parse::ModelConfig* config) {
    Json asked_j, realized_j;
    for (const auto& field : realized_config(facts))
        if (field.name == "kv_cache_dtype") {
            asked_j = field.asked;
            realized_j = field.realized;
        }
    Json ev{{"asked", asked_j}, {"realized", realized_j}, {"model_config", t17_config_evidence(config)}};
    // A start that died before its KV cache was made never stored anything in it.
    if (!facts.kv_pool_tokens)
        return {TripwireId::T17, Status::unknown, "the start never allocated its KV cache (no KV pool line)",
                std::move(ev)};
    if (realized_j == "checkpoint's") {
        auto from_config = trt_checkpoint_dtype(config);
        // "auto" asks TensorRT-LLM to follow the checkpoint (model_loader.py's
        // validate_and_set_kv_cache_quant @004b733e), and the log says it did: as asked, as
        // T6 passes a start that asked for no backend. TensorRT-LLM never logs which dtype the
        // checkpoint named, at any level, so only its config.json can tell more.
        if (!from_config && asked_j == "auto")
            return {TripwireId::T17, Status::pass,
                    "KV cache as asked: kv_cache_config.dtype was auto, and TensorRT-LLM followed the checkpoint's "
                    "KV quantization, as auto means; its log never names that quantization, so FP8 KV turned on "
                    "by the checkpoint would not show here: give --model-config PATH to name it",
                    std::move(ev)};
        if (!from_config)
            return {TripwireId::T17, Status::unknown,
                    "TensorRT-LLM used the checkpoint's KV quantization, which its log does not name; give "
                    "--model-config PATH to read it",
                    std::move(ev)};
        realized_j = *from_config == "auto" ? Json("the model's dtype") : Json(*from_config);
        ev["realized"] = realized_j;
    }
    if (!realized_j.is_string())
        return {TripwireId::T17, Status::unknown, "the log does not say which KV cache dtype the engine used",
                std::move(ev)};
    if (!asked_j.is_string())
        return {TripwireId::T17, Status::unknown,
                fmt::format("no arguments line in the log; cannot tell which KV cache dtype was asked: it needs {}",
                            missing_args_line(facts.engine)),
                std::move(ev)};
    const std::string asked = asked_j.get<std::string>(), realized = realized_j.get<std::string>();
    const std::string asked_kind = kv_kind(asked);
    const std::string realized_kind = realized == "the model's dtype" ? "16-bit" : kv_kind(realized);
    const std::string flag = flag_for(facts);
    if (asked_kind == realized_kind)
        return {TripwireId::T17, Status::pass, fmt::format("KV cache in {}, as asked ({} {})", realized, flag, asked),
                std::move(ev)};
    std::string msg =
        asked_kind == "16-bit"
            ? fmt::format(
                  "the engine stored the KV cache in {} though {} was {}; a command-line diff does not "
                  "show it, and the KV pool is not the one the flags give",
                  realized, flag, asked)
            : fmt::format("{} {} was asked, but the engine stored the KV cache in {}", flag, asked, realized);
    if (realized_kind != "16-bit") msg += "; " + kv_cause(config, realized_kind);
    return {TripwireId::T17, Status::warn, std::move(msg), std::move(ev)};
}

namespace {

// The fields that differ over the starts compared (`per_start`, named `starts`), typed for
// each caller's message, with the evidence both write.
struct ConfigDiff {
    Json ev;
    std::vector<std::string> differ, unasked;  // unasked: the command lines agree, the servers chose
    std::string asked_and_ran;                 // "name (asked ...; ran ...)" per field that differs
    std::string ran;                           // "name (...)": what ran, per field that differs
};

ConfigDiff config_diff(const std::vector<std::vector<ConfigField>>& per_start, const std::vector<std::string>& starts,
                       const std::vector<std::string>& not_compared) {
    ConfigDiff d;
    d.ev = Json{{"starts", starts}, {"not_compared", not_compared}, {"fields", Json::object()}};
    if (per_start.size() < 2) return d;
    Json fields = Json::object();
    for (std::size_t k = 0; k < per_start.front().size(); ++k) {
        std::vector<Json> asked, realized, known;
        for (const auto& fs : per_start) {
            asked.push_back(fs[k].asked);
            realized.push_back(fs[k].realized);
            if (!fs[k].realized.is_null() && std::find(known.begin(), known.end(), fs[k].realized) == known.end())
                known.push_back(fs[k].realized);
        }
        const std::string name(per_start.front()[k].name);
        fields[name] = Json{{"asked", asked}, {"realized", realized}};
        const bool asked_differ = std::any_of(asked.begin(), asked.end(), [&](const Json& a) { return a != asked[0]; });
        if (!asked_differ && known.size() < 2) continue;
        d.differ.push_back(name);
        if (!asked_differ) d.unasked.push_back(name);
        const char* sep = d.asked_and_ran.empty() ? "" : "; ";
        d.asked_and_ran +=
            fmt::format("{}{} (asked {}; ran {})", sep, name, list_text(asked, "default"), list_text(realized, "?"));
        d.ran += fmt::format("{}{} ({})", sep, name, list_text(realized, "?"));
    }
    d.ev["fields"] = std::move(fields);
    d.ev["differ"] = d.differ;
    return d;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

CheckResult check_realized_config(const std::vector<const parse::BootFacts*>& facts,
                                  const std::vector<std::string>& labels) {
    std::vector<std::string> starts, not_compared;
    std::vector<std::vector<ConfigField>> per_start;
    for (std::size_t i = 0; i < facts.size(); ++i) {
        std::string name = i < labels.size() ? labels[i] : fmt::format("boot{}", i);
        if (!facts[i]->ready || !facts[i]->config_args()) {
            not_compared.push_back(std::move(name));
            continue;
        }
        starts.push_back(std::move(name));
        per_start.push_back(realized_config(*facts[i]));
    }
    ConfigDiff d = config_diff(per_start, starts, not_compared);
    if (per_start.size() < 2)
        return {TripwireId::T17, Status::unknown,
                fmt::format("{} of {} starts came up with an arguments line; at least two are needed to compare",
                            per_start.size(), facts.size()),
                std::move(d.ev)};
    if (d.differ.empty())
        return {TripwireId::T17, Status::pass,
                fmt::format("{} starts ran the same configuration, as far as their logs tell: {}", starts.size(),
                            joined(starts)),
                std::move(d.ev)};
    std::string msg = fmt::format("{} starts ran different configurations in {} field{}: {}", starts.size(),
                                  d.differ.size(), d.differ.size() == 1 ? "" : "s", d.asked_and_ran);
    if (!d.unasked.empty())
        msg += fmt::format(". The command lines agree on {}: the servers chose those themselves", joined(d.unasked));
    return {TripwireId::T17, Status::warn, std::move(msg), std::move(d.ev)};
}

CheckResult check_metrics_config(const std::vector<std::pair<std::string, std::optional<parse::MetricsPool>>>& pools) {
    std::vector<std::string> starts, not_compared;
    std::vector<std::vector<ConfigField>> per_start;
    for (const auto& [name, pool] : pools) {
        (pool ? starts : not_compared).push_back(name);
        if (pool) per_start.push_back(metrics_config(*pool));
    }
    ConfigDiff d = config_diff(per_start, starts, not_compared);
    d.ev["pool_source"] = "metrics";
    if (per_start.size() < 2)
        return {TripwireId::T17, Status::unknown,
                fmt::format("{} of {} replicas state their KV pool in /metrics; at least two are needed to compare",
                            per_start.size(), pools.size()),
                std::move(d.ev)};
    if (d.differ.empty())
        return {TripwireId::T17, Status::pass,
                fmt::format("{} replicas hold the same KV pool, block size and KV dtype, as their /metrics state",
                            starts.size()),
                std::move(d.ev)};
    return {TripwireId::T17, Status::warn,
            fmt::format("{} replicas' /metrics state different KV pools: {}; the same benchmark then runs on "
                        "different servers",
                        starts.size(), d.ran),
            std::move(d.ev)};
}

}  // namespace inferlint::checks
