// The writing side of inferlint.series/1: header and sample rows, serialised byte for
// byte as Python's json.dumps does, so either tool reads the other's recordings and a
// diff between two recorders' files shows only real differences.
#include "inferlint/parse/series.hpp"
#include "inferlint/util/pyfloat.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace inferlint {

namespace {

// json.dumps writes a float as repr() does, but NaN and the infinities as JavaScript names them.
void append_py_float(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "Infinity" : "-Infinity";
        return;
    }
    out += util::py_float_repr(v);
}

// Decodes one UTF-8 sequence at text[i]; U+FFFD for a malformed one (as Python's
// errors="replace" reading would have produced).
char32_t next_code_point(std::string_view text, std::size_t& i) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char c = byte(i);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > text.size()) {
        ++i;
        return 0xFFFD;
    }
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
        unsigned char cc = byte(i + static_cast<std::size_t>(k));
        if ((cc >> 6) != 0x2) {
            ++i;
            return 0xFFFD;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    i += static_cast<std::size_t>(len);
    return cp;
}

// A JSON string as json.dumps writes it with ensure_ascii: everything past ASCII as
// \uXXXX, astral characters as surrogate pairs.
void append_py_string(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = next_code_point(s, i);
        switch (cp) {
            case '"':
                out += "\\\"";
                continue;
            case '\\':
                out += "\\\\";
                continue;
            case '\n':
                out += "\\n";
                continue;
            case '\r':
                out += "\\r";
                continue;
            case '\t':
                out += "\\t";
                continue;
            case '\b':
                out += "\\b";
                continue;
            case '\f':
                out += "\\f";
                continue;
            default:
                break;
        }
        if (cp >= 0x20 && cp < 0x7F) {
            out += static_cast<char>(cp);
        } else if (cp < 0x10000) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        } else {
            char32_t v = cp - 0x10000;
            out += fmt::format("\\u{:04x}\\u{:04x}", static_cast<unsigned>(0xD800 + (v >> 10)),
                               static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
        }
    }
    out += '"';
}

void append_py_json(std::string& out, const Json& doc) {
    switch (doc.type()) {
        case Json::value_t::null:
            out += "null";
            break;
        case Json::value_t::boolean:
            out += doc.get<bool>() ? "true" : "false";
            break;
        case Json::value_t::number_integer:
            out += std::to_string(doc.get<long long>());
            break;
        case Json::value_t::number_unsigned:
            out += std::to_string(doc.get<unsigned long long>());
            break;
        case Json::value_t::number_float:
            append_py_float(out, doc.get<double>());
            break;
        case Json::value_t::string:
            append_py_string(out, doc.get_ref<const std::string&>());
            break;
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& item : doc) {
                if (!first) out += ", ";
                first = false;
                append_py_json(out, item);
            }
            out += ']';
            break;
        }
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, value] : doc.items()) {
                if (!first) out += ", ";
                first = false;
                append_py_string(out, key);
                out += ": ";
                append_py_json(out, value);
            }
            out += '}';
            break;
        }
        default:
            out += "null";
            break;  // binary and discarded values have no JSON form
    }
}

// Python's round(x, 6): the correctly rounded 6-decimal text, read back.
double round_to_micro(double x) {
    if (!std::isfinite(x)) return x;
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.6f", x);
    return std::strtod(buf, nullptr);
}

}  // namespace

std::string python_json_line(const Json& doc) {
    std::string out;
    append_py_json(out, doc);
    return out;
}

std::vector<std::pair<std::string, std::string>> series_gauges(const Engine& engine) {
    const MetricNames& m = engine.metrics;
    std::vector<std::pair<std::string, std::string>> all = {
        {"running", m.running},
        {"waiting", m.waiting},
        {"kv_usage", m.kv_usage},
        {"preemptions", m.preemptions},
        {"generation_tokens", m.generation_tokens},
        {"prompt_tokens", m.prompt_tokens},
        {"paused", m.paused},
    };
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& [field, series] : all)
        if (!series.empty()) out.emplace_back(field, series);
    return out;
}

Json series_header(const Engine* engine, const std::string& url, double interval_s) {
    Json h = Json::object();
    h["schema"] = kSeriesSchema;
    h["url"] = url;
    h["interval_s"] = interval_s;
    if (engine != nullptr) h["engine"] = engine->key;
    return h;
}

Json series_sample(const prom::Metrics& metrics, const Engine& engine, double t_wall,
                   std::optional<long long> t_mono_ns) {
    Json row = Json::object();
    row["t_wall"] = round_to_micro(t_wall);
    row["t_mono_ns"] = or_null(t_mono_ns);
    for (const auto& [field, series] : series_gauges(engine)) {
        std::optional<double> v = field == "kv_usage" ? metrics.single(series) : metrics.total(series);
        // A counter the engine exports only once it first counts reads 0 while its
        // witness, exported from the start, is there.
        std::string witness = engine.witness(series);
        if (!v && !witness.empty() && metrics.has(witness)) v = 0.0;
        row[field] = or_null(v);
    }
    return row;
}

prom::NameFilter series_sample_names(const Engine& engine) {
    prom::NameFilter names;
    for (const auto& [field, series] : series_gauges(engine)) {
        names.push_back(series);
        if (std::string witness = engine.witness(series); !witness.empty()) names.push_back(witness);
    }
    return names;
}

}  // namespace inferlint
