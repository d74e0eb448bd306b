// Prometheus's HTTP API answers, read strictly: every shape the documentation gives is
// checked, and anything else is one line naming the source.
#include "inferlint/parse/prom_api.hpp"

#include "inferlint/core/result.hpp"
#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace inferlint::parse {

namespace {

[[noreturn]] void prom_api_bad(const std::string& source, std::string_view what) {
    throw InputError(fmt::format("{}: {}", source, what));
}

// "1.5", "NaN", "+Inf", "-Inf": a sample value as the API writes it (a string).
double prom_api_value(const Json& v, const std::string& source) {
    if (!v.is_string()) prom_api_bad(source, "a sample value is not a string, as Prometheus writes them");
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
    if (s == "-Inf") return -std::numeric_limits<double>::infinity();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || std::isnan(d) || std::isinf(d))
        prom_api_bad(source, fmt::format("a sample value is not a number: '{}'", s.substr(0, 40)));
    return d;
}

PromSample prom_api_sample(const Json& pair, const std::string& source) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number())
        prom_api_bad(source, "a sample is not [time, \"value\"]");
    const double t = pair[0].get<double>();
    if (!std::isfinite(t) || t < 0) prom_api_bad(source, "a sample's time is not a time");
    return {t, prom_api_value(pair[1], source)};
}

// Names as Prometheus allows them: labels [a-zA-Z_][a-zA-Z0-9_]*, metrics may hold ':' too.
bool prom_api_name_ok(const std::string& n, bool metric) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (unsigned char c : n)
        if (!(std::isalnum(c) || c == '_' || (metric && c == ':'))) return false;
    return true;
}

PromSeries prom_api_series(const Json& item, bool matrix, const std::string& source) {
    if (!item.is_object() || !item.contains("metric") || !item["metric"].is_object())
        prom_api_bad(source, "a series has no metric labels");
    PromSeries s;
    for (const auto& [k, v] : item["metric"].items()) {
        if (!prom_api_name_ok(k, false)) prom_api_bad(source, "a series has a label name Prometheus does not allow");
        if (!v.is_string()) prom_api_bad(source, fmt::format("the label {} is not a string", k));
        if (k == "__name__" && !prom_api_name_ok(v.get<std::string>(), true))
            prom_api_bad(source, "a series has a metric name Prometheus does not allow");
        s.labels[k] = v.get<std::string>();
    }
    if (matrix) {
        if (!item.contains("values") || !item["values"].is_array())
            prom_api_bad(source, "a range series has no values");
        for (const auto& p : item["values"]) s.samples.push_back(prom_api_sample(p, source));
        for (std::size_t i = 1; i < s.samples.size(); ++i)
            if (!(s.samples[i].t > s.samples[i - 1].t))
                prom_api_bad(source, "a range series' samples are not in time order");
    } else {
        if (!item.contains("value")) prom_api_bad(source, "an instant series has no value");
        s.samples.push_back(prom_api_sample(item["value"], source));
    }
    return s;
}

// A label value in the exposition format: backslash, quote and newline escaped.
std::string prom_api_label_value(const std::string& v) {
    std::string out;
    for (char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string prom_api_number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", v);
}

}  // namespace

std::string PromSeries::name() const {
    auto it = labels.find("__name__");
    return it == labels.end() ? std::string() : it->second;
}

namespace {

// The envelope every answer has: {"status": "success", "data": ..., "warnings": [...]}, or
// an error answer, which throws. Returns the document; `warnings` gets the warnings.
Json prom_api_envelope(std::string_view body, const std::string& source, std::vector<std::string>& warnings) {
    Json doc = Json::parse(body.begin(), body.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("status") || !doc["status"].is_string())
        prom_api_bad(source, "not an answer of Prometheus's HTTP API (no JSON object with a status)");
    if (doc.contains("warnings") && doc["warnings"].is_array())
        for (const auto& w : doc["warnings"])
            if (w.is_string()) warnings.push_back(w.get<std::string>());
    if (doc["status"] != "success") {
        const std::string type = doc.value("errorType", std::string("unknown"));
        const std::string error =
            doc.contains("error") && doc["error"].is_string() ? doc["error"].get<std::string>() : "";
        prom_api_bad(source, fmt::format("Prometheus refused the query ({}): {}", type, error.substr(0, 300)));
    }
    if (!doc.contains("data")) prom_api_bad(source, "the answer has no data");
    return doc;
}

}  // namespace

PromAnswer parse_prom_answer(std::string_view body, const std::string& source) {
    PromAnswer a;
    Json doc = prom_api_envelope(body, source, a.warnings);
    if (!doc.contains("data") || !doc["data"].is_object() || !doc["data"].contains("resultType") ||
        !doc["data"]["resultType"].is_string() || !doc["data"].contains("result"))
        prom_api_bad(source, "the answer has no data.resultType and data.result");
    a.result_type = doc["data"]["resultType"].get<std::string>();
    const bool matrix = a.result_type == "matrix";
    if (!matrix && a.result_type != "vector")
        prom_api_bad(source, fmt::format("the query gave a {}, not series (a vector or a matrix)", a.result_type));
    const Json& result = doc["data"]["result"];
    if (!result.is_array()) prom_api_bad(source, "data.result is not a list");
    for (const auto& item : result) a.series.push_back(prom_api_series(item, matrix, source));
    return a;
}

std::vector<std::map<std::string, std::string>> parse_prom_label_sets(std::string_view body, const std::string& source,
                                                                      std::vector<std::string>& warnings) {
    Json doc = prom_api_envelope(body, source, warnings);
    if (!doc["data"].is_array()) prom_api_bad(source, "the answer's data is not a list of label sets");
    std::vector<std::map<std::string, std::string>> out;
    for (const auto& item : doc["data"]) {
        if (!item.is_object()) prom_api_bad(source, "a label set is not an object");
        std::map<std::string, std::string> labels;
        for (const auto& [k, v] : item.items()) {
            if (!prom_api_name_ok(k, false))
                prom_api_bad(source, "a series has a label name Prometheus does not allow");
            if (!v.is_string()) prom_api_bad(source, fmt::format("the label {} is not a string", k));
            labels[k] = v.get<std::string>();
        }
        out.push_back(std::move(labels));
    }
    return out;
}

std::optional<double> parse_prom_duration(std::string_view text) {
    // Prometheus's durations: one or more of <digits><unit>, largest unit first:
    // y w d h m s ms ("1m30s", "250ms", "15s").
    if (text.empty() || text.size() > 40) return std::nullopt;
    double total = 0;
    std::size_t i = 0;
    bool any = false;
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        if (j == i || j - i > 12) return std::nullopt;
        const double n = std::strtod(std::string(text.substr(i, j - i)).c_str(), nullptr);
        std::size_t k = j;
        while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) ++k;
        const std::string_view unit = text.substr(j, k - j);
        double s = 0;
        if (unit == "ms")
            s = 0.001;
        else if (unit == "s")
            s = 1;
        else if (unit == "m")
            s = 60;
        else if (unit == "h")
            s = 3600;
        else if (unit == "d")
            s = 86400;
        else if (unit == "w")
            s = 7 * 86400;
        else if (unit == "y")
            s = 365 * 86400;
        else
            return std::nullopt;
        total += n * s;
        any = true;
        i = k;
    }
    if (!any || !(total > 0)) return std::nullopt;
    return total;
}

std::vector<PromTarget> parse_prom_targets(std::string_view body, const std::string& source) {
    std::vector<std::string> warnings;
    Json doc = prom_api_envelope(body, source, warnings);
    const Json& data = doc["data"];
    if (!data.is_object() || !data.contains("activeTargets") || !data["activeTargets"].is_array())
        prom_api_bad(source, "the answer has no data.activeTargets list");
    std::vector<PromTarget> out;
    for (const auto& t : data["activeTargets"]) {
        if (!t.is_object() || !t.contains("labels") || !t["labels"].is_object())
            prom_api_bad(source, "a target has no labels");
        PromTarget target;
        for (const auto& [k, v] : t["labels"].items())
            if (v.is_string()) target.labels[k] = v.get<std::string>();
        if (t.contains("scrapeInterval") && t["scrapeInterval"].is_string())
            target.scrape_interval_s = parse_prom_duration(t["scrapeInterval"].get<std::string>());
        if (t.contains("health") && t["health"].is_string()) target.health = t["health"].get<std::string>();
        out.push_back(std::move(target));
    }
    return out;
}

std::string exposition_text(const std::vector<PromSeries>& series, const std::set<std::string>& drop,
                            const std::map<std::string, std::string>& types) {
    std::string out, last_name;
    for (const auto& s : series) {
        const std::string name = s.name();
        if (name.empty() || s.samples.empty()) continue;
        if (name != last_name) {
            auto t = types.find(name);
            if (t != types.end()) out += fmt::format("# TYPE {} {}\n", name, t->second);
            last_name = name;
        }
        std::string labels;
        for (const auto& [k, v] : s.labels) {
            if (k == "__name__" || drop.count(k)) continue;
            labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", k, prom_api_label_value(v));
        }
        out += name + (labels.empty() ? "" : "{" + labels + "}") + " " + prom_api_number(s.samples.back().value) + "\n";
    }
    return out;
}

}  // namespace inferlint::parse
