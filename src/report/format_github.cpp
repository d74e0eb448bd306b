// GitHub Actions workflow commands: each line an annotation on the run.
#include "inferlint/report/formats.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

namespace inferlint::report {

namespace {

std::string github_title(const Verdicts& v, std::size_t i, std::string_view suffix) {
    return v.label(i).title + std::string(suffix);
}

std::string github_command(std::string_view kind, std::string_view title, std::string_view message) {
    return fmt::format("::{} title={}::{}\n", kind, github_escape(title, GithubPart::property),
                       github_escape(message, GithubPart::message));
}

}  // namespace

std::string github_escape(std::string_view text, GithubPart part) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '%':
                out += "%25";
                break;
            case '\r':
                out += "%0D";
                break;
            case '\n':
                out += "%0A";
                break;
            case ':':
                out += part == GithubPart::property ? "%3A" : ":";
                break;
            case ',':
                out += part == GithubPart::property ? "%2C" : ",";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string render_github(const Verdicts& v) {
    std::string out;
    for (std::size_t i = 0; i < v.results.size(); ++i) {
        const CheckResult& r = v.results[i];
        if (r.status == Status::fail) {
            out += github_command("error", github_title(v, i, ""), r.message);
        } else if (r.status == Status::warn) {
            out += github_command(v.strict == Strict::yes ? "error" : "warning", github_title(v, i, " (warning)"),
                                  r.message);
        } else if (r.status == Status::unknown) {
            out += github_command("error", github_title(v, i, " (can't tell)"), r.message);
        }
    }
    if (!v.problem.empty()) out += github_command("error", "inferlint " + v.command, v.problem);
    std::string summary = v.results.empty() ? std::string("no verdicts") : counts_summary(v.results);
    for (const auto& l : v.limits) summary += "\nwhat limited this run: " + l;
    out += github_command("notice", "inferlint " + v.command, summary);
    return out;
}

}  // namespace inferlint::report
