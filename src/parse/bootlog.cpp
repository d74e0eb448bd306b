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
// Some releases log them at DEBUG (TLLM_LOG_DEBUG("MaxUtilizationScheduler: request ID %lu
// -> pause") in cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp at NVIDIA/TensorRT-LLM
// cf6abc45df6e3470d8c378366896882e1f43e60c): a DEBUG line, Python's or C++'s, shows that
// level is on.
constexpr std::string_view kTrtDebugPy = "[TRT-LLM] [D]";
constexpr std::string_view kTrtDebugCpp = "[TensorRT-LLM][DEBUG]";
// What count_served and count_pauses look for first: without it a line has none.
constexpr std::string_view kServedMarker = "\"POST /";
constexpr std::string_view kPausedMarker = "request ID ";

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
        if (!v[1].is_null()) f.max_concurrency_request_len = v[1].get<long long>();
        if (!v[2].is_null()) f.max_concurrency = v[2].get<double>();
    } else if (name == "max_concurrency") {
        f.max_concurrency_request_len = v[0].get<long long>();
        f.max_concurrency = v[1].get<double>();
    } else if (name == "model_load") {
        f.model_load_gib = v[0].get<double>();
        if (!v[1].is_null()) f.model_load_s = v[1].get<double>();
    } else if (name == "sglang_kv_pool" || name == "trt_kv_pool") {
        f.kv_pool_tokens = v[0].get<long long>();
        f.available_kv_cache_gib = v[1].get<double>();
    } else if (name == "sglang_cudagraph_gib") {
        // [GB, rank, drafter]: the phases of the first rank that printed one (a TP log
        // prints every rank's), the drafter's apart.
        if (v[1] != it->second.front()[1]) return;
        auto& sum = v[2].get<bool>() ? f.realized.drafter_cudagraph_gib : f.cudagraph_actual_gib;
        sum = detail::round2(sum.value_or(0.0) + v[0].get<double>());
    } else if (name == "sglang_draft_backend") {
        f.drafter_backends.push_back(v.get<std::string>());
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
        if (auto it = v.find("kv_cache_dtype"); it != v.end() && !r.kv_cache_dtype)
            r.kv_cache_dtype = it->get<std::string>();
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
    } else if (name == "trt_kv_dtype_setting") {
        r.trt_kv_dtype_setting = v.get<std::string>();
    } else if (name == "trt_max_seq_len") {
        r.max_model_len = v.get<long long>();
    } else if (name == "vllm_cudagraph_memory_gib") {
        r.cudagraph_memory_gib = v.get<double>();
    } else if (name == "sglang_linear_backend") {
        r.linear_attention_backend = v.get<std::string>();
    } else if (name == "trt_attn_backend") {
        if (f.selected_backends.empty()) f.selected_backends.push_back(v.get<std::string>());
    } else if (name == "trt_weights_gib") {
        // 1.3 prints a later "after loading weights (inside torch)" line, which then holds.
        f.model_load_gib = v.get<double>();
    } else if (name == "vllm_stats_line") {
        ++r.stats_lines;
        if (v.is_number_integer()) r.logged_preemptions = r.logged_preemptions.value_or(0) + v.get<long long>();
    } else if (name == "vllm_model_runner_v2") {
        r.model_runner = "V2";
    } else if (name == "trt_no_draft") {
        if (!f.speculative) f.speculative = false;
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

// The anchors of every field, then these, in this order (facts_needles()).
enum class FactsMark : std::size_t {
    drafter,
    eager,
    ready,
    compiled,
    cached_compile,
    trt_info,
    served,
    paused,
    trt_debug_py,
    trt_debug_cpp
};

// `marks_at`: every_field().size(), where the marks' ids start.
bool has_marker(const detail::NeedleHits& hits, std::size_t marks_at, FactsMark m) {
    return hits.has(marks_at + static_cast<std::size_t>(m));
}

// The fields whose anchor is in the line, in the order of every_field() (`ids`: the hits
// below every_field().size(), sorted).
void offer_to_fields(BootFacts& f, std::string_view line, const detail::NeedleHits& hits,
                     const std::vector<std::uint16_t>& ids, long long lineno, Seen& seen, bool in_drafter) {
    const auto& fields = every_field();
    for (auto k : ids) {
        const detail::Field* fld = fields[k];
        auto at = hits.at(k);
        if (fld->anchor_check && !fld->anchor_check(line)) continue;
        bool read = false;
        for (auto pattern : fld->patterns) {
            if (auto v = pattern(line, at)) {
                if (fld->reference == detail::Reference::beyond)
                    record_realized(f, fld->name, *v);
                else
                    record(f, fld->name, *v, seen, in_drafter);
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
    bool default_backend =
        std::any_of(seen.begin(), seen.end(), [](const auto& e) { return e.first == "sglang_default_backend"; });
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

const std::vector<std::string_view>& facts_needles() {
    static const std::vector<std::string_view> needles = [] {
        std::vector<std::string_view> v;
        for (const auto* fld : every_field()) v.push_back(fld->anchor);
        for (auto m : {kDrafterMarker, kEagerMarker, kReadyMarker, kCompiledMarker, kCachedCompileMarker, kTrtInfo,
                       kServedMarker, kPausedMarker, kTrtDebugPy, kTrtDebugCpp})
            v.push_back(m);
        return v;
    }();
    return needles;
}

FactsWalk::FactsWalk(std::optional<std::string> engine) : marks_at_(every_field().size()) {
    f_.engine = std::move(engine);
    // Only a TensorRT-LLM log pays for counting its requests.
    is_trtllm_ = f_.engine == "trtllm";
}

void FactsWalk::line(std::string_view raw, long long lineno) {
    scan_.read(raw);
    line(scan_, lineno);
}

void FactsWalk::line(const LineScan& s, long long lineno) {
    const std::string_view raw = s.raw();
    const NeedleHits& hits = s.hits();
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
        // These read the raw line: the hits (found without colour codes) tell only where it has none.
        if (s.ansi() || has_marker(hits, marks_at_, FactsMark::served)) served_ += count_served(raw);
        if (s.ansi() || has_marker(hits, marks_at_, FactsMark::paused)) pauses_ += count_pauses(raw);
        const bool info =
            s.ansi() ? raw.find(kTrtInfo) != std::string_view::npos : has_marker(hits, marks_at_, FactsMark::trt_info);
        if (info) trt_info_ = true;
        if (has_marker(hits, marks_at_, FactsMark::trt_debug_py) || has_marker(hits, marks_at_, FactsMark::trt_debug_cpp) ||
            (s.ansi() && (raw.find(kTrtDebugPy) != std::string_view::npos ||
                          raw.find(kTrtDebugCpp) != std::string_view::npos)))
            f_.realized.trt_debug_lines = true;
    }

    const std::string_view line = s.line();
    if (has_marker(hits, marks_at_, FactsMark::drafter)) in_drafter_ = true;
    if (const auto& p = s.prefix(); p && (p->proc != last_proc_ || p->pid != last_pid_)) {
        procs_[std::string(p->proc)].insert(p->pid);
        last_proc_.assign(p->proc);
        last_pid_ = p->pid;
    }
    fields_hit_.clear();
    for (auto id : hits.found())
        if (id < marks_at_) fields_hit_.push_back(id);
    if (!fields_hit_.empty()) {
        std::sort(fields_hit_.begin(), fields_hit_.end());
        offer_to_fields(f_, line, hits, fields_hit_, lineno, seen_, in_drafter_);
    }
    if (has_marker(hits, marks_at_, FactsMark::eager)) f_.cudagraphs = false;
    if (has_marker(hits, marks_at_, FactsMark::compiled))
        f_.compiled_fresh = true;
    else if (has_marker(hits, marks_at_, FactsMark::cached_compile) && !f_.compiled_fresh.has_value())
        f_.compiled_fresh = false;
    if (!f_.ready && has_marker(hits, marks_at_, FactsMark::ready)) {
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
    fill_asked(f);
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
