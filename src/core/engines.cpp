#include "inferlint/core/engines.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace inferlint {

std::string Engine::witness(std::string_view counter) const {
    for (const auto& [c, w] : witnesses)
        if (c == counter) return w;
    return {};
}

namespace {

Engine make_vllm() {
    Engine e{.id = EngineId::vllm, .key = "vllm", .name = "vLLM", .prefix = "vllm:", .metrics = {}};
    e.metrics = MetricNames{
        .running = "vllm:num_requests_running",
        .waiting = "vllm:num_requests_waiting",
        .kv_usage = "vllm:kv_cache_usage_perc",
        .preemptions = "vllm:num_preemptions_total",
        .generation_tokens = "vllm:generation_tokens_total",
        .prompt_tokens = "vllm:prompt_tokens_total",
        .request_success = "vllm:request_success_total",
        .e2e_latency = "vllm:e2e_request_latency_seconds",
        .first_token = "vllm:time_to_first_token_seconds",
        .queue_time = "vllm:request_queue_time_seconds",
        .cache_info = "vllm:cache_config_info",
        .finished_reason_label = "finished_reason",
        // Exported only when the server runs with --speculative-config (0.28: num_drafts
        // counts one per request per verified step).
        .spec_drafts = "vllm:spec_decode_num_drafts_total",
        .spec_accepted_tokens = "vllm:spec_decode_num_accepted_tokens_total",
        .prefix_cache_hits = "vllm:prefix_cache_hits_total",
        .prefix_cache_queries = "vllm:prefix_cache_queries_total",
    };
    e.tested = {"0.28", "0.29", "0.30"};
    e.preemption = "preemption";
    e.serve = "vllm serve";
    e.metrics_hint = "vLLM serves them at /metrics without a flag; check that the address is the server's";
    e.no_prefix_cache = "start vLLM with --no-enable-prefix-caching";
    return e;
}

Engine make_sglang() {
    Engine e{.id = EngineId::sglang, .key = "sglang", .name = "SGLang", .prefix = "sglang:", .metrics = {}};
    // Verified on SGLang 0.5.20 with --enable-metrics; it calls a preemption a retraction.
    e.metrics = MetricNames{
        .running = "sglang:num_running_reqs",
        .waiting = "sglang:num_queue_reqs",
        .kv_usage = "sglang:token_usage",
        .preemptions = "sglang:num_retracted_requests_total",
        .generation_tokens = "sglang:generation_tokens_total",
        .prompt_tokens = "sglang:prompt_tokens_total",
        .request_success = "sglang:num_requests_total",
        .e2e_latency = "sglang:e2e_request_latency_seconds",
        .first_token = "sglang:time_to_first_token_seconds",
        .queue_time = "sglang:queue_time_seconds",
        .pool_tokens = "sglang:max_total_num_tokens",
        .page_size = "sglang:page_size",
        // 0.5.20 exports it always, 0.0 without speculative decoding: accepted drafts plus
        // the bonus token per forward, over the last logged batch.
        .spec_accept_length = "sglang:spec_accept_length",
        // 0.5.20: labelled cache_source="device", written from the first hit on
        .prefix_cache_hits = "sglang:cached_tokens_total",
        .uncached_prompt_tokens = "sglang:uncached_prompt_tokens_histogram",
    };
    e.tested = {"0.5.20"};
    e.preemption = "retraction";
    e.serve = "sglang serve";
    // The retraction counter appears at the first retraction; the gauge exists from the start.
    e.witnesses = {{"sglang:num_retracted_requests_total", "sglang:num_retracted_reqs"}};
    e.logs_preemptions = true;
    e.metrics_hint = "start SGLang with --enable-metrics";
    e.no_prefix_cache = "start SGLang with --disable-radix-cache";
    e.default_port = 30000;
    // 0.5.20: 3 changes of generation_tokens_total in 193 readings of a 32-request run.
    e.tokens_at_finish = true;
    return e;
}

Engine make_trtllm() {
    Engine e{.id = EngineId::trtllm, .key = "trtllm", .name = "TensorRT-LLM", .prefix = "trtllm_", .metrics = {}};
    // Verified on 1.3.0rc29 at /prometheus/metrics with return_perf_metrics; gauges only
    // with enable_iter_perf_stats too. It pauses where vLLM preempts and counts none.
    e.metrics = MetricNames{
        .running = "trtllm_num_requests_running",
        .waiting = "trtllm_num_requests_waiting",
        .kv_usage = "trtllm_kv_cache_utilization",
        .preemptions = "",
        .generation_tokens = "trtllm_generation_tokens_total",
        .prompt_tokens = "trtllm_prompt_tokens_total",
        .request_success = "trtllm_request_success_total",
        .e2e_latency = "trtllm_e2e_request_latency_seconds",
        .first_token = "trtllm_time_to_first_token_seconds",
        .queue_time = "trtllm_request_queue_time_seconds",
        .finished_reason_label = "finished_reason",
        .paused = "trtllm_num_paused_requests",
        // Newer than 1.3.0rc29 (tensorrt_llm/metrics/collector.py, from specDecodingStats
        // .acceptanceLength): the mean tokens a step accepted, with speculative decoding only.
        // T18 reads it as SGLang's spec_accept_length.
        .spec_accept_length = "trtllm_spec_decode_acceptance_length",
        .prefix_cache_hits = "trtllm_prompt_cached_tokens_total",
        .cache_reused_blocks = "trtllm_kv_cache_reused_blocks_total",
        .cache_missed_blocks = "trtllm_kv_cache_missed_blocks_total",
    };
    e.tested = {"1.3"};
    e.preemption = "pause";
    e.serve = "trtllm-serve";
    // "MaxUtilizationScheduler: request ID N -> pause", at INFO
    e.logs_preemptions = true;
    // 1.3.0rc29: the stats collector sleeps until a request completes, then logs every step.
    e.gauges_lag = true;
    e.metrics_hint =
        "put 'return_perf_metrics: true' and 'enable_iter_perf_stats: true' in the YAML file given "
        "to trtllm-serve --config; it then serves them at /prometheus/metrics";
    e.gauges_hint =
        "TensorRT-LLM serves its running, waiting and KV gauges only with 'enable_iter_perf_stats: "
        "true' in the YAML file given to trtllm-serve --config";
    e.tokens_at_finish = true;
    // 1.3.0rc29: the reused-block counter appears at the first reuse, the missed one at the first request.
    e.witnesses = {{"trtllm_kv_cache_reused_blocks_total", "trtllm_kv_cache_missed_blocks_total"}};
    e.no_prefix_cache =
        "put 'kv_cache_config: {enable_block_reuse: false}' in the YAML file given to trtllm-serve --config";
    return e;
}

}  // namespace

const Engine& vllm() {
    static const Engine e = make_vllm();
    return e;
}
const Engine& sglang() {
    static const Engine e = make_sglang();
    return e;
}
const Engine& trtllm() {
    static const Engine e = make_trtllm();
    return e;
}

const std::vector<const Engine*>& all_engines() {
    static const std::vector<const Engine*> all{&vllm(), &sglang(), &trtllm()};
    return all;
}

const Engine& engine(EngineId id) {
    switch (id) {
        case EngineId::vllm:
            return vllm();
        case EngineId::sglang:
            return sglang();
        case EngineId::trtllm:
            return trtllm();
    }
    return vllm();
}

const Engine& by_key(std::string_view key) {
    for (const Engine* e : all_engines())
        if (e->key == key) return *e;
    return vllm();
}

const Engine* parse_key(std::string_view value) {
    std::string v = util::text::lower(value);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
    for (const Engine* e : all_engines())
        if (v == e->key || v == util::text::lower(e->name)) return e;
    return nullptr;
}

const Engine* named_by(const std::vector<std::string>& names) {
    std::array<std::size_t, 3> counts{};
    const auto& engines = all_engines();
    for (const auto& n : names)
        for (std::size_t i = 0; i < engines.size(); ++i)
            if (n.starts_with(engines[i]->prefix)) ++counts[i];
    std::size_t best = 0;
    for (std::size_t i = 1; i < counts.size(); ++i)
        if (counts[i] > counts[best]) best = i;
    return counts[best] ? engines[best] : nullptr;
}

std::optional<std::vector<std::string>> shell_split(std::string_view cmd) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    for (std::size_t i = 0; i < cmd.size(); ++i) {
        char c = cmd[i];
        if (c == '\'') {
            auto end = cmd.find('\'', i + 1);
            if (end == std::string_view::npos) return std::nullopt;
            cur.append(cmd.substr(i + 1, end - i - 1));
            i = end;
            in_word = true;
        } else if (c == '"') {
            std::size_t j = i + 1;
            for (; j < cmd.size() && cmd[j] != '"'; ++j) {
                if (cmd[j] == '\\' && j + 1 < cmd.size() &&
                    (cmd[j + 1] == '"' || cmd[j + 1] == '\\' || cmd[j + 1] == '$' || cmd[j + 1] == '`')) {
                    ++j;
                }
                cur.push_back(cmd[j]);
            }
            if (j >= cmd.size()) return std::nullopt;
            i = j;
            in_word = true;
        } else if (c == '\\') {
            if (i + 1 >= cmd.size()) return std::nullopt;
            cur.push_back(cmd[++i]);
            in_word = true;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            if (in_word) out.push_back(std::move(cur));
            cur.clear();
            in_word = false;
        } else {
            cur.push_back(c);
            in_word = true;
        }
    }
    if (in_word) out.push_back(std::move(cur));
    return out;
}

const Engine* from_command(const std::vector<std::string>& argv) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string tok = argv[i];
        std::replace(tok.begin(), tok.end(), '\\', '/');
        std::string name = tok.substr(tok.rfind('/') == std::string::npos ? 0 : tok.rfind('/') + 1);
        const std::string next = i + 1 < argv.size() ? argv[i + 1] : std::string();
        if (name == "trtllm-serve") return &trtllm();
        if (next == "serve") {
            if (name == "vllm") return &vllm();
            if (name == "sglang") return &sglang();
        }
        if (argv[i] == "-m") {
            for (auto [module, e] :
                 {std::pair{"vllm", &vllm()}, std::pair{"sglang", &sglang()}, std::pair{"tensorrt_llm", &trtllm()}}) {
                std::string m = module;
                if (next == m || next.starts_with(m + ".")) return e;
            }
        }
    }
    return nullptr;
}

const Engine* from_command(std::string_view shell_command) {
    auto argv = shell_split(shell_command);
    return argv ? from_command(*argv) : nullptr;
}

namespace {

// A word character as std::regex's \b reads one in the C locale: [A-Za-z0-9_].
bool engine_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `word` (which starts with a word character) occurs where \b holds before it and
// `then(text, end)` holds after it: a literal search in place of a regex, which took about
// 0.1 s over a 200 KB head.
template <typename Then>
bool engine_word_at(std::string_view text, std::string_view word, Then then) {
    for (auto p = text.find(word); p != std::string_view::npos; p = text.find(word, p + 1))
        if ((p == 0 || !engine_word_char(text[p - 1])) && then(text, p + word.size())) return true;
    return false;
}

bool engine_mark_in(std::string_view text, std::string_view s) { return text.find(s) != std::string_view::npos; }
bool engine_any_end(std::string_view, std::size_t) { return true; }
bool engine_word_end(std::string_view t, std::size_t e) { return e == t.size() || !engine_word_char(t[e]); }
bool engine_dot_or_slash(std::string_view t, std::size_t e) { return e < t.size() && (t[e] == '.' || t[e] == '/'); }

// SGLang's scheduler prefix "[2026-01-23 09:10:36 TP0] " (sglang/srt/utils: the rank is
// appended to the time stamp), at the start of a line.
bool sglang_rank_prefix_at(std::string_view t, std::size_t p) {
    // "[YYYY-MM-DD HH:MM:SS TP" is 24 bytes; then digits and "]".
    if (t.size() < p + 26 || t[p] != '[' || t[p + 5] != '-' || t[p + 11] != ' ' || t[p + 14] != ':') return false;
    if (t.compare(p + 20, 3, " TP") != 0 && t.compare(p + 20, 3, " DP") != 0 && t.compare(p + 20, 3, " PP") != 0)
        return false;
    std::size_t i = p + 23;
    const std::size_t d = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > d && i < t.size() && (t[i] == ']' || t[i] == ' ');
}

// vLLM's own logger format "INFO 05-26 21:34:14 [gpu_worker.py:621] " (vllm/logger.py:
// "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d]"), at the start of a line.
bool vllm_logger_prefix_at(std::string_view t, std::size_t p) {
    for (std::string_view level : {"INFO ", "WARNING ", "ERROR ", "DEBUG "}) {
        if (t.compare(p, level.size(), level) != 0) continue;
        const std::size_t s = p + level.size();
        // "MM-DD HH:MM:SS [x.py:N]"
        if (t.size() < s + 16 || t[s + 2] != '-' || t[s + 5] != ' ' || t[s + 8] != ':' || t[s + 14] != ' ' ||
            t[s + 15] != '[')
            return false;
        const auto close = t.find(']', s + 16);
        const auto nl = t.find('\n', s + 16);
        if (close == std::string_view::npos || (nl != std::string_view::npos && nl < close)) return false;
        return t.substr(s + 16, close - s - 16).find(".py:") != std::string_view::npos;
    }
    return false;
}

// Where each line of `text` starts after the wrappers people paste logs through: a
// "grep -n" number ("137:"), a journald prefix ("Aug 24 01:02:31 host unit[959645]: ").
std::size_t after_wrappers(std::string_view t, std::size_t p) {
    std::size_t i = p;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i > p && i < t.size() && (t[i] == ':' || t[i] == '-')) p = i + 1;
    // journald: "Mon DD HH:MM:SS host ident[pid]: "
    if (t.size() > p + 16 && t[p + 3] == ' ' && t[p + 9] == ':' && t[p + 12] == ':' && t[p + 15] == ' ') {
        const auto colon = t.find("]: ", p + 16);
        const auto nl = t.find('\n', p + 16);
        if (colon != std::string_view::npos && (nl == std::string_view::npos || colon < nl)) return colon + 3;
    }
    return p;
}

// The engine whose start-up lines or log prefix the text's lines carry.
const Engine* from_log_lines(std::string_view head) {
    // Lines only one engine prints (as of vLLM 0.31, SGLang 0.5.2x, TensorRT-LLM 1.1-1.3).
    for (std::string_view m :
         {"[TRT-LLM] [", "[TRT-LLM AUTO-DEPLOY]", "TensorRT-LLM version:", "TensorRT LLM version:"})
        if (engine_mark_in(head, m)) return &trtllm();
    for (std::string_view m :
         {"KV Cache is allocated.", "Load weight end.", "Memory pool end.", "DSV4 memory calculation",
          "The server is fired up and ready to roll", "max_total_num_tokens="})
        if (engine_mark_in(head, m)) return &sglang();
    for (std::string_view m : {"GPU KV cache size:", "XPU KV cache size:", "Maximum concurrency for",
                               "Model loading took", "CUDA graph pool memory:"})
        if (engine_mark_in(head, m)) return &vllm();
    std::size_t sglang_lines = 0, vllm_lines = 0;
    for (std::size_t p = 0; p < head.size();) {
        std::size_t at = after_wrappers(head, p);
        // vLLM's process prefix "(Worker_TP1 pid=188958) " before its logger's.
        if (at < head.size() && head[at] == '(') {
            const auto close = head.find(") ", at);
            const auto pid = head.find(" pid=", at);
            const auto nl = head.find('\n', at);
            if (close != std::string_view::npos && pid != std::string_view::npos && pid < close &&
                (nl == std::string_view::npos || close < nl))
                at = close + 2;
        }
        if (sglang_rank_prefix_at(head, at))
            ++sglang_lines;
        else if (vllm_logger_prefix_at(head, at))
            ++vllm_lines;
        const auto nl = head.find('\n', p);
        if (nl == std::string_view::npos) break;
        p = nl + 1;
    }
    if (sglang_lines > vllm_lines) return &sglang();
    if (vllm_lines > 0) return &vllm();
    return nullptr;
}
}  // namespace

const Engine* from_log(std::string_view text) {
    // Lines only one engine prints at start-up, in the order they are tried. Not a bare
    // "tensorrt_llm/": FlashInfer ships kernels under .../tensorrt_llm/ too. Each test is
    // one of these patterns, read literally:
    //   TensorRT-LLM  \[TensorRT-LLM\]|\btrtllm-serve\b|\btensorrt_llm/(?:llmapi|serve|_torch|commands)/
    //   SGLang        \bserver_args=\{|\bsglang[./]|sglang::
    //   vLLM          Initializing a V1 LLM engine|\bvllm[./]|VLLM::|\(EngineCore pid=
    const std::string_view head = text.substr(0, 200000);
    auto trt_module = [](std::string_view t, std::size_t e) {
        std::string_view rest = t.substr(e);
        for (std::string_view m : {"llmapi/", "serve/", "_torch/", "commands/"})
            if (rest.starts_with(m)) return true;
        return false;
    };
    if (engine_mark_in(head, "[TensorRT-LLM]") || engine_word_at(head, "trtllm-serve", engine_word_end) ||
        engine_word_at(head, "tensorrt_llm/", trt_module))
        return &trtllm();
    if (engine_word_at(head, "server_args={", engine_any_end) || engine_word_at(head, "sglang", engine_dot_or_slash) ||
        engine_mark_in(head, "sglang::"))
        return &sglang();
    if (engine_mark_in(head, "Initializing a V1 LLM engine") || engine_word_at(head, "vllm", engine_dot_or_slash) ||
        engine_mark_in(head, "VLLM::") || engine_mark_in(head, "(EngineCore pid="))
        return &vllm();
    // Fragments without those lines (users paste the part that matters): lines only one
    // engine's start-up prints, then its log prefix.
    return from_log_lines(head);
}

}  // namespace inferlint
