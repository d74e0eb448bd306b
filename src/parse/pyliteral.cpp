#include "inferlint/parse/pyliteral.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace inferlint::parse {

namespace {

struct Fail {
    std::size_t at;
    std::string what;
};

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // a lone surrogate cannot be UTF-8
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp <= 0x10FFFF) {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += "\xEF\xBF\xBD";
    }
}

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Recursive descent with a depth limit; errors unwind as Fail.
class Parser {
public:
    explicit Parser(std::string_view s) : s_(s) {}

    Json parse_all() {
        Json v = value(0);
        skip_space();
        if (p_ != s_.size()) fail("text after the value");
        return v;
    }

private:
    std::string_view s_;
    std::size_t p_ = 0;

    [[noreturn]] void fail(std::string what) const { throw Fail{p_, std::move(what)}; }
    bool at_end() const { return p_ >= s_.size(); }
    char peek(std::size_t ahead = 0) const { return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0'; }

    void skip_space() {
        while (!at_end()) {
            char c = s_[p_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                ++p_;
            } else if (c == '\\' && (peek(1) == '\n' || peek(1) == '\r')) {
                p_ += 2;  // explicit line continuation
            } else if (c == '#') {
                while (!at_end() && s_[p_] != '\n') ++p_;
            } else {
                break;
            }
        }
    }

    void expect(char c) {
        skip_space();
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++p_;
    }

    Json value(int depth) {
        if (depth > kPyLiteralMaxDepth) fail("nested too deeply");
        skip_space();
        if (at_end()) fail("expected a value");
        char c = s_[p_];
        if (c == '[') return sequence(depth, ']');
        if (c == '(') return sequence(depth, ')');
        if (c == '{') return braces(depth);
        if (c == '-' || c == '+') {
            ++p_;
            skip_space();
            Json v = number();
            if (c == '-') negate(v);
            return v;
        }
        if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return number();
        if (c == '.' && peek(1) == '.' && peek(2) == '.') {
            p_ += 3;
            return "Ellipsis";
        }
        if (c == '\'' || c == '"' || is_ident_start(c)) return name_or_string();
        fail("unexpected character");
    }

    static void negate(Json& v) {
        if (v.is_number_unsigned()) {
            auto u = v.get<std::uint64_t>();
            if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1)
                v = u == 0 ? Json(0) : Json(static_cast<std::int64_t>(0 - u));
            else
                v = -static_cast<double>(u);
        } else if (v.is_number_integer()) {
            v = -v.get<std::int64_t>();
        } else if (v.is_number_float()) {
            v = -v.get<double>();
        } else {
            v = "-" + v.get<std::string>();  // complex, kept as text
        }
    }

    Json number() {
        std::size_t start = p_;
        std::string digits;
        auto take_digits = [&](auto ok) {
            bool any = false;
            while (!at_end() && (ok(s_[p_]) || (s_[p_] == '_' && any && ok(peek(1))))) {
                if (s_[p_] != '_') digits += s_[p_];
                any = true;
                ++p_;
            }
            return any;
        };
        if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O' || peek(1) == 'b' ||
                              peek(1) == 'B')) {
            char kind = static_cast<char>(s_[p_ + 1] | 0x20);
            p_ += 2;
            if (peek() == '_') ++p_;
            int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
            bool any = take_digits([base](char c) {
                int v = hex_value(c);
                return v >= 0 && v < base;
            });
            if (!any) fail("bad number");
            std::uint64_t u = 0;
            auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
            if (r.ec != std::errc()) return std::strtod(("0x" + digits).c_str(), nullptr);
            return u;
        }
        bool is_float = false;
        take_digits(is_digit);
        if (peek() == '.') {
            is_float = true;
            digits += '.';
            ++p_;
            take_digits(is_digit);
        }
        if ((peek() == 'e' || peek() == 'E') &&
            (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
            is_float = true;
            digits += 'e';
            ++p_;
            if (peek() == '+' || peek() == '-') digits += s_[p_++];
            take_digits(is_digit);
        }
        if (digits.empty() || digits == ".") fail("bad number");
        if (peek() == 'j' || peek() == 'J') {
            ++p_;
            return std::string(s_.substr(start, p_ - start));  // complex: its text
        }
        if (is_ident_start(peek()) || is_digit(peek())) fail("bad number");
        if (!is_float) {
            if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
                fail("leading zeros in an integer");
            std::uint64_t u = 0;
            auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u);
            if (r.ec == std::errc()) {
                if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                    return static_cast<std::int64_t>(u);
                return u;
            }
        }
        return std::strtod(digits.c_str(), nullptr);
    }

    Json name_or_string() {
        std::size_t start = p_;
        while (!at_end() && (is_ident_start(s_[p_]) || is_digit(s_[p_]))) ++p_;
        std::string_view word = s_.substr(start, p_ - start);
        if (word.empty()) return strings(false, false, start);
        if (!at_end() && (s_[p_] == '\'' || s_[p_] == '"') && word.size() <= 2) {
            std::string lower;
            for (char c : word) lower += static_cast<char>(c | 0x20);
            if (lower == "r" || lower == "u" || lower == "b" || lower == "rb" || lower == "br") {
                bool raw = lower.find('r') != std::string::npos;
                bool bytes = lower.find('b') != std::string::npos;
                return strings(raw, bytes, start);
            }
            fail("unsupported string prefix");
        }
        if (word == "True") return true;
        if (word == "False") return false;
        if (word == "None") return nullptr;
        fail("not a literal: " + std::string(word.substr(0, 40)));
    }

    // One or more adjacent string literals, concatenated as Python does.
    Json strings(bool raw, bool bytes, std::size_t start) {
        std::string out = one_string(raw, bytes);
        for (;;) {
            std::size_t save = p_;
            skip_space();
            std::size_t q = p_;
            bool r2 = false, b2 = false;
            while (q < s_.size() && q - p_ < 2 && std::string_view("rRbBuU").find(s_[q]) != std::string_view::npos) {
                r2 |= (s_[q] | 0x20) == 'r';
                b2 |= (s_[q] | 0x20) == 'b';
                ++q;
            }
            if (q < s_.size() && (s_[q] == '\'' || s_[q] == '"')) {
                p_ = q;
                out += one_string(r2, b2);
            } else {
                p_ = save;
                break;
            }
        }
        if (bytes) return std::string(s_.substr(start, p_ - start));  // str(b'..') is its repr
        return out;
    }

    std::string one_string(bool raw, bool bytes) {
        char q = s_[p_];
        bool triple = peek(1) == q && peek(2) == q;
        p_ += triple ? 3 : 1;
        std::string out;
        for (;;) {
            if (at_end()) fail("unterminated string");
            char c = s_[p_];
            if (c == q) {
                if (!triple) {
                    ++p_;
                    return out;
                }
                if (peek(1) == q && peek(2) == q) {
                    p_ += 3;
                    return out;
                }
            }
            if ((c == '\n' || c == '\r') && !triple) fail("unterminated string");
            if (c != '\\') {
                out += c;
                ++p_;
                continue;
            }
            if (p_ + 1 >= s_.size()) fail("unterminated string");
            char e = s_[p_ + 1];
            if (raw) {
                out += c;
                out += e;
                p_ += 2;
                continue;
            }
            p_ += 2;
            escape(out, e, bytes);
        }
    }

    // One escape after a backslash (the backslash and `e` already consumed), as Python reads it.
    void escape(std::string& out, char e, bool bytes) {
        switch (e) {
            case '\n':
                break;
            case '\\':
                out += '\\';
                break;
            case '\'':
                out += '\'';
                break;
            case '"':
                out += '"';
                break;
            case 'a':
                out += '\a';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'v':
                out += '\v';
                break;
            case 'x':
                append_utf8(out, hex_escape(2));
                break;
            case 'u':
                if (bytes) {
                    out += "\\u";
                    break;
                }
                append_utf8(out, hex_escape(4));
                break;
            case 'U':
                if (bytes) {
                    out += "\\U";
                    break;
                }
                append_utf8(out, hex_escape(8));
                break;
            case 'N':
                fail("named unicode escapes are not supported");
            default:
                if (e >= '0' && e <= '7') {
                    std::uint32_t v = static_cast<std::uint32_t>(e - '0');
                    for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i)
                        v = v * 8 + static_cast<std::uint32_t>(s_[p_++] - '0');
                    append_utf8(out, v);
                } else {
                    out += '\\';  // unknown escapes stay as written
                    out += e;
                }
        }
    }

    std::uint32_t hex_escape(int n) {
        std::uint32_t v = 0;
        for (int i = 0; i < n; ++i) {
            int h = hex_value(peek());
            if (h < 0) fail("truncated \\x, \\u or \\U escape");
            v = v * 16 + static_cast<std::uint32_t>(h);
            ++p_;
        }
        return v;
    }

    // [a, b] and (a, b); "(a)" is a parenthesised value, not a tuple.
    Json sequence(int depth, char close) {
        ++p_;
        Json arr = Json::array();
        bool saw_comma = false;
        for (;;) {
            skip_space();
            if (peek() == close) {
                ++p_;
                break;
            }
            arr.push_back(value(depth + 1));
            skip_space();
            if (peek() == ',') {
                ++p_;
                saw_comma = true;
                continue;
            }
            if (peek() != close) fail(std::string("expected ',' or '") + close + "'");
        }
        if (close == ')' && arr.size() == 1 && !saw_comma) return arr[0];
        return arr;
    }

    static std::string key_text(const Json& k) {
        if (k.is_string()) return k.get<std::string>();
        if (k.is_boolean()) return k.get<bool>() ? "true" : "false";
        if (k.is_null()) return "null";
        if (k.is_number_float()) return py_float_repr(k.get<double>());
        if (k.is_number()) return k.dump();
        throw Fail{0, "a dict key that JSON cannot hold"};
    }

    Json braces(int depth) {
        ++p_;
        skip_space();
        if (peek() == '}') {
            ++p_;
            return Json::object();
        }
        Json first = value(depth + 1);
        skip_space();
        if (peek() != ':') return set_rest(depth, std::move(first));
        Json obj = Json::object();
        Json key = std::move(first);
        for (;;) {
            expect(':');
            if (key.is_array() || key.is_object()) fail("unhashable dict key");
            std::string k = key_text(key);
            obj[k] = value(depth + 1);
            skip_space();
            if (peek() == ',') {
                ++p_;
                skip_space();
            } else if (peek() != '}')
                fail("expected ',' or '}'");
            if (peek() == '}') {
                ++p_;
                return obj;
            }
            key = value(depth + 1);
        }
    }

    // A set literal: JSON has none, and json.dumps(default=str) writes its repr.
    Json set_rest(int depth, Json first) {
        std::string text = "{" + py_repr(first);
        for (;;) {
            skip_space();
            if (peek() == '}') {
                ++p_;
                break;
            }
            if (peek() != ',') fail("expected ',' or '}'");
            ++p_;
            skip_space();
            if (peek() == '}') {
                ++p_;
                break;
            }
            text += ", " + py_repr(value(depth + 1));
        }
        return text + "}";
    }
};

}  // namespace

std::optional<Json> parse_py_literal(std::string_view text, PyLiteralError* error) {
    try {
        Parser parser(text);
        return parser.parse_all();
    } catch (const Fail& f) {
        if (error) *error = PyLiteralError{f.at, f.what};
        return std::nullopt;
    }
}

}  // namespace inferlint::parse
