// The boot-log parsers' patterns: std::regex, run only where a match can start, and
// walked without it where the pattern is plain enough that the walk finds the same match.
#include "bootlog_text.hpp"

#include <stdexcept>

namespace inferlint::parse::detail {

namespace {

bool rx_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// The bytes of \d \w \s (and their complements \D \W \S) as std::regex reads them in the C
// locale; false for any other letter.
bool rx_class_escape(char e, std::array<bool, 256>& in) {
    std::array<bool, 256> set{};
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        switch (e) {
            case 'd':
            case 'D':
                set[b] = c >= '0' && c <= '9';
                break;
            case 'w':
            case 'W':
                set[b] = rx_alnum(c) || c == '_';
                break;
            case 's':
            case 'S':
                set[b] = c == ' ' || (c >= '\t' && c <= '\r');
                break;
            default:
                return false;
        }
        if (e == 'D' || e == 'W' || e == 'S') set[b] = !set[b];
        in[b] = in[b] || set[b];
    }
    return true;
}

// A class at p[i] (\d and the like, or [...] without ranges): its bytes, and where it ends.
std::optional<std::array<bool, 256>> rx_class_at(std::string_view p, std::size_t i, std::size_t& end) {
    std::array<bool, 256> in{};
    if (i + 1 < p.size() && p[i] == '\\') {
        if (!rx_class_escape(p[i + 1], in)) return std::nullopt;
        end = i + 2;
        return in;
    }
    if (i >= p.size() || p[i] != '[') return std::nullopt;
    std::size_t j = i + 1;
    const bool negate = j < p.size() && p[j] == '^';
    if (negate) ++j;
    if (j < p.size() && p[j] == ']') return std::nullopt;  // "[]", "[^]": not read here
    while (j < p.size() && p[j] != ']') {
        char c = p[j];
        std::size_t next = j + 1;
        if (c == '\\') {
            if (next >= p.size()) return std::nullopt;
            const char e = p[next];
            next = j + 2;
            if (rx_alnum(e)) {
                if (!rx_class_escape(e, in)) return std::nullopt;
                j = next;
                continue;
            }
            c = e;
        } else if (c == '[') {
            return std::nullopt;  // [:alpha:] and the like
        }
        if (next + 1 < p.size() && p[next] == '-' && p[next + 1] != ']') return std::nullopt;  // a range
        in[static_cast<unsigned char>(c)] = true;
        j = next;
    }
    if (j >= p.size()) return std::nullopt;
    if (negate)
        for (auto& b : in) b = !b;
    end = j + 1;
    return in;
}

}  // namespace

std::string literal_prefix(std::string_view pattern) {
    // An alternative anywhere could start a match without the text: none then.
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        char c = pattern[i];
        if (c == '\\') {
            ++i;
        } else if (c == '[') {
            in_class = true;
        } else if (c == ']') {
            in_class = false;
        } else if (c == '|' && !in_class) {
            return {};
        }
    }
    std::string out;
    std::size_t i = 0;
    if (pattern.starts_with("\\b")) i = 2;  // zero-width: the match starts where the text does
    while (i < pattern.size()) {
        char c = pattern[i];
        std::size_t next = i + 1;
        char lit;
        if (c == '\\') {
            if (next >= pattern.size()) break;
            char d = pattern[next];
            // \d \w \s \b \1 ... are classes, assertions or references; \( \. \+ are the character.
            if (rx_alnum(d)) break;
            lit = d;
            next = i + 2;
        } else if (std::string_view("^$.|?*+()[]{}").find(c) != std::string_view::npos) {
            break;
        } else {
            lit = c;
        }
        // A quantifier after it makes this character optional or repeated: stop before it.
        if (next < pattern.size() && std::string_view("?*+{").find(pattern[next]) != std::string_view::npos) break;
        out += lit;
        i = next;
    }
    return out;
}

std::optional<std::vector<Regex::Step>> pattern_steps(std::string_view p, std::size_t& groups) {
    std::vector<Regex::Step> out;
    groups = 0;
    std::size_t i = 0;
    // A run: class, then + or *, then (in a group) the closing parenthesis.
    auto run_at = [&](std::size_t at, int group) -> bool {
        std::size_t j = 0;
        auto in = rx_class_at(p, at, j);
        if (!in || j >= p.size() || (p[j] != '+' && p[j] != '*')) return false;
        Regex::Step s;
        s.in = *in;
        s.min = p[j] == '+' ? 1 : 0;
        s.group = group;
        ++j;
        if (group) {
            if (j >= p.size() || p[j] != ')') return false;
            ++j;
        }
        out.push_back(std::move(s));
        i = j;
        return true;
    };
    while (i < p.size()) {
        const char c = p[i];
        if (c == '(') {
            if (i + 1 < p.size() && p[i + 1] == '?') return std::nullopt;
            if (!run_at(i + 1, static_cast<int>(++groups))) return std::nullopt;
            continue;
        }
        if (c == '$') {
            if (i + 1 != p.size()) return std::nullopt;
            Regex::Step s;
            s.end = true;
            out.push_back(std::move(s));
            break;
        }
        const bool class_escape =
            c == '\\' && i + 1 < p.size() && std::string_view("dDwWsS").find(p[i + 1]) != std::string_view::npos;
        if (c == '[' || class_escape) {
            if (!run_at(i, 0)) return std::nullopt;
            continue;
        }
        char lit = c;
        std::size_t next = i + 1;
        if (c == '\\') {
            if (next >= p.size() || rx_alnum(p[next])) return std::nullopt;
            lit = p[next];
            next = i + 2;
        } else if (std::string_view("^.|?*+)]{}").find(c) != std::string_view::npos) {
            return std::nullopt;
        }
        if (next < p.size() && std::string_view("?*+{").find(p[next]) != std::string_view::npos) return std::nullopt;
        if (out.empty() || out.back().text.empty()) out.emplace_back();
        out.back().text += lit;
        i = next;
    }
    if (out.empty() || out.front().text.empty()) return std::nullopt;
    // Each run ends where its class does, or the walk could differ from the backtracking.
    for (std::size_t k = 0; k < out.size(); ++k) {
        if (!out[k].text.empty() || out[k].end || k + 1 == out.size()) continue;
        const Regex::Step& after = out[k + 1];
        if (after.end) continue;
        if (after.text.empty() || out[k].in[static_cast<unsigned char>(after.text[0])]) return std::nullopt;
    }
    return out;
}

Regex::Regex(const char* pattern)
    : rx(pattern, std::regex::ECMAScript | std::regex::optimize), literal(literal_prefix(pattern)) {
    if (rx.mark_count() + 1 > Match::kMost) throw std::logic_error("Regex: too many groups");
    std::size_t n = 0;
    steps = pattern_steps(pattern, n);
    groups = steps ? n : rx.mark_count();
}

bool Regex::steps_at(std::string_view text, std::size_t at, Match& m) const {
    m.reset(groups + 1, at);
    std::size_t pos = at;
    for (const Step& s : *steps) {
        if (s.end) {
            if (pos != text.size()) return false;
        } else if (!s.text.empty()) {
            if (text.compare(pos, s.text.size(), s.text) != 0) return false;
            pos += s.text.size();
        } else {
            std::size_t e = pos;
            while (e < text.size() && s.in[static_cast<unsigned char>(text[e])]) ++e;
            if (e - pos < s.min) return false;
            if (s.group) m.set(static_cast<std::size_t>(s.group), text.substr(pos, e - pos));
            pos = e;
        }
    }
    m.set(0, text.substr(at, pos - at));
    return true;
}

namespace {

void from_cmatch(const std::cmatch& cm, const char* window, Match& m) {
    m.reset(cm.size(), static_cast<std::size_t>(cm[0].first - window));
    for (std::size_t i = 0; i < cm.size(); ++i)
        if (cm[i].matched) m.set(i, std::string_view(cm[i].first, static_cast<std::size_t>(cm[i].length())));
}

}  // namespace

namespace {

template <class T, class Read>
std::optional<T> group_as(std::string_view line, const Regex& rx, std::size_t at, Read read) {
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    return read(group(m, 1));
}

}  // namespace

std::optional<std::string> group_text(std::string_view line, const Regex& rx, std::size_t at) {
    return group_as<std::string>(line, rx, at, [](std::string_view g) { return std::optional(std::string(g)); });
}
std::optional<long long> group_int(std::string_view line, const Regex& rx, std::size_t at) {
    return group_as<long long>(line, rx, at, to_int);
}
std::optional<double> group_float(std::string_view line, const Regex& rx, std::size_t at) {
    return group_as<double>(line, rx, at, to_float);
}
std::optional<long long> group_int_commas(std::string_view line, const Regex& rx, std::size_t at) {
    return group_as<long long>(line, rx, at, to_int_commas);
}
std::optional<double> group_float_commas(std::string_view line, const Regex& rx, std::size_t at) {
    return group_as<double>(line, rx, at, to_float_commas);
}
bool matches(std::string_view line, const Regex& rx, std::size_t at) {
    Match m;
    return search_bounded(line, rx, m, at);
}

bool search_bounded(std::string_view line, const Regex& rx, Match& m, std::size_t near) {
    if (line.size() > kRegexWindow) {
        if (near == std::string_view::npos) near = 0;
        std::size_t from = near > kRegexWindow / 4 ? near - kRegexWindow / 4 : 0;
        line = line.substr(from, kRegexWindow);
    }
    const char* end = line.data() + line.size();
    std::cmatch cm;
    if (rx.literal.empty()) {
        if (!std::regex_search(line.data(), end, cm, rx.rx)) return false;
        from_cmatch(cm, line.data(), m);
        return true;
    }
    // regex_search tries each start in turn, the first one as the text's beginning and the
    // others with the character before them in view: the same, only at the starts that can match.
    for (auto p = line.find(rx.literal); p != std::string_view::npos; p = line.find(rx.literal, p + 1)) {
        if (rx.steps) {
            if (rx.steps_at(line, p, m)) return true;
            continue;
        }
        auto flags = std::regex_constants::match_continuous;
        if (p > 0) flags |= std::regex_constants::match_prev_avail;
        if (std::regex_search(line.data() + p, end, cm, rx.rx, flags)) {
            from_cmatch(cm, line.data(), m);
            return true;
        }
    }
    return false;
}

}  // namespace inferlint::parse::detail
