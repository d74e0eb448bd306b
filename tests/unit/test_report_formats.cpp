// The CI renderers (report/format_*.cpp) on hand-made results; the whole commands'
// documents on real runs are checked by tests/ci_formats.py.
#include "inferlint/report/formats.hpp"

#include <catch2/catch.hpp>

using namespace inferlint;
using namespace inferlint::report;

namespace {

CheckResult formats_result(TripwireId id, Status s, std::string message) {
    return CheckResult{id, s, std::move(message), Json{{"count", 22}}};
}

Verdicts formats_mixed(Strict strict = Strict::no) {
    Verdicts v;
    v.command = "report";
    v.strict = strict;
    v.results = {formats_result(TripwireId::T1, Status::fail, "22 preemptions during the run"),
                 formats_result(TripwireId::T9, Status::warn, "ceiling moved"),
                 formats_result(TripwireId::T14, Status::pass, "denominator is 100"),
                 formats_result(TripwireId::T10, Status::unknown, "no counter"),
                 formats_result(TripwireId::T16, Status::not_applicable, "not this engine")};
    return v;
}

}  // namespace

TEST_CASE("xml_escape: markup escaped, control characters and bad UTF-8 never reach the XML", "[formats][junit]") {
    CHECK(xml_escape("a<b & \"c\" 'd'>", XmlContext::attribute) == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    CHECK(xml_escape("a<b \"c\"", XmlContext::body) == "a&lt;b \"c\"");
    CHECK(xml_escape(std::string("x\x01y\x1bz\0w", 7), XmlContext::body) == "x\\x01y\\x1Bz\\x00w");
    CHECK(xml_escape("line\nnext\ttab\r", XmlContext::body) == "line\nnext\ttab&#13;");
    CHECK(xml_escape("line\nnext\ttab", XmlContext::attribute) == "line&#10;next&#9;tab");
    CHECK(xml_escape("caf\xC3\xA9 \xFF\xC3", XmlContext::body) == "caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD");
    CHECK(xml_escape("\xED\xA0\x80", XmlContext::body) == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("JUnit: failure, error, skipped, warnings in system-out; counts on the suite", "[formats][junit]") {
    const std::string x = render_junit(formats_mixed());
    CHECK(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    CHECK(x.find("<testsuite name=\"inferlint report\" tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"1\"") !=
          std::string::npos);
    CHECK(x.find("<testcase name=\"T1 Silent preemption\" classname=\"inferlint.T1\"") != std::string::npos);
    CHECK(x.find("<failure message=\"22 preemptions during the run\" type=\"TRIPWIRE-FAILED\">TRIPWIRE-FAILED  22 "
                 "preemptions during the run\n\nevidence:\n{\n \"count\": 22\n}\n</failure>") != std::string::npos);
    CHECK(x.find("<error message=\"no counter\" type=\"CANT-TELL\">") != std::string::npos);
    CHECK(x.find("<skipped message=\"not this engine\"/>") != std::string::npos);
    CHECK(x.find("<system-out>WARN  ceiling moved") != std::string::npos);
}

TEST_CASE("JUnit: --strict makes a warning a failure; a tripwire checked twice gets distinct names",
          "[formats][junit]") {
    Verdicts v = formats_mixed(Strict::yes);
    v.results.push_back(formats_result(TripwireId::T1, Status::pass, "second start"));
    const std::string x = render_junit(v);
    CHECK(x.find("tests=\"6\" failures=\"2\"") != std::string::npos);
    CHECK(x.find("<failure message=\"ceiling moved\" type=\"WARN\">") != std::string::npos);
    CHECK(x.find("name=\"T1 Silent preemption #2\"") != std::string::npos);
}

TEST_CASE("JUnit: a run that died says so in an error testcase", "[formats][junit]") {
    Verdicts v;
    v.command = "xray";
    v.problem = "the server exited during boot <code 1>";
    const std::string x = render_junit(v);
    CHECK(x.find("tests=\"1\" failures=\"0\" errors=\"1\"") != std::string::npos);
    CHECK(x.find("<error message=\"the server exited during boot &lt;code 1&gt;\" type=\"RUN-FAILED\">") !=
          std::string::npos);
}

TEST_CASE("github: workflow commands with their escaping, and a notice with the counts", "[formats][github]") {
    CHECK(github_escape("50% a:b,c\r\n", GithubPart::message) == "50%25 a:b,c%0D%0A");
    CHECK(github_escape("T1: a,b", GithubPart::property) == "T1%3A a%2Cb");
    Verdicts v = formats_mixed();
    v.results[0].message = "22 preemptions\nduring 100% of the run";
    const std::string g = render_github(v);
    CHECK(g.starts_with("::error title=T1 Silent preemption::22 preemptions%0Aduring 100%25 of the run\n"));
    CHECK(g.find("::warning title=T9 ") != std::string::npos);
    CHECK(g.find("::error title=T10 ") != std::string::npos);
    CHECK(g.find("T14") == std::string::npos);  // a pass is no annotation
    CHECK(
        g.ends_with("::notice title=inferlint report::4 checks (1 pass, 1 warn, 1 tripwire-failed, 1 unknown); 1 "
                    "does not apply\n"));
    CHECK(render_github(formats_mixed(Strict::yes)).find("::error title=T9 ") != std::string::npos);
}

TEST_CASE("markdown: heading, counts, one escaped row per verdict, the limits", "[formats][markdown]") {
    Verdicts v = formats_mixed();
    v.results[1].message = "a | b\nc";
    v.limits = {"The KV cache. It held 20 of 32 requests"};
    const std::string m = render_markdown(v);
    CHECK(m.starts_with("### inferlint report: a tripwire failed\n"));
    CHECK(m.find("| T1 Silent preemption | **TRIPWIRE-FAILED** | 22 preemptions during the run |") !=
          std::string::npos);
    CHECK(m.find("| WARN | a \\| b<br>c |") != std::string::npos);
    CHECK(m.find("**What limited this run**\n\n- The KV cache. It held 20 of 32 requests\n") != std::string::npos);
    CHECK(parse_format("junit") == Format::junit);
    CHECK_FALSE(parse_format("xml"));
}
