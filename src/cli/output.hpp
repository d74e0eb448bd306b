// Where a command's verdicts go: the terminal (coloured on a tty), --format's rendering
// on stdout, and --output-file's copy written whole or not at all.
#pragma once

#include "registry.hpp"

#include "inferlint/report/formats.hpp"

#include <string>
#include <string_view>

namespace inferlint::cli {

// What a command shows once it has its verdicts.
struct Shown {
    report::Verdicts verdicts;
    std::string text;  // what the terminal shows (uncoloured), its lines ending in \n
    std::string json;  // the --json document, without its final \n
};

// The document of `format` for `shown`.
std::string rendered(report::Format format, const Shown& shown);

// Prints `shown` on stdout in the format stdout carries (the text coloured when asked),
// and writes --output-file's format to that file. A file that cannot be written throws
// InputError (one line, exit 2), and nothing is left of it.
void show(const Shown& shown, const Common& common);

// The format's own form of a command that stopped before its verdicts (bad input): a
// JUnit file whose run died, a ::error annotation, a Markdown note. Nothing for text and
// json, whose error is the line on stderr.
void show_problem(const std::string& problem, const Common& common);

// The status word of a verdict line ("[ T1] TRIPWIRE-FAILED  ...") coloured: failed red,
// WARN yellow, PASS green, ???? magenta. Other lines come back as they were.
std::string paint(std::string_view line, bool colour);

// Every line of `text` painted.
std::string paint_lines(std::string_view text, bool colour);

// --color: always, never, or auto (a terminal on stdout, NO_COLOR unset or empty, and
// TERM not "dumb").
bool colour_wanted(std::string_view choice, bool stdout_is_tty, const char* no_color_env, const char* term_env);

}  // namespace inferlint::cli
