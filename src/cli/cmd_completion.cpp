// `inferlint completion bash|zsh|fish`: the shell's completion script, made from the
// command table itself (cli_docs.hpp).
#include "cli_docs.hpp"
#include "registry.hpp"

#include <iostream>

namespace inferlint::cli::completion_cmd {
namespace {

const Registrar reg{Command{
    .name = "completion",
    .group = Group::learn,
    .order = 9,
    .summary = "print a shell completion script: bash, zsh or fish (e.g. source <(inferlint completion bash))",
    .takes_engine = TakesEngine::no,
    .gives_verdicts = GivesVerdicts::no,
    .setup = [](CLI::App& app) {
        auto shell = std::make_shared<std::string>();
        app.add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
        return [shell, &app](const Common&) -> int {
            std::cout << completion_script(*shell, describe(*app.get_parent()));
            return 0;
        };
    }}};

}  // namespace
}  // namespace inferlint::cli::completion_cmd
