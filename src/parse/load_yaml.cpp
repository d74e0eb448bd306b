// The block YAML that GuideLLM (benchmarks.yaml) and inference-perf's converters write, read
// into the same JSON value the JSON form gives, so one reader serves both: mappings,
// sequences ("- " items, inline "- key: value" mappings, a sequence at its key's indent),
// plain and quoted scalars that run over several lines, {} and [], full-line comments and
// "---". Anchors, tags, flow collections with content and block scalars (| >) are not
// read: such a text is not taken (nullopt), and the dispatcher says what it looked like.
#include "load_json.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace inferlint::loadjson {

namespace {

struct Line {
    int indent;
    std::string_view text;
};

struct NotYaml : std::runtime_error {
    NotYaml() : std::runtime_error("not the YAML subset") {}
};

constexpr int kMaxDepth = 128;

Json scalar(std::string_view s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    if (s == "{}") return Json::object();
    if (s == "[]") return Json::array();
    if (s == ".inf" || s == ".Inf") return std::numeric_limits<double>::infinity();
    if (s == "-.inf") return -std::numeric_limits<double>::infinity();
    if (s == ".nan" || s == ".NaN") return nullptr;  // unmeasured: absent
    if (s.front() == '{' || s.front() == '[' || s.front() == '&' || s.front() == '*' || s.front() == '!' ||
        s.front() == '|' || s.front() == '>')
        throw NotYaml();
    if (s.find_first_not_of("0123456789+-.eE") == std::string_view::npos) {
        Json n = Json::parse(s.front() == '+' ? s.substr(1) : s, nullptr, false);
        if (!n.is_discarded() && n.is_number()) return n;
    }
    return std::string(s);
}

class Parser {
public:
    explicit Parser(std::vector<Line> lines) : l_(std::move(lines)) {}
    Json document() {
        if (l_.empty()) throw NotYaml();
        Json v = node(l_[0].indent, 0);
        if (i_ != l_.size()) throw NotYaml();
        return v;
    }

private:
    std::vector<Line> l_;
    std::size_t i_ = 0;

    static bool is_item(std::string_view t) { return t == "-" || t.starts_with("- "); }
    // "key: rest" or "key:"; npos when the line is no mapping entry.
    static std::size_t colon(std::string_view t) {
        if (t.empty() || t.front() == '"' || t.front() == '\'') return std::string_view::npos;
        for (std::size_t k = 0; k < t.size(); ++k)
            if (t[k] == ':' && (k + 1 == t.size() || t[k + 1] == ' ')) return k;
        return std::string_view::npos;
    }

    Json node(int indent, int depth) {
        if (depth > kMaxDepth) throw NotYaml();
        if (is_item(l_[i_].text)) return sequence(indent, depth);
        if (colon(l_[i_].text) != std::string_view::npos) return mapping(indent, depth);
        std::string_view first = l_[i_].text;
        ++i_;
        return value_text(first, indent);
    }

    // A scalar starting with `first`, continued on the lines indented past `indent`.
    Json value_text(std::string_view first, int indent) {
        std::string text(first);
        while (i_ < l_.size() && l_[i_].indent > indent) text += " " + std::string(l_[i_++].text);
        if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
            Json s = Json::parse(text, nullptr, false);  // YAML's double quotes escape as JSON's
            if (s.is_discarded() || !s.is_string()) throw NotYaml();
            return s;
        }
        if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
            std::string out;
            for (std::size_t k = 1; k + 1 < text.size(); ++k) {
                out += text[k];
                if (text[k] == '\'' && text[k + 1] == '\'') ++k;
            }
            return out;
        }
        if (text.front() == '"' || text.front() == '\'') throw NotYaml();
        return scalar(text);
    }

    // The value after "key:" or "- ": inline, nested deeper, or (for a key) a sequence at
    // the key's own indent.
    Json value_after(std::string_view rest, int indent, int depth) {
        if (!rest.empty()) return value_text(rest, indent);
        if (i_ < l_.size() && l_[i_].indent > indent) return node(l_[i_].indent, depth + 1);
        if (i_ < l_.size() && l_[i_].indent == indent && is_item(l_[i_].text)) return sequence(indent, depth + 1);
        return nullptr;
    }

    Json mapping(int indent, int depth) {
        Json m = Json::object();
        while (i_ < l_.size() && l_[i_].indent == indent && !is_item(l_[i_].text)) {
            std::string_view t = l_[i_].text;
            std::size_t c = colon(t);
            if (c == std::string_view::npos) throw NotYaml();
            std::string key(t.substr(0, c));
            std::string_view rest = c + 1 < t.size() ? t.substr(c + 2) : std::string_view{};
            ++i_;
            m[key] = value_after(rest, indent, depth);
        }
        if (i_ < l_.size() && l_[i_].indent > indent) throw NotYaml();
        return m;
    }

    Json sequence(int indent, int depth) {
        Json s = Json::array();
        while (i_ < l_.size() && l_[i_].indent == indent && is_item(l_[i_].text)) {
            std::string_view rest = l_[i_].text.size() > 2 ? l_[i_].text.substr(2) : std::string_view{};
            if (colon(rest) != std::string_view::npos) {
                // "- key: value": a mapping whose first line starts after the dash.
                l_[i_] = {indent + 2, rest};
                s.push_back(mapping(indent + 2, depth + 1));
                continue;
            }
            ++i_;
            s.push_back(value_after(rest, indent, depth));
        }
        return s;
    }
};

}  // namespace

std::optional<Json> try_yaml(std::string_view text) {
    std::vector<Line> lines;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        std::size_t ind = line.find_first_not_of(' ');
        if (ind == std::string_view::npos || line[ind] == '#' || line == "---") continue;
        if (line[ind] == '\t') return std::nullopt;
        lines.push_back({static_cast<int>(ind), line.substr(ind)});
    }
    try {
        Json doc = Parser(std::move(lines)).document();
        if (!doc.is_object()) return std::nullopt;
        return doc;
    } catch (const NotYaml&) {
        return std::nullopt;
    }
}

}  // namespace inferlint::loadjson
