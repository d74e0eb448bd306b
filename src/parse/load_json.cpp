#include "load_json.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace inferlint::loadjson {

namespace {

constexpr std::string_view kInfinity = "inferlint:+Infinity";
constexpr std::string_view kMinusInfinity = "inferlint:-Infinity";

}  // namespace

std::string accept_nonfinite(std::string_view text) {
    if (text.find("NaN") == std::string_view::npos && text.find("Infinity") == std::string_view::npos)
        return std::string(text);
    std::string out;
    out.reserve(text.size() + 64);
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (text.compare(i, 3, "NaN") == 0) {
            out += "null";
            i += 2;
        } else if (text.compare(i, 8, "Infinity") == 0) {
            out += fmt::format("\"{}\"", kInfinity);
            i += 7;
        } else if (text.compare(i, 9, "-Infinity") == 0) {
            out += fmt::format("\"{}\"", kMinusInfinity);
            i += 8;
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<double> infinity_marker(const Json& v) {
    if (!v.is_string()) return std::nullopt;
    const auto& s = v.get_ref<const std::string&>();
    if (s == kInfinity) return std::numeric_limits<double>::infinity();
    if (s == kMinusInfinity) return -std::numeric_limits<double>::infinity();
    return std::nullopt;
}

std::string parse_problem(const std::exception& e) {
    std::string_view what = e.what();
    if (auto at = what.find("parse error at "); at != std::string_view::npos)
        what.remove_prefix(at + 15);
    else if (auto num = what.find("number overflow"); num != std::string_view::npos)
        what.remove_prefix(num);
    else if (auto tag = what.find("] "); tag != std::string_view::npos)
        what.remove_prefix(tag + 2);
    std::string msg(what.substr(0, 200));
    if (what.size() > 200) msg += "...";
    for (char& ch : msg)
        if (ch == '\n' || ch == '\r') ch = ' ';
    return msg;
}

const char* json_type(const Json& v) {
    if (v.is_boolean()) return "true/false";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "a list";
    if (v.is_object()) return "an object";
    if (v.is_null()) return "null";
    return "not a number";
}

std::optional<Json> try_document(std::string_view text) {
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded()) return std::nullopt;
    return doc;
}

std::optional<std::vector<Json>> try_lines(std::string_view text) {
    std::vector<Json> out;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        Json doc = Json::parse(line, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
        out.push_back(std::move(doc));
    }
    if (out.empty()) return std::nullopt;
    return out;
}

std::string describe(std::string_view text) {
    std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return "blank";
    std::string_view head = text.substr(first, 40);
    if (auto nl = head.find_first_of("\r\n"); nl != std::string_view::npos) head = head.substr(0, nl);
    std::string shown;
    for (char c : head) shown += (static_cast<unsigned char>(c) < 0x20 || c == '"') ? '?' : c;
    const char* kind = "text";
    if (text[first] == '{' || text[first] == '[')
        kind = "JSON cut short or malformed";
    else if (head.find(": ") != std::string_view::npos || head.ends_with(":") || head.starts_with("---") ||
             head.starts_with("#"))
        kind = "YAML or a log";
    else if (head.find(',') != std::string_view::npos)
        kind = "CSV";
    return fmt::format("{}, starting \"{}\"", kind, shown);
}

void Fields::fail(const std::string& what) const { throw InputError(fmt::format("{}: {}", source_, what)); }

const Json* Fields::at(const Json& doc, std::string_view dotted) {
    const Json* cur = &doc;
    while (!dotted.empty()) {
        std::size_t dot = dotted.find('.');
        std::string_view part = dotted.substr(0, dot);
        dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
        if (cur->is_object()) {
            auto it = cur->find(std::string(part));
            if (it == cur->end()) return nullptr;
            cur = &*it;
        } else if (cur->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos &&
                   part.size() < 9) {
            std::size_t i = std::stoul(std::string(part));
            if (i >= cur->size()) return nullptr;
            cur = &(*cur)[i];
        } else {
            return nullptr;
        }
    }
    return cur->is_null() ? nullptr : cur;
}

std::optional<double> Fields::number(const Json& doc, std::string_view dotted) const {
    const Json* v = at(doc, dotted);
    if (!v) return std::nullopt;
    if (auto inf = infinity_marker(*v)) return inf;
    if (!v->is_number()) fail(fmt::format("\"{}\" is {}, expected a number", dotted, json_type(*v)));
    return v->get<double>();
}

std::optional<long long> Fields::count(const Json& doc, std::string_view dotted) const {
    auto d = number(doc, dotted);
    if (!d) return std::nullopt;
    if (!std::isfinite(*d) || *d < 0 || *d > 9.2e18) fail(fmt::format("\"{}\" is {}, not a count", dotted, *d));
    const Json* v = at(doc, dotted);
    if (v->is_number_unsigned()) return static_cast<long long>(v->get<unsigned long long>());
    if (v->is_number_integer()) return v->get<long long>();
    return static_cast<long long>(*d);  // Python's int() truncates
}

std::optional<std::string> Fields::text(const Json& doc, std::string_view dotted) const {
    const Json* v = at(doc, dotted);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(fmt::format("\"{}\" is {}, expected a string", dotted, json_type(*v)));
    return v->get<std::string>();
}

std::optional<double> Fields::latency(const Json& doc, std::string_view dotted, double to_ms) const {
    auto d = number(doc, dotted);
    if (!d) return std::nullopt;
    if (!std::isfinite(*d) || *d < 0) fail(fmt::format("\"{}\" is {}, not a latency", dotted, *d));
    return *d * to_ms;
}

LatencyStats Fields::stats(const Json& obj, const std::array<std::string_view, 6>& keys, double to_ms) const {
    auto get = [&](std::string_view key) -> std::optional<double> {
        return key.empty() ? std::nullopt : latency(obj, key, to_ms);
    };
    return {get(keys[0]), get(keys[1]), get(keys[2]), get(keys[3]), get(keys[4]), get(keys[5])};
}

double Fields::unit_to_ms(std::string_view unit, std::string_view key) const {
    if (unit == "ms") return 1.0;
    if (unit == "s" || unit == "sec" || unit == "seconds") return 1000.0;
    if (unit == "us") return 1e-3;
    if (unit == "ns") return 1e-6;
    fail(fmt::format("\"{}\" is in \"{}\", a unit no reader knows (ms, s, us, ns)", key, unit));
}

void Fields::take(const Json& doc, LoadResult& r, std::initializer_list<Take> takes) const {
    for (const Take& t : takes) {
        if (auto c = std::get_if<0>(&t.into))
            r.*(*c) = count(doc, t.key);
        else if (auto n = std::get_if<1>(&t.into))
            r.*(*n) = number(doc, t.key);
        else
            r.*std::get<2>(t.into) = text(doc, t.key);
    }
}

LoadResult Fields::result(std::string tool) const {
    LoadResult r;
    r.path = source_;
    r.tool = std::move(tool);
    return r;
}

RequestRecord request_by_keys(const Json& q, const Fields& f, std::size_t index, const RequestKeys& keys) {
    auto number = [&](const char* key) { return key ? f.number(q, key) : std::nullopt; };
    auto count = [&](const char* key) { return key ? f.count(q, key) : std::nullopt; };
    RequestRecord rec;
    rec.start_s = number(keys.start_s);
    rec.first_token_s = number(keys.first_token_s);
    rec.end_s = number(keys.end_s);
    rec.input_tokens = count(keys.input_tokens);
    rec.output_tokens = count(keys.output_tokens);
    rec.stream_chunks = count(keys.stream_chunks);
    if (keys.error) rec.error = f.text(q, keys.error);
    check_record(f, rec, index);
    return rec;
}

void check_record(const Fields& f, const RequestRecord& r, std::size_t index) {
    for (auto v : {r.start_s, r.first_token_s, r.end_s, r.ttft_ms, r.e2e_ms})
        if (v && (!std::isfinite(*v) || *v < 0))
            f.fail(fmt::format("request {}: a time of {}, not one a clock gives", index, *v));
    if (r.start_s && r.end_s && *r.end_s < *r.start_s) f.fail(fmt::format("request {}: ends before it starts", index));
    if (r.first_token_s && r.start_s && *r.first_token_s < *r.start_s)
        f.fail(fmt::format("request {}: first token before the request", index));
}

}  // namespace inferlint::loadjson
