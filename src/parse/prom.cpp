#include "inferlint/parse/prom.hpp"

#include "inferlint/util/error.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace inferlint::prom {

std::optional<std::string_view> Sample::label(std::string_view key) const {
    for (const auto& [k, v] : labels)
        if (k == key) return std::string_view(v);
    return std::nullopt;
}

Metrics::Metrics(std::vector<Sample> samples) : samples_(std::move(samples)) {
    for (std::size_t i = 0; i < samples_.size(); ++i) by_name_[samples_[i].name].push_back(i);
}

std::vector<std::string> Metrics::names() const {
    std::vector<std::string> out;
    out.reserve(by_name_.size());
    for (const auto& [k, _] : by_name_) out.push_back(k);
    std::sort(out.begin(), out.end());
    return out;
}

bool Metrics::has(std::string_view name) const { return by_name_.count(std::string(name)) > 0; }

std::vector<const Sample*> Metrics::select(std::string_view name, const LabelFilter& labels) const {
    std::vector<const Sample*> out;
    auto it = by_name_.find(std::string(name));
    if (it == by_name_.end()) return out;
    for (std::size_t i : it->second) {
        const Sample& s = samples_[i];
        bool ok = std::all_of(labels.begin(), labels.end(), [&](const auto& kv) {
            auto v = s.label(kv.first);
            return v && *v == kv.second;
        });
        if (ok) out.push_back(&s);
    }
    return out;
}

std::optional<double> Metrics::total(std::string_view name, const LabelFilter& labels) const {
    auto found = select(name, labels);
    if (found.empty()) return std::nullopt;
    // SGLang with --enable-priority-scheduling exports its running and waiting gauges once in
    // total (priority="") and once per priority (sglang/srt/metrics/collector.py): the total
    // series only, or every request would be counted twice.
    const bool has_total =
        std::any_of(found.begin(), found.end(), [](const Sample* s) { return s->label("priority") == ""; });
    if (has_total)
        std::erase_if(found, [](const Sample* s) {
            auto p = s->label("priority");
            return p && !p->empty();
        });
    // Kahan-Babuska summation, close to Python's math.fsum for the sizes seen here.
    double sum = 0.0, comp = 0.0;
    for (const Sample* s : found) {
        double t = sum + s->value;
        comp += std::fabs(sum) >= std::fabs(s->value) ? (sum - t) + s->value : (s->value - t) + sum;
        sum = t;
    }
    return sum + comp;
}

std::optional<double> Metrics::single(std::string_view name, const LabelFilter& labels) const {
    auto found = select(name, labels);
    if (found.empty()) return std::nullopt;
    if (found.size() > 1) {
        std::string sets;
        for (const Sample* s : found) {
            std::string one;
            for (const auto& [k, v] : s->labels) one += fmt::format("{}{}={}", one.empty() ? "" : ",", k, v);
            sets += fmt::format("{}{{{}}}", sets.empty() ? "" : ", ", one);
        }
        throw std::runtime_error(fmt::format("{} matches {} series ({}); narrow the labels", name, found.size(), sets));
    }
    return found.front()->value;
}

std::optional<std::map<std::string, std::string>> Metrics::info(std::string_view name,
                                                                const LabelFilter& labels) const {
    auto found = select(name, labels);
    if (found.empty()) return std::nullopt;
    return std::map<std::string, std::string>(found.front()->labels.begin(), found.front()->labels.end());
}

std::vector<const Sample*> Metrics::with_prefix(std::string_view prefix) const {
    std::vector<const Sample*> out;
    for (const auto& s : samples_)
        if (s.name.starts_with(prefix)) out.push_back(&s);
    return out;
}

namespace {

// ASCII, as std::isalpha in the "C" locale this program keeps, without a call per byte
// (a sixth of a /metrics parse went to isalpha).
bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool name_start(char c) { return letter(c) || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || digit(c); }
bool label_start(char c) { return letter(c) || c == '_'; }
bool label_char(char c) { return label_start(c) || digit(c); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string shorten(std::string_view s, std::size_t n) {
    std::string out(s.substr(0, n));
    if (s.size() > n) out.append("...");
    return out;
}

// Parses `k="v", k2="v2"` (the body between braces) into `out`, or only checks it when
// `out` is nullptr. False on a malformed set.
bool parse_labels(std::string_view body, Labels* out) {
    std::size_t i = 0;
    auto skip = [&] {
        while (i < body.size() && space(body[i])) ++i;
    };
    skip();
    while (i < body.size()) {
        if (!label_start(body[i])) return false;
        std::size_t k0 = i;
        while (i < body.size() && label_char(body[i])) ++i;
        const std::string_view key = body.substr(k0, i - k0);
        skip();
        if (i >= body.size() || body[i] != '=') return false;
        ++i;
        skip();
        if (i >= body.size() || body[i] != '"') return false;
        ++i;
        std::string val;
        bool closed = false;
        while (i < body.size()) {
            // Up to the next quote or escape in one piece.
            std::size_t plain = i;
            while (plain < body.size() && body[plain] != '"' && body[plain] != '\\') ++plain;
            if (out) val.append(body.substr(i, plain - i));
            i = plain;
            if (i >= body.size()) break;
            char c = body[i];
            if (c == '\\') {
                if (i + 1 >= body.size()) return false;
                char n = body[i + 1];
                if (n == '\\')
                    val += '\\';
                else if (n == '"')
                    val += '"';
                else if (n == 'n')
                    val += '\n';
                else
                    val += {'\\', n};  // unknown escapes are kept as written
                i += 2;
            } else {  // the closing quote
                ++i;
                closed = true;
                break;
            }
        }
        if (!closed) return false;
        if (out) out->emplace_back(std::string(key), std::move(val));
        skip();
        if (i < body.size()) {
            if (body[i] != ',') return false;
            ++i;
            skip();
        }
    }
    if (out) std::sort(out->begin(), out->end());
    return true;
}

}  // namespace

std::optional<double> parse_value(std::string_view text) {
    if (text.empty()) return std::nullopt;
    if (digit(text.front())) {
        // The usual "12.0", "1.5e-05": no sign, no Inf or NaN, nothing lowering changes
        // (from_chars reads 'E' as 'e'), so read as it stands.
        double v = 0.0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && ptr == text.data() + text.size()) return v;
        return std::nullopt;
    }
    std::string lower;
    lower.reserve(text.size());
    for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view t = lower;
    bool neg = false;
    std::string_view body = t;
    if (body.front() == '+' || body.front() == '-') {
        neg = body.front() == '-';
        body.remove_prefix(1);
    }
    if (body == "inf" || body == "infinity")
        return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (body == "nan") return std::numeric_limits<double>::quiet_NaN();
    double v = 0.0;
    // from_chars rejects a leading '+', so parse the body and apply the sign.
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec != std::errc() || ptr != body.data() + body.size()) {
        // Python's float() also takes '1_000'; Prometheus never writes that, so refuse it.
        return std::nullopt;
    }
    return neg ? -v : v;
}

bool parse(std::string_view text, Metrics& out, ParseError& error, const NameFilter* only) {
    std::vector<Sample> samples;
    std::size_t lineno = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view raw = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++lineno;
        if (nl == text.size() && raw.empty()) break;
        std::string_view line = util::text::trim(raw);
        if (line.empty() || line.front() == '#') continue;
        auto bad = [&](std::string what) {
            error = ParseError{lineno, std::move(what)};
            return false;
        };
        auto not_sample = [&] { return bad(fmt::format("not a Prometheus sample: '{}'", shorten(line, 120))); };
        if (!name_start(line.front())) return not_sample();
        std::size_t i = 0;
        while (i < line.size() && name_char(line[i])) ++i;
        const std::string_view name = line.substr(0, i);
        const bool kept = !only || std::find(only->begin(), only->end(), name) != only->end();
        Sample s;
        if (kept) s.name = std::string(name);
        if (i < line.size() && line[i] == '{') {
            // The label set ends at the last '}' of the line (values may hold braces).
            auto close = line.rfind('}');
            if (close == std::string_view::npos || close < i) return not_sample();
            std::string_view body = line.substr(i + 1, close - i - 1);
            if (!parse_labels(util::text::trim(body), kept ? &s.labels : nullptr))
                return bad(fmt::format("malformed label set: {{{}}}", shorten(body, 120)));
            i = close + 1;
        }
        if (i >= line.size() || !space(line[i])) return not_sample();
        while (i < line.size() && space(line[i])) ++i;
        std::size_t v0 = i;
        while (i < line.size() && !space(line[i])) ++i;
        auto value = parse_value(line.substr(v0, i - v0));
        if (!value) return not_sample();
        while (i < line.size() && space(line[i])) ++i;
        if (i < line.size()) {
            // An optional integer timestamp, then nothing.
            std::size_t t0 = i;
            if (line[i] == '-') ++i;
            std::size_t digits = i;
            while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
            if (i == digits || (i < line.size() && !space(line[i]))) return not_sample();
            (void)t0;
            while (i < line.size() && space(line[i])) ++i;
            if (i < line.size()) return not_sample();
        }
        if (!kept) continue;
        s.value = *value;
        samples.push_back(std::move(s));
    }
    out = Metrics(std::move(samples));
    return true;
}

Metrics parse_or_throw(std::string_view text, std::string_view source, const NameFilter* only) {
    Metrics m;
    ParseError e;
    if (!parse(text, m, e, only)) throw InputError(fmt::format("{}: line {}: {}", source, e.lineno, e.what));
    return m;
}

}  // namespace inferlint::prom
