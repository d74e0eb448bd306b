// inferlint.1, from the same definition as --help and the completions.
#include "cli_docs.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

namespace inferlint::cli {

namespace {

// Text for a roff line: backslashes and hyphens escaped, a leading . or ' made literal.
std::string roff(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    std::string lines;
    std::size_t start = 0;
    while (start <= out.size()) {
        std::size_t nl = out.find('\n', start);
        std::string line = out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line = "\\&" + line;
        lines += line;
        if (nl == std::string::npos) break;
        lines += "\n";
        start = nl + 1;
    }
    return lines;
}

std::string man_options(const CliCommand& c) {
    std::string out;
    for (const auto& o : c.options) {
        std::string names;
        for (const auto& n : o.names) names += (names.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff(n));
        if (!o.value.empty()) names += fmt::format(" \\fI{}\\fR", roff(o.value));
        out += fmt::format(".TP\n{}\n{}\n", names, roff(o.help));
    }
    return out;
}

std::string man_commands(const std::vector<CliCommand>& commands) {
    std::string out = ".SH COMMANDS\n";
    std::string group;
    for (const auto& c : commands) {
        if (c.group != group) out += fmt::format(".SS {}\n", roff(group = c.group));
        std::string args;
        for (const auto& a : c.arguments) args += fmt::format(" \\fI{}\\fR", roff(a));
        out += fmt::format(".TP\n\\fBinferlint {}\\fR{}\n{}\n.RS\n{}.RE\n", roff(c.name), args, roff(c.summary),
                           man_options(c));
    }
    return out;
}

std::string man_tripwires() {
    std::string out =
        ".SH TRIPWIRES\nEach tripwire is a problem that makes a benchmark's numbers wrong without an error. "
        "\\fBinferlint explain\\fR \\fIID\\fR describes one; the code or the slug names it.\n";
    for (const auto& t : tripwires())
        out += fmt::format(".TP\n\\fB{}\\fR ({})\n{}. {}\n", roff(t.id), roff(t.slug), roff(t.name), roff(t.trap));
    return out;
}

}  // namespace

std::string man_page(const CLI::App& app, const std::vector<CliCommand>& commands, std::string_view version) {
    std::string out = fmt::format(".TH INFERLINT 1 \"\" \"inferlint {}\" \"User Commands\"\n", roff(version));
    out += ".SH NAME\ninferlint \\- check an inference server's benchmark run for silent problems\n";
    out += ".SH SYNOPSIS\n.B inferlint\n.I command\n.RI [ options ]\n.br\n.B inferlint \\-\\-help\n";
    out += fmt::format(".SH DESCRIPTION\n{}\n.PP\n", roff(app.get_description()));
    out +=
        "Every command that gives verdicts prints one line per tripwire and exits 0, 1 or 2. "
        "\\fB\\-\\-format\\fR junit, github or markdown writes what CI systems read; "
        "\\fB\\-\\-output\\-file\\fR sends it to a file while the terminal keeps the text.\n";
    out += man_commands(commands);
    out += man_tripwires();
    out +=
        ".SH ENVIRONMENT\n.TP\n.B INFERLINT_ENGINE\nThe serving engine (vllm, sglang, trtllm) when no "
        "\\fB\\-\\-engine\\fR "
        "is given.\n.TP\n.B INFERLINT_TRIPWIRES\nThe tripwires to report when no \\fB\\-\\-tripwires\\fR is given.\n"
        ".TP\n.B NO_COLOR\nWhen set and not empty, \\fB\\-\\-color auto\\fR gives no colour.\n.TP\n.B TERM\n"
        "\\fBdumb\\fR: no colour with \\fB\\-\\-color auto\\fR.\n";
    std::string footer = app.get_footer();
    footer.erase(0, footer.find_first_not_of('\n'));
    out += fmt::format(".SH EXIT STATUS\n{}\n", roff(footer));
    out += ".SH SEE ALSO\n/usr/share/doc/inferlint/README.md, /usr/share/doc/inferlint/tripwires.md\n";
    return out;
}

}  // namespace inferlint::cli
