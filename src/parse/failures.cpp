#include "inferlint/parse/failures.hpp"

#include "bootlog_text.hpp"
#include "inferlint/parse/bootlog.hpp"

#include <array>
#include <cctype>
#include <regex>

namespace inferlint::parse {

namespace {

constexpr std::string_view kReady = "Application startup complete";
// vLLM tags every step of an orderly stop with "[shutdown]"; a server stopped from outside
// then logs tracebacks from half-closed pipes. A real crash comes before the shutdown it
// causes, so nothing from the first marker on is read.
constexpr std::string_view kShutdown = "[shutdown]";

using Rx = detail::Regex;
#define INFERLINT_RULE_RX(text) Rx(text)

struct Rule {
    FailureKind kind;
    std::array<std::string_view, 2> any_of;  // cheap test first: one of these must be in the line
                                             // (found by failure_needles(), then in the message)
    const Rx* rx = nullptr;                  // then this, if set; group 1 is the detail
    bool anchored = false;                   // the pattern starts at ^
};

const std::vector<Rule>& rules() {
    static const Rx ptxas = INFERLINT_RULE_RX(R"(\bptxas\b.*\bfatal\s*:\s*(.+))");
    static const Rx nvcc = INFERLINT_RULE_RX(R"(\bnvcc fatal\s*:\s*(.+))");
    static const Rx ld = INFERLINT_RULE_RX(R"(\bld: (cannot find .+))");
    static const Rx oom = INFERLINT_RULE_RX(R"(\bOutOfMemoryError\b|CUDA out of memory)");
    static const Rx accel = INFERLINT_RULE_RX(R"(\bAcceleratorError: (.+))");
    static const Rx cuda = INFERLINT_RULE_RX(R"(\bCUDA error: (.+))");
    static const Rx assertion = INFERLINT_RULE_RX(R"(^(?:\w+\.)*AssertionError\b:?(.*))");
    static const Rx value = INFERLINT_RULE_RX(R"(^(?:\w+\.)*ValueError: (.+))");
    static const Rx runtime = INFERLINT_RULE_RX(R"(^(?:\w+\.)*RuntimeError: (.+))");
    static const Rx other = INFERLINT_RULE_RX(R"(^(?!.*EngineDeadError)(?:\w+\.)*\w*(?:Error|Exception): (.+))");
    // A kernel build's own error first; "Ninja build failed" only says that a step failed.
    static const std::vector<Rule> all{
        {FailureKind::jit_toolchain, {"CUDA compiler and CUDA toolkit headers are incompatible", {}}},
        {FailureKind::jit_toolchain, {"ptxas", {}}, &ptxas},
        {FailureKind::jit_toolchain, {"nvcc fatal", {}}, &nvcc},
        {FailureKind::jit_toolchain, {"ld: cannot find ", {}}, &ld},
        {FailureKind::jit_toolchain, {"Ninja build failed", "ninja: build stopped"}},
        {FailureKind::out_of_memory, {"OutOfMemoryError", "CUDA out of memory"}, &oom},
        {FailureKind::kv_cache_too_small,
         {"No available memory for the cache blocks",
          "KV cache is needed, which is larger than the available KV cache memory"}},
        {FailureKind::accelerator_error, {"AcceleratorError: ", {}}, &accel},
        {FailureKind::cuda_error, {"CUDA error: ", {}}, &cuda},
        {FailureKind::assertion, {"AssertionError", {}}, &assertion, true},
        {FailureKind::value_error, {"ValueError: ", {}}, &value, true},
        {FailureKind::runtime_error, {"RuntimeError: ", {}}, &runtime, true},
        {FailureKind::unclassified_exception, {"Error: ", "Exception: "}, &other, true},
        {FailureKind::engine_dead, {"EngineDeadError", "EngineCore encountered a fatal error"}},
    };
    return all;
}

// Whether the rule matches, and its detail (the first rule's detail is its own text).
std::optional<std::string> match_rule(std::size_t index, const Rule& r, std::string_view line) {
    std::size_t at = std::string_view::npos;
    for (auto s : r.any_of)
        if (!s.empty() && (at = line.find(s)) != std::string_view::npos) break;
    if (at == std::string_view::npos) return std::nullopt;
    if (!r.rx) return index == 0 ? std::string(r.any_of[0]) : std::string();
    detail::Match m;
    if (!detail::search_bounded(line, *r.rx, m, r.anchored ? 0 : at)) return std::nullopt;
    if (r.anchored && m.position() != 0) return std::nullopt;
    return m.size() > 1 ? std::string(detail::group(m, 1)) : std::string();
}

// SGLang's own stamp, "[2026-10-01 00:42:50] " or "[2026-10-01 00:42:50 TP0] ", which
// strip_log_prefix leaves on. Python's pattern expects a bare "Prefill batch" and so
// misses every real SGLang batch line; here the stamp is skipped first.
std::string_view without_sglang_stamp(std::string_view line) {
    auto digits = [&](std::size_t at, std::size_t n) {
        for (std::size_t k = at; k < at + n; ++k)
            if (k >= line.size() || !std::isdigit(static_cast<unsigned char>(line[k]))) return false;
        return true;
    };
    // "[dddd-dd-dd dd:dd:dd"
    if (line.size() < 21 || line[0] != '[' || !digits(1, 4) || line[5] != '-' || !digits(6, 2) || line[8] != '-' ||
        !digits(9, 2) || line[11] != ' ' || !digits(12, 2) || line[14] != ':' || !digits(15, 2) || line[17] != ':' ||
        !digits(18, 2))
        return line;
    auto close = line.find(']', 20);
    if (close == std::string_view::npos || close > 64 || close + 1 >= line.size() || line[close + 1] != ' ')
        return line;
    return line.substr(close + 2);
}

// `may_have_post`, `may_have_batch`: whether "\"POST /" (count_served looks for it), and
// "Prefill batch" or "Decode batch", can be in the line at all.
bool kept_serving(std::string_view line, bool may_have_post, bool may_have_batch) {
    if (may_have_post && detail::count_served(line) > 0) return true;
    if (!may_have_batch) return false;
    line = without_sglang_stamp(line);
    for (std::string_view p : {"Prefill batch", "Decode batch"}) {
        if (line.substr(0, p.size()) == p) {
            char c = line.size() > p.size() ? line[p.size()] : ' ';
            bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            if (!word) return true;
        }
    }
    return false;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The `assert` statement a bare AssertionError came from: its message is empty, and the
// error after it can blame something else entirely.
std::string failed_assert(const detail::FailureWalk& before) {
    for (std::size_t k = 0; k < before.kept() && k < 3; ++k) {
        const std::string ln = before.back(k);
        if (starts_with(ln, "assert ")) return ln;
    }
    return {};
}

// Where a generic exception was raised, from the last traceback frame above it: the
// function often names the cause the message does not.
std::string raised_in(const detail::FailureWalk& before) {
    static const Rx frame = INFERLINT_RULE_RX(R"re(^File "([^"]+)", line (\d+), in (\S+))re");
    for (std::size_t k = 0; k < before.kept() && k < 6; ++k) {
        const std::string ln = before.back(k);
        if (!starts_with(ln, "File \"")) continue;
        detail::Match m;
        if (!detail::search_bounded(ln, frame, m) || m.position() != 0) continue;
        std::string file(detail::group(m, 1));
        for (char& c : file)
            if (c == '\\') c = '/';
        auto slash = file.rfind('/');
        std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
        return "in " + std::string(detail::group(m, 3)) + ", " + name + ":" + std::string(detail::group(m, 2));
    }
    return {};
}

}  // namespace

#undef INFERLINT_RULE_RX

std::string_view kind_value(FailureKind k) {
    switch (k) {
        case FailureKind::jit_toolchain:
            return "jit_toolchain";
        case FailureKind::out_of_memory:
            return "out_of_memory";
        case FailureKind::kv_cache_too_small:
            return "kv_cache_too_small";
        case FailureKind::accelerator_error:
            return "accelerator_error";
        case FailureKind::cuda_error:
            return "cuda_error";
        case FailureKind::assertion:
            return "assertion";
        case FailureKind::value_error:
            return "value_error";
        case FailureKind::runtime_error:
            return "runtime_error";
        case FailureKind::unclassified_exception:
            return "unclassified_exception";
        case FailureKind::engine_dead:
            return "engine_dead";
    }
    return "unclassified_exception";
}

std::string_view phase_value(FailurePhase p) { return p == FailurePhase::serving ? "serving" : "boot"; }

std::string Failure::summary() const {
    return std::string(kind_value(kind)) + " during " + std::string(phase_value(phase)) + ": " +
           (detail.empty() ? line : detail);
}

std::optional<long long> shutdown_lineno(std::string_view text) {
    std::optional<long long> at;
    detail::for_each_line(text, [&](std::string_view raw, long long lineno) {
        if (!at && raw.find(kShutdown) != std::string_view::npos) at = lineno;
    });
    return at;
}

// The strings the failure walk tests each line for, by index: the shutdown marker, what
// the message may start with, the ready line, a served request, then two per rule (its
// any_of; "" for none). A test needs its string in the line; without it, it is not made.
namespace {
enum FailureNeedle : std::size_t {
    shutdown_needle,
    start_ignored_needle,
    end_ignored_needle,
    ignore_import_needle,
    ready_needle,
    post_needle,
    prefill_needle,
    decode_needle,
    rule_needles
};
constexpr std::string_view kStartIgnored = "[start of ", kEndIgnored = "[end of ";
constexpr std::string_view kIgnoreImport = "Ignore import error";
}  // namespace

const std::vector<std::string_view>& detail::failure_needles() {
    static const std::vector<std::string_view> needles = [] {
        std::vector<std::string_view> v{kShutdown, kStartIgnored, kEndIgnored,     kIgnoreImport,
                                        kReady,    "\"POST /",    "Prefill batch", "Decode batch"};
        for (const auto& r : rules()) v.insert(v.end(), r.any_of.begin(), r.any_of.end());
        return v;
    }();
    return needles;
}

// One pass. Python's version tries each rule over every line; here each rule keeps its
// first candidate, and a candidate is dropped when something shows the server survived it
// (the ready line came later, or it answered a request afterwards).
detail::FailureWalk::FailureWalk() : hits_(rules().size()), needles_at_(facts_needles().size()) {}

void detail::FailureWalk::line(std::string_view raw, long long lineno) {
    if (stopped_) return;
    scan_.read(raw);
    line(scan_, lineno);
}

// The message of a line as the walk tests it: without prefix and surrounding space.
static std::string_view failure_message(const detail::LineScan& s) {
    return util::text::trim(s.message(), util::text::kPySpace);
}

// A terminal that hard-wraps a long line puts the rest on the next line with no log prefix,
// cut mid-word (field log vllm-unknown-xpu-arc-b70-...-fail-part2.log, wrapped at 119
// columns: "(4.26 GiB KV cach" / "e is needed, ..."). Such a line after a prefixed line of at
// least kWrapMinColumns characters, no longer than it and not indented, continues it.
static constexpr std::size_t kWrapMinColumns = 80;

static bool continues_wrapped(const detail::LineScan& s, std::size_t prev_len) {
    std::string_view raw = s.line();
    if (prev_len < kWrapMinColumns || s.prefix() || raw.empty() || raw.size() > prev_len) return false;
    const unsigned char c = static_cast<unsigned char>(raw.front());
    return !std::isspace(c) && raw.rfind("Traceback", 0) != 0;
}

void detail::FailureWalk::rejoin(const LineScan& s) {
    for (auto& h : hits_) {
        if (!h || h->lineno != wrap_from_) continue;
        const std::string rest =
            (wrap_at_space_ ? " " : "") + std::string(util::text::trim(s.line(), util::text::kPySpace));
        // The detail goes on only where it ran to the end of the wrapped line.
        const bool detail_at_end =
            !h->detail.empty() && h->line.size() >= h->detail.size() &&
            h->line.compare(h->line.size() - h->detail.size(), h->detail.size(), h->detail) == 0;
        h->line = valid_utf8(first_chars(h->line + rest, 300));
        if (detail_at_end) h->detail = valid_utf8(first_chars(h->detail + rest, 200));
    }
    // A piece as wide as the line before was wrapped too: the next one goes on.
    wrap_candidate_len_ = s.line().size() == wrap_candidate_len_ ? wrap_candidate_len_ : 0;
    wrap_at_space_ = std::isspace(static_cast<unsigned char>(s.line().back()));
}

void detail::FailureWalk::line(const LineScan& s, long long lineno) {
    if (stopped_) return;
    // The hits are found on the line without colour codes, which is where each test below
    // looks (the message is part of it), except the shutdown marker, looked for in the raw line.
    const NeedleHits& hits = s.hits();
    auto may_have = [&](std::size_t id) { return hits.has(needles_at_ + id); };
    if (s.ansi() ? s.raw().find(kShutdown) != std::string_view::npos : may_have(shutdown_needle)) {
        stopped_ = true;
        return;
    }
    // The rest of a failure line a terminal wrapped: the failure's line and detail go on.
    if (wrap_candidate_len_ && continues_wrapped(s, wrap_candidate_len_)) {
        rejoin(s);
        return;
    }
    wrap_candidate_len_ = 0;
    const auto& all = rules();
    // The message is read only where a test could pass.
    std::optional<std::string_view> message;
    bool blank = false;
    auto ln = [&]() -> std::string_view {
        if (blank) return {};
        if (!message) message = failure_message(s);
        return *message;
    };
    // Tracebacks the server says it ignores (SGLang's optional imports) are blanked.
    if (may_have(start_ignored_needle) && starts_with(ln(), kStartIgnored) &&
        ln().find("traceback]") != std::string_view::npos)
        inside_ignored_ = true;
    bool drop = inside_ignored_;
    if (!drop && may_have(ignore_import_needle)) {
        std::string_view m = ln();
        drop = starts_with(m, kIgnoreImport) &&
               (m.size() == 19 || !(std::isalnum(static_cast<unsigned char>(m[19])) || m[19] == '_'));
    }
    if (may_have(end_ignored_needle) && starts_with(ln(), kEndIgnored) &&
        ln().find("traceback]") != std::string_view::npos)
        inside_ignored_ = false;
    blank = drop;

    if (!ready_at_ && may_have(ready_needle) && ln().find(kReady) != std::string_view::npos) {
        ready_at_ = lineno;
        for (auto& h : hits_) h.reset();
    } else if (!ready_at_ || lineno > *ready_at_) {
        const bool may_post = may_have(post_needle), may_batch = may_have(prefill_needle) || may_have(decode_needle);
        if (ready_at_ && (may_post || may_batch) && kept_serving(ln(), may_post, may_batch))
            for (auto& h : hits_) h.reset();
        for (std::size_t r = 0; r < all.size(); ++r) {
            if (hits_[r]) continue;
            // None of the rule's strings in the line: it cannot match (the cheap test first).
            if (!may_have(rule_needles + 2 * r) && !may_have(rule_needles + 2 * r + 1)) continue;
            auto d = match_rule(r, all[r], ln());
            if (!d) continue;
            std::string detail_text(util::text::trim(*d, util::text::kPySpace));
            if (all[r].kind == FailureKind::assertion && detail_text.empty()) detail_text = failed_assert(*this);
            if (all[r].kind == FailureKind::unclassified_exception) {
                std::string where = raised_in(*this);
                if (!where.empty()) detail_text += " (" + where + ")";
            }
            hits_[r] = Failure{all[r].kind, ready_at_ ? FailurePhase::serving : FailurePhase::boot, lineno,
                               valid_utf8(first_chars(ln(), 300)), valid_utf8(first_chars(detail_text, 200))};
            if (s.prefix()) {
                wrap_from_ = lineno;
                wrap_candidate_len_ = s.line().size();
                wrap_at_space_ = !s.line().empty() && std::isspace(static_cast<unsigned char>(s.line().back()));
            }
        }
    }
    // The ring keeps each slot's buffer: no allocation per line once the lines are seen.
    Before& slot = before_[count_ % before_.size()];
    slot.raw.assign(s.raw());
    slot.blank = blank;
    ++count_;
}

std::string detail::FailureWalk::back(std::size_t k) const {
    const Before& b = before_[(count_ - 1 - k) % before_.size()];
    if (b.blank) return {};
    LineScan s;
    s.read(b.raw);
    return std::string(failure_message(s));
}

std::optional<Failure> detail::FailureWalk::finish() {
    for (auto& h : hits_)
        if (h) return std::move(h);
    return std::nullopt;
}

std::optional<Failure> classify_failure(std::string_view text) {
    detail::FailureWalk walk;
    detail::for_each_line(text, [&](std::string_view raw, long long lineno) { walk.line(raw, lineno); });
    return walk.finish();
}

}  // namespace inferlint::parse
