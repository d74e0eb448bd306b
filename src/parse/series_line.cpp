// Sample lines through simdjson On-Demand. What a line reads as is what the reader before
// it gave (a plain scanner with nlohmann behind it), so that verdicts do not move:
//  - a line that is not one valid JSON object is skipped (nesting deeper than simdjson's
//    1024 levels included);
//  - a valid object with "schema" is a header, unless it is a plain sample line (numbers
//    and nulls only, with t_wall), which reads as a sample;
//  - NaN, Infinity and -Infinity (Python's json.dumps writes them) read as numbers on a
//    plain line only: for t_wall and the gauges, and -Infinity for a key it does not know;
//    never for t_mono_ns;
//  - the last of repeated keys wins; a field of the wrong type is an error, named in the
//    order t_wall, t_mono_ns, then the gauges.
#include "series_line.hpp"

#include <simdjson.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

namespace inferlint::series_line {

namespace od = simdjson::ondemand;

namespace {

enum class SlField { t_wall, t_mono_ns, running, waiting, kv_usage, preemptions, generation_tokens,
                     prompt_tokens, paused, other };
constexpr std::size_t kSlKnown = 9;
constexpr std::array<const char*, kSlKnown> kSlNames = {
    "t_wall", "t_mono_ns", "running", "waiting", "kv_usage", "preemptions", "generation_tokens",
    "prompt_tokens", "paused"};
constexpr int kSlMaxDepth = 1024;

SlField sl_field_of(std::string_view key) {
    switch (key.size()) {
        case 6: return key == "t_wall" ? SlField::t_wall : key == "paused" ? SlField::paused : SlField::other;
        case 7: return key == "running" ? SlField::running : key == "waiting" ? SlField::waiting : SlField::other;
        case 8: return key == "kv_usage" ? SlField::kv_usage : SlField::other;
        case 9: return key == "t_mono_ns" ? SlField::t_mono_ns : SlField::other;
        case 11: return key == "preemptions" ? SlField::preemptions : SlField::other;
        case 13: return key == "prompt_tokens" ? SlField::prompt_tokens : SlField::other;
        case 17: return key == "generation_tokens" ? SlField::generation_tokens : SlField::other;
        default: return SlField::other;
    }
}

enum class Got : unsigned char { absent, null, number, wrong };

// What one line's fields held, the last of repeated keys winning.
struct SlFields {
    std::array<Got, kSlKnown> got{};
    std::array<double, kSlKnown> value{};
    long long ns = 0;
    bool valid = true;      // still one well-formed JSON object
    bool plain = true;      // numbers and nulls only, plain keys, t_wall never null
    bool python_nan = false;  // a NaN/Infinity token was read
    bool schema = false;
};

std::string_view sl_trim_token(std::string_view t) {
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r' || t.back() == '\n'))
        t.remove_suffix(1);
    return t;
}

// Python's json.dumps spelling of a non-finite float; nullopt for any other token.
std::optional<double> sl_python_float(od::value& v) {
    std::string_view raw = sl_trim_token(v.raw_json_token());
    if (raw == "NaN") return std::nan("");
    if (raw == "Infinity") return HUGE_VAL;
    if (raw == "-Infinity") return -HUGE_VAL;
    return std::nullopt;
}

// Reads a value it does not keep all the way through, so a malformed one is seen.
bool sl_validate(od::value v, int depth) {
    if (depth > kSlMaxDepth) return false;
    od::json_type type;
    if (v.type().get(type)) return false;
    switch (type) {
        case od::json_type::object: {
            od::object obj;
            if (v.get_object().get(obj)) return false;
            for (auto field : obj) {
                std::string_view key;
                if (field.unescaped_key().get(key)) return false;
                if (!sl_validate(field.value(), depth + 1)) return false;
            }
            return true;
        }
        case od::json_type::array: {
            od::array arr;
            if (v.get_array().get(arr)) return false;
            for (auto item : arr) {
                od::value inner;
                if (item.get(inner)) return false;
                if (!sl_validate(inner, depth + 1)) return false;
            }
            return true;
        }
        case od::json_type::string: {
            std::string_view s;
            return !v.get_string().get(s);
        }
        case od::json_type::number: {
            double d;
            return !v.get_double().get(d);
        }
        case od::json_type::boolean: {
            bool b;
            return !v.get_bool().get(b);
        }
        case od::json_type::null: {
            bool is_null = false;
            return !v.is_null().get(is_null) && is_null;
        }
    }
    return false;
}

// A whole number of nanoseconds, as Python's int() takes a float.
std::optional<long long> sl_whole(double v) {
    if (!std::isfinite(v) || std::abs(v) >= 9.2e18) return std::nullopt;
    return static_cast<long long>(std::trunc(v));
}

enum class NsRead { ok, not_whole, invalid };

// t_mono_ns: an integer as it is (one past INT64_MAX wraps, as nlohmann's get<long long>
// did), a float truncated. A getter that fails does not consume the value, so the next
// one may try.
NsRead sl_read_ns(od::value& v, long long& out) {
    od::number_type type;
    if (v.get_number_type().get(type)) return NsRead::invalid;
    if (type == od::number_type::signed_integer) {
        int64_t i;
        if (!v.get_int64().get(i)) return out = i, NsRead::ok;
    } else if (type == od::number_type::unsigned_integer) {
        uint64_t u;
        if (!v.get_uint64().get(u)) return out = static_cast<long long>(u), NsRead::ok;
    }
    double d;
    if (v.get_double().get(d)) return NsRead::invalid;
    auto w = sl_whole(d);
    if (!w) return NsRead::not_whole;
    out = *w;
    return NsRead::ok;
}

void sl_known_value(SlFields& f, SlField which, od::value& v) {
    auto i = static_cast<std::size_t>(which);
    od::json_type type;
    if (v.type().get(type)) {  // not JSON: a NaN/Infinity token, or garbage
        auto pf = which == SlField::t_mono_ns ? std::nullopt : sl_python_float(v);
        if (!pf) return void(f.valid = false);
        f.python_nan = true;
        f.got[i] = Got::number;
        f.value[i] = *pf;
        return;
    }
    if (type == od::json_type::null) {
        bool is_null = false;
        if (v.is_null().get(is_null) || !is_null) return void(f.valid = false);
        f.got[i] = Got::null;
        if (which == SlField::t_wall) f.plain = false;
        return;
    }
    if (type != od::json_type::number) {
        f.got[i] = Got::wrong;
        f.plain = false;
        if (!sl_validate(v, 1)) f.valid = false;
        return;
    }
    if (which == SlField::t_mono_ns) {
        NsRead r = sl_read_ns(v, f.ns);
        if (r == NsRead::invalid) return void(f.valid = false);
        f.got[i] = r == NsRead::ok ? Got::number : Got::wrong;
        return;
    }
    double d;
    if (v.get_double().get(d)) {
        auto pf = sl_python_float(v);  // -Infinity
        if (!pf) return void(f.valid = false);
        f.python_nan = true;
        d = *pf;
    }
    f.got[i] = Got::number;
    f.value[i] = d;
}

void sl_other_value(SlFields& f, od::value& v) {
    od::json_type type;
    if (v.type().get(type)) return void(f.valid = false);  // NaN, Infinity: skipped as before
    if (type == od::json_type::number) {
        double d;
        if (!v.get_double().get(d)) return;
        auto pf = sl_python_float(v);
        if (!pf || !std::isinf(*pf)) return void(f.valid = false);
        f.python_nan = true;
        return;
    }
    if (type != od::json_type::null) f.plain = false;
    if (!sl_validate(v, 1)) f.valid = false;
}

// The key as written, when it holds no escape (the common case: no copy to unescape it).
std::optional<std::string_view> sl_plain_key(const char* raw_key) {
    const char* p = raw_key;
    while (*p != '"' && *p != '\\') {
        if (static_cast<unsigned char>(*p) < 0x20) return std::nullopt;  // not JSON: unescaped_key says so
        ++p;
    }
    if (*p == '\\') return std::nullopt;
    return std::string_view(raw_key, static_cast<std::size_t>(p - raw_key));
}

void sl_fields(od::document& doc, SlFields& f) {
    od::object obj;
    if (doc.get_object().get(obj)) return void(f.valid = false);
    for (auto field_result : obj) {
        od::field field;
        if (std::move(field_result).get(field)) return void(f.valid = false);
        std::string_view key;
        if (auto plain = sl_plain_key(field.key().raw())) {
            key = *plain;
        } else {
            f.plain = false;
            if (field.unescaped_key().get(key)) return void(f.valid = false);
        }
        SlField which = sl_field_of(key);
        od::value& v = field.value();
        if (which == SlField::other) {
            if (key == "schema") f.schema = true;
            sl_other_value(f, v);
        } else {
            sl_known_value(f, which, v);
        }
        if (!f.valid) return;
    }
    // Anything after the object is trailing content: the document must be at its end.
    const char* trailing = nullptr;
    if (!doc.current_location().get(trailing)) f.valid = false;
}

std::string sl_error(const SlFields& f) {
    constexpr auto wall = static_cast<std::size_t>(SlField::t_wall);
    if (f.got[wall] == Got::absent || f.got[wall] == Got::null) return "a sample without \"t_wall\"";
    if (f.got[wall] == Got::wrong) return "\"t_wall\" is not a number";
    if (f.got[static_cast<std::size_t>(SlField::t_mono_ns)] == Got::wrong)
        return "\"t_mono_ns\" is not a whole number";
    for (std::size_t i = 2; i < kSlKnown; ++i)
        if (f.got[i] == Got::wrong) return std::string("\"") + kSlNames[i] + "\" is not a number";
    return {};
}

SeriesSample sl_sample(const SlFields& f) {
    SeriesSample s;
    s.t_wall = f.value[0];
    if (f.got[1] == Got::number) s.t_mono_ns = f.ns;
    std::optional<double>* gauges[] = {&s.running, &s.waiting, &s.kv_usage, &s.preemptions,
                                       &s.generation_tokens, &s.prompt_tokens, &s.paused};
    for (std::size_t i = 2; i < kSlKnown; ++i)
        if (f.got[i] == Got::number) *gauges[i - 2] = f.value[i];
    return s;
}

}  // namespace

struct LineReader::State {
    od::parser parser;
    std::vector<char> padded;
};

LineReader::LineReader() : state_(std::make_unique<State>()) {}
LineReader::~LineReader() = default;

LineRead LineReader::read(std::string_view text, SchemaKey schema) {
    SlFields f;
    // nlohmann took a NUL byte for the end of its input, and so does this reader: what
    // follows one is not read (a NUL inside a string or before the object closes is a
    // line cut short, skipped).
    if (auto nul = text.find('\0'); nul != std::string_view::npos) {
        text = text.substr(0, nul);
        while (!text.empty() && std::string_view(" \t\n\v\f\r").find(text.back()) != std::string_view::npos)
            text.remove_suffix(1);
    }
    // A byte-order mark (an editor's) is not JSON; nlohmann skipped it, so does this.
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);
        f.plain = false;
    }
    auto& buf = state_->padded;
    if (buf.size() < text.size() + simdjson::SIMDJSON_PADDING) buf.resize(text.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(buf.data(), text.data(), text.size());
    std::memset(buf.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    od::document doc;
    if (state_->parser.iterate(buf.data(), text.size(), buf.size()).get(doc)) return {};
    sl_fields(doc, f);
    if (!f.valid) return {};
    // The old scanner's plain lines had no whitespace but spaces and tabs between tokens.
    if ((f.python_nan || f.schema) && text.find_first_of("\r\n") != std::string_view::npos) f.plain = false;
    LineRead out;
    out.error = sl_error(f);
    bool plain_sample = f.plain && out.error.empty();
    if (f.python_nan && !plain_sample) return {};
    if (f.schema && schema == SchemaKey::header && !plain_sample) {
        out.kind = LineKind::header;
        out.error.clear();
        return out;
    }
    out.kind = out.error.empty() ? LineKind::sample : LineKind::bad;
    if (out.kind == LineKind::sample) out.sample = sl_sample(f);
    return out;
}

}  // namespace inferlint::series_line
