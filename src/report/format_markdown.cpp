// A Markdown summary: what $GITHUB_STEP_SUMMARY shows, or a pull-request comment.
#include "inferlint/report/formats.hpp"

#include "inferlint/core/catalog.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace inferlint::report {

namespace {

// A table cell: pipes escaped, line breaks as <br>, HTML kept as text.
constexpr util::text::Escape kMarkdownCell[] = {{'|', "\\|"},  {'\n', "<br>"}, {'\r', ""},
                                                {'<', "&lt;"}, {'>', "&gt;"},  {'&', "&amp;"},
                                                {'`', "\\`"},  {'*', "\\*"},   {'_', "\\_"}};
std::string markdown_cell(std::string_view text) { return util::text::escape_chars(text, kMarkdownCell); }

std::string markdown_heading(const Verdicts& v) {
    const int rc = exit_code(v.results, v.strict);
    std::string how = !v.problem.empty()  ? "the run stopped early"
                      : rc == 1           ? "a tripwire failed"
                      : rc == 2           ? "a tripwire could not decide"
                      : v.results.empty() ? "no tripwire was checked"
                                          : "every tripwire passed";
    return fmt::format("### inferlint {}: {}\n\n", v.command, how);
}

}  // namespace

std::string render_markdown(const Verdicts& v) {
    std::string out = markdown_heading(v);
    if (!v.problem.empty()) out += fmt::format("**Stopped:** {}\n\n", markdown_cell(v.problem));
    if (!v.results.empty()) out += fmt::format("{}\n\n", markdown_cell(counts_summary(v.results)));
    if (!v.results.empty()) {
        out += fmt::format("| {} | Status | Message |\n|---|---|---|\n", v.labels.empty() ? "Tripwire" : "Check");
        for (std::size_t i = 0; i < v.results.size(); ++i) {
            const CheckResult& r = v.results[i];
            std::string name = v.label(i).title;
            std::string status(status_label(r.status));
            if (r.status == Status::fail || r.status == Status::unknown)
                status = "**" + markdown_cell(status) + "**";
            else
                status = markdown_cell(status);
            out += fmt::format("| {} | {} | {} |\n", markdown_cell(name), status, markdown_cell(r.message));
        }
        out += "\n";
    }
    if (!v.limits.empty()) {
        out += "**What limited this run**\n\n";
        for (const auto& l : v.limits) out += fmt::format("- {}\n", markdown_cell(l));
        out += "\n";
    }
    return out;
}

std::optional<Format> parse_format(std::string_view name) {
    for (Format f : {Format::text, Format::json, Format::junit, Format::github, Format::markdown})
        if (format_name(f) == name) return f;
    return std::nullopt;
}

std::string_view format_name(Format f) {
    switch (f) {
        case Format::text:
            return "text";
        case Format::json:
            return "json";
        case Format::junit:
            return "junit";
        case Format::github:
            return "github";
        case Format::markdown:
            return "markdown";
    }
    return "text";
}

Verdicts::Label Verdicts::label(std::size_t i) const {
    if (i < labels.size()) return labels[i];
    const CheckResult& r = results.at(i);
    const Tripwire* t = find_tripwire(r.tripwire);
    std::string c(code(r.tripwire));
    return {c, t ? fmt::format("{} {}", c, t->name) : c};
}

}  // namespace inferlint::report
