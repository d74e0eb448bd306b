// The subcommand table. Each src/cli/cmd_*.cpp registers one command with a static
// Registrar; cli/app.cpp builds --help and dispatch from this table.
#pragma once

#include "inferlint/checks/suite.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/report/formats.hpp"
#include "inferlint/run/loader.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace inferlint::run {
struct WaitOptions;
}

namespace inferlint::cli {

// Groups, in the order --help lists them.
enum class Group { run, saved, record, gpu, learn };

// Options every command shares. `engine` is filled after parsing from --engine or
// INFERLINT_ENGINE (nullptr: tell it from the input).
struct Common {
    // --json, or --format json.
    bool json = false;
    // --format (--json: json), and --output-file: where that format goes instead of
    // stdout, which then keeps the text.
    std::string format_arg;
    report::Format format = report::Format::text;
    std::string output_file;
    // --color, and what it came to (never on stdout that carries a document).
    std::string colour_arg = "auto";
    bool colour = false;
    std::string command;  // the subcommand's name: names the JUnit suite
    // Set once the verdicts are shown, so a bad input's error form is not added after them.
    mutable bool emitted = false;
    bool strict = false;
    std::string engine_arg;
    const Engine* engine = nullptr;
    bool engine_from_env = false;
    // The tripwires to report (--tripwires, else $INFERLINT_TRIPWIRES, else the command's
    // default); nullopt: all of them.
    std::string tripwires_arg;
    std::optional<std::vector<TripwireId>> only;

    // The format stdout carries: --format's, or text when --output-file takes the format.
    report::Format stdout_format() const { return output_file.empty() ? format : report::Format::text; }
    // stdout carries a document, not lines for a person: progress goes to stderr.
    bool machine() const { return stdout_format() != report::Format::text; }
    Strict strictness() const { return strict ? Strict::yes : Strict::no; }
    // The results for the tripwires asked for, in order (all of them when none were named).
    std::vector<CheckResult> selected(std::vector<CheckResult> results) const;
    // "--engine sglang" or "INFERLINT_ENGINE=sglang", for messages.
    std::string how_named() const;
};

enum class TakesEngine { no, yes };

// Whether a command gives verdicts: those take --format, --output-file and --color.
enum class GivesVerdicts { no, yes };

struct Command {
    std::string name;
    Group group;
    int order;            // position within its group
    std::string summary;  // the line --help shows, and the command's description
    TakesEngine takes_engine = TakesEngine::yes;
    GivesVerdicts gives_verdicts = GivesVerdicts::yes;
    // Adds the command's own options to `app` (bound to storage it owns) and returns
    // the function that runs it and returns the exit status.
    std::function<std::function<int(const Common&)>(CLI::App& app)> setup;
};

struct Registrar {
    explicit Registrar(Command c);
};

const std::vector<Command>& commands();

int run(int argc, char** argv);

// ---- shared output helpers for commands ----

inline constexpr const char* kTripwiresEnvVar = "INFERLINT_TRIPWIRES";

// Prints the results for the tripwires asked for (terminal lines, --json or --format's
// document, and --output-file's copy) and returns the exit status they give.
// `on_terminal` changes what the terminal's lines say (rate's timer comparison), not the
// documents.
int emit(const std::vector<CheckResult>& results, const Common& common,
         const std::function<CheckResult(CheckResult)>& on_terminal = {});

// When the user named an engine and `found` is another one: says so on stderr and
// returns true (the command then exits 2).
bool other_engine(const Common& common, const Engine* found, const std::string& what,
                  const std::string& verb = "came from");

// The loaders' question for each input: refused (said on stderr, as other_engine does)
// when it came from another engine than the one named.
run::AcceptEngine refuse_other_engine(const Common& common);

// When nothing tells the engine and none was named: a note on stderr that vLLM is assumed.
void note_unknown(const Common& common, const Engine* found, const std::string& what);

// The engine key to read an input as: the named one, else what the input says, else vLLM.
const Engine& effective_engine(const Common& common, const Engine* found);

// --requested N: the concurrency the load kept open, validated in this one place for
// every command. 0 or below is refused (exit 2) with one line naming the option.
void add_requested_option(CLI::App& app, std::optional<checks::Requested>& requested, const std::string& help);

// --max-failed-share PCT (0 to 100): the share of failed requests T20 accepts with a WARN;
// stored as a fraction. Anything else is a usage error.
void add_max_failed_share_option(CLI::App& app, std::optional<double>& share);

// --header (repeatable), --api-key (default $VLLM_API_KEY), --ca-cert and --insecure, on
// every command that talks to a server: once the command line is read they become the
// process's util::HttpOptions, which every request of the command then uses. --insecure
// is said on stderr.
void add_http_options(CLI::App& app);

// --max-used-mib, --consecutive and --timeout: T2's wait for a free card, as gpu-inspect
// and teardown take it, bound to `wait` with its values as the defaults.
void add_clear_card_options(CLI::App& app, run::WaitOptions& wait);

}  // namespace inferlint::cli
