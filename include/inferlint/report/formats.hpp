// The verdicts of one command as CI systems read them: JUnit XML (Jenkins, GitLab and
// most CI test views), GitHub Actions workflow commands (annotations), and a Markdown
// table for $GITHUB_STEP_SUMMARY or a pull-request comment. Pure functions of the
// results: no file, clock or terminal.
#pragma once

#include "inferlint/core/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::report {

// What `--format` takes. text and json are the commands' own outputs (terminal lines,
// --json); the others are rendered here.
enum class Format { text, json, junit, github, markdown };

// "text", "json", "junit", "github", "markdown"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);
std::string_view format_name(Format f);

// One command's verdicts, as the renderers take them.
struct Verdicts {
    std::string command;  // "report", "xray": names the JUnit suite and the summary
    std::vector<CheckResult> results;
    Strict strict = Strict::no;
    // "What limited this run" sentences ("Title. text"), where the command has them.
    std::vector<std::string> limits;
    // Why the run stopped early or gave no verdicts (bad input); empty: it did not.
    std::string problem;
    // Rows that are not tripwires (compare's comparability checks C1-C7 and its gates):
    // when not empty, one per result, the code and title shown instead of the tripwire's.
    struct Label {
        std::string code;   // "C1", "gate": the JUnit classname is "inferlint.<code>"
        std::string title;  // "C1 Realized settings differ"
    };
    std::vector<Label> labels;
    // JUnit only: more <testsuite>s after the command's own, each with its own results and
    // problem (compare: one per run).
    std::vector<Verdicts> suites;
    // JUnit: the suite's name; empty: "inferlint <command>".
    std::string suite_name;

    // The code and title of results[i]: its label, or its tripwire's from the catalog.
    Label label(std::size_t i) const;
};

// <testsuites> with one <testsuite> for the command (and one for each of v.suites) and
// one <testcase> per result,
// classname "inferlint.T8": <failure> for a failed tripwire (and a warning under
// --strict), <error> for Can't tell, <skipped> for N/A, the message and evidence in the
// body; a warning's in <system-out>. A problem is one more testcase, an <error>.
std::string render_junit(const Verdicts& v);

// "::error title=T1 Silent preemption::22 preemptions during the run", ::warning for a
// warning (::error under --strict), ::error for Can't tell, then one ::notice with the counts.
std::string render_github(const Verdicts& v);

// A heading that says how the run went, the counts, a table of every verdict, and the
// "what limited this run" lines.
std::string render_markdown(const Verdicts& v);

// Text made safe for XML 1.0 character data and attribute values: & < > " ' escaped,
// control characters (which XML 1.0 cannot carry at all) written as \xNN, invalid UTF-8
// as U+FFFD. Tabs and newlines stay in bodies; in attributes they become &#9; &#10; &#13;.
enum class XmlContext { body, attribute };
std::string xml_escape(std::string_view text, XmlContext where);

// GitHub's workflow-command escaping: % CR LF in the message; also : and , in a property.
enum class GithubPart { message, property };
std::string github_escape(std::string_view text, GithubPart part);

}  // namespace inferlint::report
