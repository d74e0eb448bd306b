#include "output.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <array>
#include <iostream>
#include <utility>

namespace inferlint::cli {

namespace {

constexpr const char* kColourReset = "\033[0m";

std::string_view colour_of(Status s) {
    switch (s) {
        case Status::fail:
            return "\033[1;31m";
        case Status::warn:
            return "\033[33m";
        case Status::pass:
            return "\033[32m";
        case Status::unknown:
            return "\033[35m";
        case Status::not_applicable:
            return "";
    }
    return "";
}

}  // namespace

std::string rendered(report::Format format, const Shown& shown) {
    switch (format) {
        case report::Format::text:
            return shown.text;
        case report::Format::json:
            return shown.json + "\n";
        case report::Format::junit:
            return report::render_junit(shown.verdicts);
        case report::Format::github:
            return report::render_github(shown.verdicts);
        case report::Format::markdown:
            return report::render_markdown(shown.verdicts);
    }
    return shown.text;
}

void show(const Shown& shown, const Common& common) {
    common.emitted = true;
    const report::Format out = common.stdout_format();
    std::cout << (out == report::Format::text ? paint_lines(shown.text, common.colour) : rendered(out, shown));
    std::cout.flush();
    if (!common.output_file.empty()) util::write_file_atomic(common.output_file, rendered(common.format, shown));
}

void show_problem(const std::string& problem, const Common& common) {
    if (common.emitted || common.format == report::Format::text || common.format == report::Format::json) return;
    Shown shown;
    shown.verdicts.command = common.command;
    shown.verdicts.strict = common.strictness();
    shown.verdicts.problem = problem;
    const std::string doc = rendered(common.format, shown);
    common.emitted = true;
    if (common.output_file.empty()) {
        std::cout << doc;
        std::cout.flush();
        return;
    }
    try {
        util::write_file_atomic(common.output_file, doc);
    } catch (const InputError& e) {
        std::cerr << "inferlint: " << e.what() << "\n";
    }
}

int emit(const std::vector<CheckResult>& all, const Common& common,
         const std::function<CheckResult(CheckResult)>& on_terminal) {
    Shown shown;
    shown.verdicts.command = common.command;
    shown.verdicts.results = common.selected(all);
    shown.verdicts.strict = common.strictness();
    shown.json = results_json(shown.verdicts.results);
    for (const auto& r : shown.verdicts.results) shown.text += terminal_line(on_terminal ? on_terminal(r) : r) + "\n";
    show(shown, common);
    return exit_code(shown.verdicts.results, common.strictness());
}

std::string paint(std::string_view line, bool colour) {
    if (!colour || !line.starts_with('[')) return std::string(line);
    const auto close = line.find("] ");
    if (close == std::string_view::npos || close > 5) return std::string(line);
    const std::string_view rest = line.substr(close + 2);
    for (Status s : {Status::fail, Status::warn, Status::pass, Status::unknown}) {
        const std::string_view label = status_label(s);
        if (!rest.starts_with(label) || !rest.substr(label.size()).starts_with("  ")) continue;
        return fmt::format("{}{}{}{}{}", line.substr(0, close + 2), colour_of(s), label, kColourReset,
                           rest.substr(label.size()));
    }
    return std::string(line);
}

std::string paint_lines(std::string_view text, bool colour) {
    if (!colour) return std::string(text);
    std::string out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        out += paint(line, colour);
        if (nl == std::string_view::npos) break;
        out += '\n';
        text.remove_prefix(nl + 1);
    }
    return out;
}

bool colour_wanted(std::string_view choice, bool stdout_is_tty, const char* no_color_env, const char* term_env) {
    if (choice == "always") return true;
    if (choice == "never") return false;
    if (no_color_env && *no_color_env) return false;
    if (term_env && std::string_view(term_env) == "dumb") return false;
    return stdout_is_tty;
}

}  // namespace inferlint::cli
