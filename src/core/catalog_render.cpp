// Rendering the catalog: `explain`'s text and docs/tripwires.md.
#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace inferlint {

namespace {

// A shell word as a reader would type it: quoted only when it needs to be.
std::string shell_word(std::string_view arg) {
    bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("_./-=:+,").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(arg);
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens.
std::string anchor(std::string_view title) {
    std::string out;
    for (char c : title) {
        auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '_')
            out += static_cast<char>(std::tolower(u));
        else if (c == ' ')
            out += '-';
    }
    return out;
}

std::string heading(const Tripwire& t) { return fmt::format("{}: {}", t.id, t.name); }

std::string table_cell(std::string_view text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

std::string example_markdown(const Tripwire& t, const TripwireExample& ex) {
    std::string cmd = "$ inferlint";
    for (auto a : ex.args) cmd += " " + shell_word(a);
    if (ex.output == TripwireExample::Output::excerpt) cmd += fmt::format(" | grep -F '[{:>3}]'", t.id);
    std::string out = "```console\n" + cmd + "\n";
    for (auto line : ex.lines) out += std::string(line) + "\n";
    return out + "```\n\n";
}

}  // namespace

std::string known_tripwires_text() {
    const auto& all = tripwires();
    std::string text = fmt::format("{}-{}, or a name:", all.front().id, all.back().id);
    for (std::size_t i = 0; i < all.size(); ++i) text += fmt::format("{} {}", i ? "," : "", all[i].slug);
    return text;
}

std::vector<std::string> wrap_paragraph(std::string_view text, std::size_t width, std::string_view indent) {
    const std::size_t room = width > indent.size() ? width - indent.size() : 1;
    std::vector<std::string> lines;
    std::string line;
    auto flush = [&] {
        if (!line.empty()) lines.push_back(std::string(indent) + line);
        line.clear();
    };
    std::size_t pos = 0;
    while (pos < text.size()) {
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
        std::size_t end = pos;
        while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
        std::string_view word = text.substr(pos, end - pos);
        pos = end;
        if (word.empty()) break;
        if (!line.empty() && line.size() + 1 + word.size() <= room) {
            line += ' ';
            line += word;
            continue;
        }
        flush();
        // A word longer than a whole line is cut, as Python's textwrap does.
        while (word.size() > room) {
            lines.push_back(std::string(indent) + std::string(word.substr(0, room)));
            word.remove_prefix(room);
        }
        line = std::string(word);
    }
    flush();
    return lines;
}

std::string explain_text(const Tripwire& t, const Engine* only, std::size_t width) {
    std::string out = fmt::format("{}  {}  ({})\n", t.id, t.name, t.slug);
    if (out.size() - 1 > width) {  // a narrow terminal: the name wrapped under its code, then the slug
        auto name = wrap_paragraph(t.name, width, "     ");
        name[0].replace(0, 5, fmt::format("{:<5}", t.id));
        out.clear();
        for (const auto& line : name) out += line + "\n";
        out += fmt::format("    ({})\n", t.slug);
    }
    std::vector<std::string> paragraphs{std::string(t.what), "Why it matters: " + std::string(t.why)};
    for (const Engine* e : all_engines()) {
        if (t.note(e->id).empty() || (only && only->id != e->id)) continue;
        paragraphs.push_back(fmt::format("On {}: {}", e->name, t.note(e->id)));
    }
    for (const auto& p : paragraphs)
        for (const auto& line : wrap_paragraph(p, width, "    ")) out += line + "\n";
    out += fmt::format("    Check: {}\n\n", t.command);
    return out;
}

std::string render_tripwires_markdown() {
    const auto& all = tripwires();
    std::string md =
        "# The tripwires\n\n"
        "<!-- Generated from the tripwire catalog (src/core/catalog.cpp), the same table `inferlint explain`\n"
        "     prints. Do not edit by hand: change the catalog, then regenerate with\n"
        "     INFERLINT_REGENERATE_DOCS=1 build/inferlint_tests \"[docs]\" -->\n\n"
        "A tripwire is a way a benchmark of an inference server goes wrong without saying so. Each entry "
        "below gives the symptom, why it changes a benchmark's numbers, what inferlint's check does, a "
        "command that reproduces it, what differs on SGLang and TensorRT-LLM, and how it was verified. "
        "Symptoms are described as vLLM shows them, since most were found there first.\n\n"
        "Codes (T1 to T15) never change; they number the tripwires in the order they were found. Each also "
        "has a name, and `inferlint explain` takes either: `inferlint explain T9`, "
        "`inferlint explain falling-ceiling`, `inferlint explain T1 --engine sglang`.\n\n"
        "The examples run in the folder of recorded evidence the tests use (`../shared/reference/fixtures` "
        "beside a clone): real boot logs, `/metrics` snapshots, gauge recordings and load-tool results from "
        "vLLM 0.28, 0.29 and 0.30, SGLang 0.5.20 and TensorRT-LLM 1.3.0rc29 on an RTX 4090. A test runs "
        "every example and checks its verdict lines.\n\n"
        "\"Verified\" says how each tripwire was checked. **live 0.28 / 0.29 / 0.30**: measured on a running "
        "vLLM server of that version; **SGLang, TensorRT-LLM**: measured live on SGLang 0.5.20 and "
        "TensorRT-LLM 1.3.0rc29; **fixture**: tested against recorded evidence; **mock**: tested against a "
        "mock server with known behaviour; **documented**: a pattern to follow, with no command to check "
        "it.\n\n"
        "| code | name | symptom | checked by | verified |\n"
        "|---|---|---|---|---|\n";
    for (const auto& t : all)
        md += fmt::format("| {} | [{}](#{}) | {} | `{}` | {} |\n", t.id, t.slug, anchor(heading(t)), table_cell(t.trap),
                          table_cell(t.command), table_cell(t.verified));
    md +=
        "\nEvery command is `inferlint <command>`; `inferlint xray` runs every check that applies around "
        "one benchmark run, and `inferlint report` runs them again on its saved files.\n";
    for (const auto& t : all) {
        md += fmt::format("\n## {}\n\n", heading(t));
        md += fmt::format("Name: `{}`.\n\n", t.slug);
        md += fmt::format("**Symptom.** {}\n\n", t.what);
        md += fmt::format("**Why it changes the numbers.** {}\n\n", t.why);
        md += fmt::format("**What the check does.** {}\n\n", t.check);
        md += fmt::format("**Command.** `{}`\n\n", t.command);
        if (!t.shown_by.empty()) {
            std::string cmds;
            for (auto c : t.shown_by) cmds += fmt::format("{}`{}`", cmds.empty() ? "" : ", ", c);
            md += fmt::format("**Shown by:** {}.\n\n", cmds);
        }
        for (const auto& ex : t.examples) md += example_markdown(t, ex);
        for (const Engine* e : all_engines())
            if (!t.note(e->id).empty()) md += fmt::format("**On {}:** {}\n\n", e->name, t.note(e->id));
        if (!t.measured.empty()) md += fmt::format("**Measured.** {}\n\n", t.measured);
        md += fmt::format("**Verified:** {}.\n", t.verified);
    }
    return md;
}

}  // namespace inferlint
