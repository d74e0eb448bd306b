// Shell completions and the man page, generated from the CLI11 definition itself (the
// commands, their options and help) plus the catalog's tripwires and the engine table, so
// neither can drift from what the program accepts.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace inferlint::cli {

struct CliOption {
    std::vector<std::string> names;  // "-o", "--out"
    std::string help;
    std::string value;                 // "FILE"; empty: a flag
    std::vector<std::string> choices;  // the values it takes, where they are a fixed set
};

struct CliCommand {
    std::string name, summary, group;
    std::vector<CliOption> options;
    std::vector<std::string> arguments;        // positionals, as named in --help
    std::vector<std::string> argument_values;  // what the positionals complete to (explain: tripwires)
};

// The subcommands of `app` as --help lists them.
std::vector<CliCommand> describe(const CLI::App& app);

// The completion script for "bash", "zsh" or "fish"; empty for another shell.
std::string completion_script(std::string_view shell, const std::vector<CliCommand>& commands);

// inferlint.1 in man(7) markup.
std::string man_page(const CLI::App& app, const std::vector<CliCommand>& commands, std::string_view version);

}  // namespace inferlint::cli
