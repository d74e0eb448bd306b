// The boot-log walk: every line is offered to every engine's fields; what matched is
// recorded, what was recognised but not read goes to `unparsed`.
#include "bootlog_text.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/pyliteral.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace inferlint::parse {

namespace {

// Backend selections after this line belong to the speculative-decoding drafter.
constexpr std::string_view kDrafterMarker = "Loading drafter model";
constexpr std::string_view kEagerMarker = "Cudagraph is disabled under eager mode";
constexpr std::string_view kReadyMarker = "Application startup complete";
// torch.compile ran from scratch, or loaded a graph an earlier start compiled.
constexpr std::string_view kCompiledMarker = "Compiling a graph for compile range";
constexpr std::string_view kCachedCompileMarker = "Directly load AOT compilation";
// TensorRT-LLM pauses are logged at INFO; counting them means something only where
// INFO lines are logged at all.
constexpr std::string_view kTrtInfo = "[TRT-LLM] [I]";

// Fields a log prints more than once on purpose: summed (one line per phase), or the
// last one holds (TensorRT-LLM's dry run before the real pool).
bool summed(std::string_view name) { return name == "sglang_cudagraph_gib" || name == "compile_s"; }
bool last_wins(std::string_view name) {
    return name == "trt_kv_pool" || name == "trt_limits" || name == "page_size" || name == "engine_version";
}

using detail::Seen;

std::optional<long long> json_int(const Json& j) {
    if (j.is_number_integer()) return j.get<long long>();
    return std::nullopt;
}

bool py_truthy(const Json& j) {
    if (j.is_null()) return false;
    if (j.is_boolean()) return j.get<bool>();
    if (j.is_number()) return j.get<double>() != 0;
    if (j.is_string() || j.is_array() || j.is_object()) return !j.empty();
    return true;
}

std::vector<std::string> strings_of(const Json& arr) {
    std::vector<std::string> out;
    for (const auto& x : arr) out.push_back(py_str(x));
    return out;
}

void record(BootFacts& f, std::string_view name, const Json& v, Seen& seen, bool in_drafter) {
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == name; });
    if (it == seen.end()) it = seen.insert(seen.end(), {std::string(name), {}});
    if (std::find(it->second.begin(), it->second.end(), v) == it->second.end()) it->second.push_back(v);

    if (name == "selected_backend") {
        (in_drafter ? f.drafter_backends : f.selected_backends).push_back(v[0].get<std::string>());
        if (!v[1].empty() && !in_drafter) f.candidate_backends = strings_of(v[1]);
    } else if (name == "kv_pool") {
        f.kv_pool_tokens = v[0].get<long long>();
        f.max_concurrency_request_len = v[1].get<long long>();
        f.max_concurrency = v[2].get<double>();
    } else if (name == "model_load") {
        f.model_load_gib = v[0].get<double>();
        f.model_load_s = v[1].get<double>();
    } else if (name == "sglang_kv_pool" || name == "trt_kv_pool") {
        f.kv_pool_tokens = v[0].get<long long>();
        f.available_kv_cache_gib = v[1].get<double>();
    } else if (name == "sglang_cudagraph_gib") {
        f.cudagraph_actual_gib = detail::round2(f.cudagraph_actual_gib.value_or(0.0) + v.get<double>());
    } else if (name == "compile_s") {
        f.compile_s = detail::round2(f.compile_s.value_or(0.0) + v.get<double>());
    } else if (name == "memory_split") {
        f.consumed_gib = v[0].get<double>();
        f.peak_activation_gib = v[1].get<double>();
    } else if (name == "sglang_running_cap_reason") {
        f.running_cap = v[0].get<long long>();
        f.running_cap_reason = v[1].get<std::string>();
    } else if (name == "sglang_limits") {
        f.kv_pool_tokens = v[0].get<long long>();
        f.running_cap = v[1].get<long long>();
    } else if (name == "sglang_default_backend") {
        f.selected_backends.push_back(v.get<std::string>());
    } else if (name == "trt_limits") {
        f.running_cap = v[0].get<long long>();
        f.requested_running = v[1].get<long long>();
    } else if (name == "trt_llm_args") {
        // the settings are on the next line
    } else if (name == "vllm_version") {
        f.vllm_version = v.get<std::string>();
    } else if (name == "engine_version") {
        f.engine_version = v.get<std::string>();
    } else if (name == "non_default_args") {
        f.non_default_args = v;
    } else if (name == "server_args") {
        f.server_args = v;
    } else if (name == "attention_block_size") {
        f.attention_block_size = v.get<long long>();
    } else if (name == "page_size") {
        f.page_size = v.get<long long>();
    } else if (name == "mamba_page_padding_pct") {
        f.mamba_page_padding_pct = v.get<double>();
    } else if (name == "available_kv_cache_gib") {
        f.available_kv_cache_gib = v.get<double>();
    } else if (name == "cudagraph_estimated_gib") {
        f.cudagraph_estimated_gib = v.get<double>();
    } else if (name == "cudagraph_actual_gib") {
        f.cudagraph_actual_gib = v.get<double>();
    } else if (name == "cudagraph_mode_downgrade") {
        f.cudagraph_mode_downgrade = {v[0].get<std::string>(), v[1].get<std::string>()};
    } else if (name == "model_load_gib") {
        f.model_load_gib = v.get<double>();
    }
}

// The fields read beyond the Python tool (T17): the last line holds, nothing goes to
// `conflicts` or `unparsed`.
void record_realized(BootFacts& f, std::string_view name, const Json& v) {
    RealizedFacts& r = f.realized;
    if (name == "vllm_engine_config") {
        r.engine_config = v;
        if (auto it = v.find("kv_cache_dtype"); it != v.end() && !r.kv_cache_dtype) r.kv_cache_dtype = it->get<std::string>();
    } else if (name == "vllm_kv_cache_dtype") {
        r.kv_cache_dtype = v.get<std::string>();  // the line names the dtype the cache uses
    } else if (name == "vllm_gpu_memory_utilization" || name == "trt_memory_fraction") {
        r.gpu_memory_utilization = v.get<double>();
    } else if (name == "sglang_kv_cache_dtype") {
        r.kv_cache_dtype = v.get<std::string>();
    } else if (name == "sglang_realized_limits") {
        r.chunked_prefill_tokens = v[0].get<long long>();
        r.max_model_len = v[1].get<long long>();
    } else if (name == "trt_kv_quantization") {
        r.kv_cache_dtype = v[0].get<std::string>();
        r.kv_dtype_from_checkpoint = v[1].get<bool>();
    } else if (name == "trt_max_seq_len") {
        r.max_model_len = v.get<long long>();
    }
}

const std::vector<const detail::Field*>& every_field() {
    static const std::vector<const detail::Field*> all = [] {
        std::vector<const detail::Field*> v;
        for (const auto* table : {&detail::vllm_fields(), &detail::sglang_fields(), &detail::trtllm_fields()})
            for (const auto& f : *table) v.push_back(&f);
        return v;
    }();
    return all;
}

// Finds every anchor and marker in one pass over a line, instead of one find() per
// anchor: a 64K-entry table of the anchors' first two bytes says where to compare. Most
// lines of a big log (request lines) hold none, and this keeps the walk near memory speed.
class AnchorScan {
public:
    explicit AnchorScan(std::vector<std::string_view> needles) : needles_(std::move(needles)), by_key_(65536) {
        for (std::size_t id = 0; id < needles_.size(); ++id) {
            auto key = key_at(needles_[id], 0);
            by_key_[key].push_back(static_cast<unsigned short>(id));
        }
    }
    std::size_t size() const { return needles_.size(); }
    // first_at[id]: where needle id first occurs in line, or npos.
    void scan(std::string_view line, std::vector<std::size_t>& first_at) const {
        first_at.assign(needles_.size(), std::string_view::npos);
        if (line.size() < 2) return;
        for (std::size_t i = 0; i + 1 < line.size(); ++i) {
            const auto& ids = by_key_[key_at(line, i)];
            if (ids.empty()) continue;
            for (auto id : ids)
                if (first_at[id] == std::string_view::npos && line.compare(i, needles_[id].size(), needles_[id]) == 0)
                    first_at[id] = i;
        }
    }

private:
    static std::size_t key_at(std::string_view s, std::size_t i) {
        return static_cast<std::size_t>(static_cast<unsigned char>(s[i])) << 8 | static_cast<unsigned char>(s[i + 1]);
    }
    std::vector<std::string_view> needles_;
    std::vector<std::vector<unsigned short>> by_key_;
};

// The anchors of every field, then the markers, in this order.
enum Marker : std::size_t { drafter, eager, ready, compiled, cached_compile, marker_count };

const AnchorScan& anchor_scan() {
    static const AnchorScan scan = [] {
        std::vector<std::string_view> needles;
        for (const auto* fld : every_field()) needles.push_back(fld->anchor);
        for (auto m : {kDrafterMarker, kEagerMarker, kReadyMarker, kCompiledMarker, kCachedCompileMarker})
            needles.push_back(m);
        return AnchorScan(std::move(needles));
    }();
    return scan;
}

bool has_marker(const std::vector<std::size_t>& first_at, Marker m) {
    return first_at[every_field().size() + m] != std::string_view::npos;
}

void offer_to_fields(BootFacts& f, std::string_view line, const std::vector<std::size_t>& first_at, long long lineno,
                     Seen& seen, bool in_drafter) {
    const auto& fields = every_field();
    for (std::size_t k = 0; k < fields.size(); ++k) {
        const detail::Field* fld = fields[k];
        auto at = first_at[k];
        if (at == std::string_view::npos) continue;
        if (fld->anchor_check && !fld->anchor_check(line)) continue;
        bool read = false;
        for (auto pattern : fld->patterns) {
            if (auto v = pattern(line, at)) {
                if (fld->reference == detail::Reference::beyond) record_realized(f, fld->name, *v);
                else record(f, fld->name, *v, seen, in_drafter);
                read = true;
                break;
            }
        }
        if (!read && fld->reference == detail::Reference::yes) {
            f.unparsed.push_back(Unparsed{std::string(fld->name), static_cast<int>(lineno),
                                          detail::valid_utf8(detail::first_chars(strip_log_prefix(line), 300))});
        }
    }
}

void sglang_settings(BootFacts& f, const Seen& seen) {
    const Json& sa = *f.server_args;
    auto get = [&](const char* k) -> const Json* { return sa.contains(k) ? &sa.at(k) : nullptr; };
    const Json* page = get("page_size");
    f.page_size = page ? json_int(*page) : std::nullopt;
    const Json* mrr = get("max_running_requests");
    f.requested_running = mrr ? json_int(*mrr) : std::nullopt;
    bool default_backend = std::any_of(seen.begin(), seen.end(), [](const auto& e) { return e.first == "sglang_default_backend"; });
    const Json* rb = get("attention_backend");
    bool has_rb = rb && !rb->is_null();
    f.requested_backend = (default_backend || !has_rb) ? std::nullopt : std::optional<std::string>(py_str(*rb));
    if (f.selected_backends.empty() && has_rb) f.selected_backends.push_back(py_str(*rb));
    const Json* spec = get("speculative_algorithm");
    f.speculative = spec && !spec->is_null();
    if (!f.cudagraphs.has_value()) {
        const Json* off = get("disable_cuda_graph");
        f.cudagraphs = !(off && py_truthy(*off));
    }
}

void trtllm_settings(BootFacts& f, const std::optional<std::string>& args_line) {
    if (!args_line) return;
    Json found = detail::trtllm_settings(*args_line);
    if (found.contains("attn_backend") && f.selected_backends.empty()) {
        std::string b = found["attn_backend"].get<std::string>();
        if (!b.empty()) f.selected_backends.push_back(b);
    }
    f.speculative = found.contains("speculative_config") && found["speculative_config"] != "None";
    f.server_args = std::move(found);
}

}  // namespace

namespace detail {

FactsWalk::FactsWalk(std::optional<std::string> engine) {
    f_.engine = std::move(engine);
    // Only a TensorRT-LLM log pays for counting its requests.
    is_trtllm_ = f_.engine == "trtllm";
}

void FactsWalk::line(std::string_view raw, long long lineno) {
    f_.lines = lineno;
    if (want_args_line_) {
        trt_args_line_ = std::string(util::text::trim(strip_ansi(raw), util::text::kPySpace));
        want_args_line_ = false;
    }
    if (!args_line_taken_) {
        std::string_view r = raw;
        while (!r.empty() && std::isspace(static_cast<unsigned char>(r.back()))) r.remove_suffix(1);
        if (r.size() >= 9 && r.substr(r.size() - 9) == "LLM Args:") args_line_taken_ = want_args_line_ = true;
    }
    if (is_trtllm_) {
        served_ += count_served(raw);
        pauses_ += count_pauses(raw);
        if (!trt_info_ && raw.find(kTrtInfo) != std::string_view::npos) trt_info_ = true;
    }

    std::string owned;
    std::string_view line = raw;
    if (raw.find('\x1b') != std::string_view::npos) {
        owned = strip_ansi(raw);
        line = owned;
    }
    anchor_scan().scan(line, first_at_);
    if (has_marker(first_at_, drafter)) in_drafter_ = true;
    if (!line.empty() && line[0] == '(')
        if (auto p = match_log_prefix(line)) procs_[std::string(p->proc)].insert(p->pid);
    offer_to_fields(f_, line, first_at_, lineno, seen_, in_drafter_);
    if (has_marker(first_at_, eager)) f_.cudagraphs = false;
    if (has_marker(first_at_, compiled))
        f_.compiled_fresh = true;
    else if (has_marker(first_at_, cached_compile) && !f_.compiled_fresh.has_value())
        f_.compiled_fresh = false;
    if (!f_.ready && has_marker(first_at_, ready)) {
        f_.ready = true;
        f_.ready_lineno = lineno;
    }
}

BootFacts FactsWalk::finish() {
    BootFacts f = std::move(f_);
    for (auto& [name, pids] : procs_) f.processes[name] = std::vector<long long>(pids.begin(), pids.end());
    // selected_backend repeats by design (one line per attention group): not a conflict.
    for (auto& [name, vals] : seen_)
        if (vals.size() > 1 && name != "selected_backend" && !summed(name) && !last_wins(name))
            f.conflicts.emplace_back(name, vals);
    if (f.server_args) parse::sglang_settings(f, seen_);
    if (f.engine == "trtllm") {
        parse::trtllm_settings(f, trt_args_line_);
        f.served_in_log = served_;
        if (trt_info_ && served_) f.pauses = pauses_;
    }
    if (f.non_default_args) {
        const Json& args = *f.non_default_args;
        auto rb = args.find("attention_backend");
        f.requested_backend =
            (rb == args.end() || rb->is_null()) ? std::nullopt : std::optional<std::string>(py_str(*rb));
        auto spec = args.find("speculative_config");
        f.speculative = spec != args.end() && !spec->is_null();
        auto eager = args.find("enforce_eager");
        if (!f.cudagraphs.has_value() && eager != args.end() && py_truthy(*eager)) f.cudagraphs = false;
    }
    if (!f.cudagraphs.has_value() && f.cudagraph_actual_gib) f.cudagraphs = true;
    return f;
}

}  // namespace detail

std::optional<std::string> detail::log_engine(const Engine* found, const Engine* named) {
    if (found) return found->key;
    if (named) return named->key;
    return std::nullopt;
}

BootFacts parse_boot_log(std::string_view text, const Engine* named) {
    detail::FactsWalk walk(detail::log_engine(from_log(text), named));
    detail::for_each_line(text, [&](std::string_view raw, long long lineno) { walk.line(raw, lineno); });
    return walk.finish();
}

}  // namespace inferlint::parse
