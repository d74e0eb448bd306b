// What every engine's boot log shares: prefixes, colour codes, numbers as Python reads
// them, and the facts' JSON form.
#include "bootlog_text.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/pyliteral.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace inferlint::parse {

namespace detail {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

// Length of the valid UTF-8 sequence at s[i], or 0 when the byte starts none.
static std::size_t utf8_len(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogate
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;
    if (c == 0xF4 && b(i + 1) >= 0x90) return 0;
    return n;
}

std::string_view first_chars(std::string_view s, std::size_t max_chars) {
    std::size_t i = 0, count = 0;
    while (i < s.size() && count < max_chars) {
        std::size_t n = utf8_len(s, i);
        i += n ? n : 1;  // an invalid byte is one replacement character
        ++count;
    }
    return s.substr(0, i);
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8_len(s, i);
        if (n) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

std::optional<double> to_float(std::string_view s) {
    // What [\d.]+ captured: Python's float() takes one dot at most and a digit somewhere.
    std::size_t dots = 0, digits = 0;
    for (char c : s) {
        if (c == '.')
            ++dots;
        else if (is_digit(c))
            ++digits;
        else
            return std::nullopt;
    }
    if (dots > 1 || digits == 0) return std::nullopt;
    return std::strtod(std::string(s).c_str(), nullptr);
}

std::optional<long long> to_int(std::string_view s) {
    long long v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

static std::string without_commas(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != ',') out += c;
    return out;
}

std::optional<double> to_float_commas(std::string_view s) { return to_float(without_commas(s)); }
std::optional<long long> to_int_commas(std::string_view s) { return to_int(without_commas(s)); }

double round2(double x) {
    // printf rounds the exact binary value half-even, as Python's round() does.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return std::strtod(buf, nullptr);
}

std::optional<Json> dict_after(std::string_view line, std::string_view prefix) {
    std::string_view body = util::text::trim(line, util::text::kPySpace);
    if (body.empty() || body.back() != '}') return std::nullopt;
    std::string needle = std::string(prefix) + "{";
    auto at = line.find(needle);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view literal = body.substr(at + prefix.size() - static_cast<std::size_t>(body.data() - line.data()));
    auto v = parse_py_literal(literal);
    if (!v || !v->is_object()) return std::nullopt;
    return v;
}

}  // namespace detail

std::string strip_ansi(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    detail::strip_ansi_into(out, line);
    return out;
}

namespace {
bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool two_digits(std::string_view s, std::size_t i) {
    return i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) &&
           std::isdigit(static_cast<unsigned char>(s[i + 1]));
}
}  // namespace

std::optional<detail::LogPrefix> detail::match_log_prefix(std::string_view s) {
    if (s.size() < 2 || s[0] != '(') return std::nullopt;
    char c0 = s[1];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_')) return std::nullopt;
    std::size_t i = 2;
    while (i < s.size() && (word_char(s[i]) || s[i] == ':')) ++i;
    LogPrefix p;
    p.proc = s.substr(1, i - 1);
    std::size_t sp = i;
    while (i < s.size() && ws(s[i])) ++i;
    if (i == sp || s.compare(i, 4, "pid=") != 0) return std::nullopt;
    i += 4;
    std::size_t d = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == d || i >= s.size() || s[i] != ')') return std::nullopt;
    auto pid = detail::to_int(s.substr(d, i - d));
    if (!pid) return std::nullopt;
    p.pid = *pid;
    log_prefix_rest(s, i + 1, p);
    return p;
}

// The rest of a prefix after "(proc pid=N)", which ends at `i`: where the message starts.
void detail::log_prefix_rest(std::string_view s, std::size_t i, LogPrefix& p) {
    while (i < s.size() && ws(s[i])) ++i;
    p.message_at = i;
    // optional: LEVEL MM-DD HH:MM:SS(.fff) [file.py:N]
    for (std::string_view level : {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}) {
        if (i >= s.size() || s[i] != level[0] || s.compare(i, level.size(), level) != 0) continue;
        std::size_t j = i + level.size(), w = j;
        while (j < s.size() && ws(s[j])) ++j;
        if (j == w) break;
        if (!(two_digits(s, j) && j + 2 < s.size() && s[j + 2] == '-' && two_digits(s, j + 3) && j + 5 < s.size() &&
              s[j + 5] == ' ' && two_digits(s, j + 6) && j + 8 < s.size() && s[j + 8] == ':' && two_digits(s, j + 9) &&
              j + 11 < s.size() && s[j + 11] == ':' && two_digits(s, j + 12)))
            break;
        j += 14;
        if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
            ++j;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
        w = j;
        while (j < s.size() && ws(s[j])) ++j;
        if (j == w || j >= s.size() || s[j] != '[') break;
        auto close = s.find(']', j);
        if (close == std::string_view::npos) break;
        j = close + 1;
        if (j < s.size() && ws(s[j])) ++j;
        p.message_at = j;
        break;
    }
}

std::string_view strip_log_prefix(std::string_view line) {
    auto p = detail::match_log_prefix(line);
    return p ? line.substr(p->message_at) : line;
}

std::optional<std::string> BootFacts::version() const {
    if (vllm_version && !vllm_version->empty()) return vllm_version;
    if (engine_version && !engine_version->empty()) return engine_version;
    if (server_version && !server_version->empty()) return server_version;
    return std::nullopt;
}

std::optional<Json> BootFacts::config_args() const {
    if (non_default_args) return non_default_args;
    if (!server_args) return std::nullopt;
    // SGLang draws its random seed afresh at every start: not part of the configuration.
    Json out = Json::object();
    for (const auto& [k, v] : server_args->items())
        if (k != "random_seed") out[k] = v;
    return out;
}

Json BootFacts::result_block() const {
    return Json{
        {"engine", or_null(engine)},
        {"runtime_version", or_null(version())},
        {"kv_pool_tokens", or_null(kv_pool_tokens)},
        {"attention_block_size", or_null(attention_block_size)},
        {"backend_requested", or_null(requested_backend)},
        {"backend_selected", selected_backends.empty() ? Json(nullptr) : Json(selected_backends.back())},
        {"drafter_backend", drafter_backends.empty() ? Json(nullptr) : Json(drafter_backends.back())},
        {"available_kv_cache_gib", or_null(available_kv_cache_gib)},
        {"cudagraph_actual_gib", or_null(cudagraph_actual_gib)},
        {"cudagraphs", or_null(cudagraphs)},
        {"speculative", or_null(speculative)},
        {"unparsed_lines", unparsed.size()},
    };
}

Json to_json(const BootFacts& f) {
    using B = BootFacts;
    Json j = members_json(
        f, member("engine", &B::engine), member("vllm_version", &B::vllm_version),
        member("engine_version", &B::engine_version), member("server_version", &B::server_version),
        member("non_default_args", &B::non_default_args), member("server_args", &B::server_args),
        member("page_size", &B::page_size), member("running_cap", &B::running_cap),
        member("running_cap_reason", &B::running_cap_reason), member("requested_running", &B::requested_running),
        member("requested_backend", &B::requested_backend), member("selected_backends", &B::selected_backends),
        member("drafter_backends", &B::drafter_backends), member("candidate_backends", &B::candidate_backends),
        member("attention_block_size", &B::attention_block_size),
        member("mamba_page_padding_pct", &B::mamba_page_padding_pct), member("kv_pool_tokens", &B::kv_pool_tokens),
        member("max_concurrency", &B::max_concurrency),
        member("max_concurrency_request_len", &B::max_concurrency_request_len),
        member("available_kv_cache_gib", &B::available_kv_cache_gib), member("model_load_gib", &B::model_load_gib),
        member("model_load_s", &B::model_load_s), member("cudagraphs", &B::cudagraphs),
        member("cudagraph_estimated_gib", &B::cudagraph_estimated_gib),
        member("cudagraph_actual_gib", &B::cudagraph_actual_gib));
    j["cudagraph_mode_downgrade"] =
        f.cudagraph_mode_downgrade
            ? Json::array({f.cudagraph_mode_downgrade->first, f.cudagraph_mode_downgrade->second})
            : Json(nullptr);
    j.update(members_json(f, member("consumed_gib", &B::consumed_gib),
                          member("peak_activation_gib", &B::peak_activation_gib), member("compile_s", &B::compile_s),
                          member("compiled_fresh", &B::compiled_fresh), member("pauses", &B::pauses),
                          member("served_in_log", &B::served_in_log), member("speculative", &B::speculative),
                          member("ready", &B::ready), member("ready_lineno", &B::ready_lineno)));
    Json procs = Json::object();
    for (const auto& [name, pids] : f.processes) procs[name] = pids;
    j["processes"] = procs;
    Json unparsed = Json::array();
    for (const auto& u : f.unparsed)
        unparsed.push_back(Json{{"field", u.field}, {"lineno", u.lineno}, {"line", u.line}});
    j["unparsed"] = unparsed;
    Json conflicts = Json::object();
    for (const auto& [name, vals] : f.conflicts) conflicts[name] = vals;
    j["conflicts"] = conflicts;
    j["lines"] = f.lines;
    return j;
}

namespace {

// from_log reads this much of a log's head; the binary test the first 64 KiB.
constexpr std::size_t kHeadBytes = 200000;
constexpr std::size_t kPiece = std::size_t{1} << 20;

// Whether a line is one Prometheus sample, "name{labels} value [timestamp]" or "name value"
// (a /metrics dump pasted without its # HELP and # TYPE lines).
bool prometheus_sample(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    auto name_char = [](char c, bool first) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
               (!first && c >= '0' && c <= '9');
    };
    std::size_t i = 0;
    while (i < line.size() && name_char(line[i], i == 0)) ++i;
    if (i == 0 || i >= line.size()) return false;
    if (line[i] == '{') {
        const auto close = line.rfind('}');
        if (close == std::string_view::npos || close < i) return false;
        i = close + 1;
    }
    if (i >= line.size() || line[i] != ' ') return false;
    std::string_view rest = line.substr(i + 1);
    std::string_view value = rest.substr(0, rest.find(' '));
    std::string_view stamp = value.size() < rest.size() ? rest.substr(value.size() + 1) : std::string_view();
    auto number = [](std::string_view v) {
        if (v == "NaN" || v == "+Inf" || v == "-Inf") return true;
        if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
        bool digit = false;
        for (char c : v) {
            if (c >= '0' && c <= '9')
                digit = true;
            else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+')
                return false;
        }
        return digit;
    };
    return number(value) && (stamp.empty() || (number(stamp) && stamp.find('.') == std::string_view::npos));
}

// Why a file's head is plainly some other kind of file than an engine's text log, or
// nothing. A log's first line is a log line: never a JSON value, never Prometheus's
// exposition text, never 200 KB without a line break.
std::optional<std::string> bootlog_other_kind(std::string_view head, bool whole_file) {
    const auto first = head.find_first_not_of(" \t\r\n\f\v\xEF\xBB\xBF");
    if (first == std::string_view::npos) return std::nullopt;
    // SGLang's and TensorRT-LLM's lines begin with '[' too ("[2026-11-29 10:12:01]",
    // "[TensorRT-LLM]"); a JSON array's first item never begins like a log stamp.
    const std::string_view line = head.substr(first, head.find('\n', first) - first);
    const auto item = line.find_first_not_of(" \t\r", 1);
    const bool json_array =
        line[0] == '[' && (item == std::string_view::npos ||
                           std::string_view("{[\"]").find(line[item]) != std::string_view::npos || Json::accept(line));
    if (line[0] == '{' || json_array)
        return std::string("a JSON file, not a boot log (inferlint reads the engine's text log)");
    if (head.substr(first).starts_with("# HELP ") || head.substr(first).starts_with("# TYPE ") ||
        prometheus_sample(line))
        return std::string("Prometheus metrics text, not a boot log");
    if (!whole_file && head.find('\n') == std::string_view::npos)
        return fmt::format("no line break in its first {} bytes: not a boot log", head.size());
    return std::nullopt;
}

}  // namespace

std::optional<BootLogScan> scan_boot_log_file(const std::filesystem::path& path, const Engine* named,
                                              const std::function<bool(const Engine*)>& accept,
                                              const std::function<void(std::string_view, long long)>& each_line) {
    util::InputFile in(path);

    // The buffer holds the unfinished last line of one piece and the next piece; it grows
    // only for a line longer than itself.
    std::string buf(kPiece, '\0');
    std::size_t len = 0;
    bool eof = false;
    // Reads until the buffer holds `until` bytes or the file ends (a pipe gives less per read).
    auto fill = [&](std::size_t until) {
        while (!eof && len < until) {
            std::size_t got = in.read_some(buf.data() + len, buf.size() - len);
            if (got == 0) eof = true;
            len += got;
        }
    };
    fill(kHeadBytes);
    std::string_view head(buf.data(), len);
    if (head.empty()) throw InputError(fmt::format("{}: empty file", path.string()));
    if (util::looks_binary(head)) throw InputError(fmt::format("{}: not a text log (binary data)", path.string()));
    if (auto other = bootlog_other_kind(head, eof)) throw InputError(fmt::format("{}: {}", path.string(), *other));

    BootLogScan out;
    out.found = from_log(head);
    if (accept && !accept(out.found)) return std::nullopt;
    detail::FactsWalk facts(detail::log_engine(out.found, named));
    detail::FailureWalk failure;
    detail::LineScan scan;  // each line is looked at once, for both walks
    long long lineno = 0;
    auto each = [&](std::string_view raw, long long n) {
        scan.read(raw);
        facts.line(scan, n);
        failure.line(scan, n);
        if (each_line) each_line(raw, n);
    };
    for (;;) {
        std::size_t used = detail::split_lines(std::string_view(buf.data(), len), eof, lineno, each);
        if (eof) break;
        std::memmove(buf.data(), buf.data() + used, len - used);
        len -= used;
        if (len == buf.size()) buf.resize(buf.size() * 2);
        // A full buffer each time, so an unfinished line is walked again only when the
        // buffer doubles.
        fill(buf.size());
    }
    out.facts = facts.finish();
    out.failure = failure.finish();
    return out;
}

BootFacts parse_boot_log_file(const std::filesystem::path& path, const Engine* named) {
    return std::move(scan_boot_log_file(path, named)->facts);
}

std::optional<std::string> untested_version(const BootFacts& facts) {
    auto v = facts.version();
    const Engine& e = by_key(facts.engine.value_or(""));
    // SGLang's log prints no version: say so, rather than nothing (the server tells it).
    if (!v && facts.engine == "sglang") {
        std::string tested;
        for (const auto& t : e.tested) tested += (tested.empty() ? "" : ", ") + t;
        return fmt::format(
            "{}'s log states no version (tested: {}); if a check says Can't tell or a value looks wrong, check "
            "the release (GET /get_server_info on the server, or pip show sglang) and report it if it is another.",
            e.name, tested);
    }
    if (!v) return std::nullopt;
    for (const auto& t : e.tested)
        if (*v == t || v->rfind(t + ".", 0) == 0) return std::nullopt;
    std::string tested;
    for (const auto& t : e.tested) tested += (tested.empty() ? "" : ", ") + t;
    return fmt::format(
        "{} {} is not a tested version (tested: {}). If a check says Can't tell or a value looks "
        "wrong, a log line or metric may have changed: please report it.",
        e.name, *v, tested);
}

std::vector<std::string> log_labels(const std::vector<std::filesystem::path>& paths) {
    std::vector<std::vector<std::string>> parts;
    std::size_t deepest = 1;
    for (const auto& p : paths) {
        std::vector<std::string> x;
        for (const auto& part : p) {
            std::string s = part.string();
            if (s.empty()) continue;  // a trailing separator
            x.push_back(s);
        }
        deepest = std::max(deepest, x.size());
        parts.push_back(std::move(x));
    }
    for (std::size_t depth = 1; depth <= deepest; ++depth) {
        std::vector<std::string> out;
        for (const auto& x : parts) {
            std::string label;
            std::size_t from = x.size() > depth ? x.size() - depth : 0;
            // "/".join(parts) as Python does, root included ("//a/b" at full depth).
            for (std::size_t i = from; i < x.size(); ++i) label += (i > from ? "/" : "") + x[i];
            out.push_back(label);
        }
        if (std::set<std::string>(out.begin(), out.end()).size() == out.size()) return out;
    }
    std::vector<std::string> out;
    for (const auto& p : paths) out.push_back(p.string());
    return out;
}

}  // namespace inferlint::parse
