// JUnit XML as Jenkins' and GitLab's readers take it (tests/junit.xsd is the schema the
// tests hold it to).
#include "inferlint/report/formats.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

#include <map>

namespace inferlint::report {

namespace {

// The length of the valid UTF-8 sequence at the start of s, 0 if it is not one.
std::size_t junit_utf8_length(std::string_view s) {
    const auto b0 = static_cast<unsigned char>(s[0]);
    std::size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || n > s.size() || (n == 2 && b0 < 0xC2)) return 0;
    for (std::size_t i = 1; i < n; ++i)
        if ((static_cast<unsigned char>(s[i]) >> 6) != 0x2) return 0;
    const auto b1 = static_cast<unsigned char>(n > 1 ? s[1] : 0);
    if (n == 3 && ((b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 >= 0xA0))) return 0;  // overlong, surrogate
    if (n == 3 && b0 == 0xEF && b1 == 0xBF && (static_cast<unsigned char>(s[2]) & 0xFE) == 0xBE) return 0;  // FFFE/F
    if (n == 4 && ((b0 == 0xF0 && b1 < 0x90) || b0 > 0xF4 || (b0 == 0xF4 && b1 >= 0x90))) return 0;
    return n;
}

std::string junit_body(const CheckResult& r) {
    return fmt::format("{}  {}\n\nevidence:\n{}\n", status_label(r.status), r.message,
                       r.evidence.dump(1, ' ', false, Json::error_handler_t::replace));
}

std::string junit_element(std::string_view tag, std::string_view type, const CheckResult& r) {
    return fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", tag,
                       xml_escape(r.message, XmlContext::attribute), type, xml_escape(junit_body(r), XmlContext::body),
                       tag);
}

std::string junit_case(const CheckResult& r, std::string_view name, std::string_view code, Strict strict) {
    std::string out = fmt::format("    <testcase name=\"{}\" classname=\"inferlint.{}\" time=\"0\">\n",
                                  xml_escape(name, XmlContext::attribute), xml_escape(code, XmlContext::attribute));
    const bool warn_fails = r.status == Status::warn && strict == Strict::yes;
    if (r.status == Status::fail || warn_fails) {
        out += junit_element("failure", status_label(r.status), r);
    } else if (r.status == Status::unknown) {
        out += junit_element("error", "CANT-TELL", r);
    } else if (r.status == Status::not_applicable) {
        out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(r.message, XmlContext::attribute));
        out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(junit_body(r), XmlContext::body));
    } else {
        out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(junit_body(r), XmlContext::body));
    }
    return out + "    </testcase>\n";
}

}  // namespace

std::string xml_escape(std::string_view text, XmlContext where) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const char c = text[0];
        const auto u = static_cast<unsigned char>(c);
        std::size_t n = junit_utf8_length(text);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
            n = 1;
        } else if (c == '&') {
            out += "&amp;";
        } else if (c == '<') {
            out += "&lt;";
        } else if (c == '>') {
            out += "&gt;";
        } else if (c == '"' && where == XmlContext::attribute) {
            out += "&quot;";
        } else if (c == '\'' && where == XmlContext::attribute) {
            out += "&apos;";
        } else if ((c == '\n' || c == '\t' || c == '\r') && where == XmlContext::attribute) {
            out += fmt::format("&#{};", static_cast<int>(u));
        } else if (c == '\r') {
            out += "&#13;";
        } else if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) {
            out += fmt::format("\\x{:02X}", static_cast<int>(u));
        } else {
            out.append(text.substr(0, n));
        }
        text.remove_prefix(n);
    }
    return out;
}

namespace {

struct JunitCounts {
    std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
};

// One <testsuite>: a testcase per result, and the problem as one more, an <error>.
std::string junit_suite(const Verdicts& v, const std::string& name, JunitCounts& total) {
    JunitCounts c;
    c.errors = v.problem.empty() ? 0 : 1;
    for (const auto& r : v.results) {
        c.failures += r.status == Status::fail || (r.status == Status::warn && v.strict == Strict::yes);
        c.errors += r.status == Status::unknown;
        c.skipped += r.status == Status::not_applicable;
    }
    c.tests = v.results.size() + (v.problem.empty() ? 0 : 1);
    std::string out =
        fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"0\">\n",
                    xml_escape(name, XmlContext::attribute), c.tests, c.failures, c.errors, c.skipped);
    // One testcase per tripwire; a tripwire checked more than once (a boot log's starts)
    // is numbered from its second result on, so every name stays distinct.
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < v.results.size(); ++i) {
        const Verdicts::Label l = v.label(i);
        const int n = ++seen[l.title];
        out += junit_case(v.results[i], n == 1 ? l.title : fmt::format("{} #{}", l.title, n), l.code, v.strict);
    }
    if (!v.problem.empty()) {
        const std::string msg = xml_escape(v.problem, XmlContext::attribute);
        out += fmt::format("    <testcase name=\"the run\" classname=\"inferlint.{}\" time=\"0\">\n",
                           xml_escape(v.command, XmlContext::attribute));
        out += fmt::format("      <error message=\"{}\" type=\"RUN-FAILED\">inferlint {}: {}\n</error>\n", msg,
                           xml_escape(v.command, XmlContext::body), xml_escape(v.problem, XmlContext::body));
        out += "    </testcase>\n";
    }
    std::string summary = v.results.empty() ? std::string("no verdicts") : counts_summary(v.results);
    for (const auto& l : v.limits) summary += "\nwhat limited this run: " + l;
    out += fmt::format("    <system-out>{}\n</system-out>\n", xml_escape(summary, XmlContext::body));
    total.tests += c.tests;
    total.failures += c.failures;
    total.errors += c.errors;
    return out + "  </testsuite>\n";
}

}  // namespace

std::string render_junit(const Verdicts& v) {
    JunitCounts total;
    auto name = [](const Verdicts& s) { return s.suite_name.empty() ? "inferlint " + s.command : s.suite_name; };
    std::string suites = junit_suite(v, name(v), total);
    for (const auto& s : v.suites) suites += junit_suite(s, name(s), total);
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"inferlint\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"0\">\n",
                       total.tests, total.failures, total.errors);
    return out + suites + "</testsuites>\n";
}

}  // namespace inferlint::report
