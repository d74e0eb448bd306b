#include "cli_docs.hpp"
#include "output.hpp"
#include "registry.hpp"

#include "inferlint/run/teardown.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <streambuf>

#include <unistd.h>

namespace inferlint::cli {

namespace {

std::vector<Command>& table() {
    static std::vector<Command> t;
    return t;
}

const char* group_title(Group g) {
    switch (g) {
        case Group::run:
            return "Run and check a benchmark";
        case Group::saved:
            return "Check a saved run";
        case Group::record:
            return "Record a server yourself";
        case Group::gpu:
            return "The GPU";
        case Group::learn:
            return "Learn";
    }
    return "";
}

std::vector<const Command*> sorted_commands() {
    std::vector<const Command*> out;
    for (const auto& c : commands()) out.push_back(&c);
    std::sort(out.begin(), out.end(), [](const Command* a, const Command* b) {
        return std::pair{static_cast<int>(a->group), a->order} < std::pair{static_cast<int>(b->group), b->order};
    });
    return out;
}

std::string start_text() {
    std::string text =
        "inferlint checks an inference benchmark run for silent problems (tripwires).\n\n"
        "Start here:\n";
    bool has_xray = false, has_report = false;
    for (const auto& c : commands()) {
        has_xray |= c.name == "xray";
        has_report |= c.name == "report";
    }
    if (has_xray)
        text +=
            "  inferlint xray -o run/ --serve \"SERVER COMMAND\" -- LOAD COMMAND\n"
            "      start the server, run the load, check the run, write run/report.html, stop it\n"
            "  inferlint xray -o run/ --url http://127.0.0.1:8000 -- <load command>\n"
            "      the same, against a server that is already running\n";
    if (has_report)
        text +=
            "  inferlint report run/\n"
            "      check a saved run folder again, and rewrite its report.html\n";
    text +=
        "  inferlint preemption before.snapshot.json after.snapshot.json\n"
        "      T1: did the server preempt requests between two snapshots?\n"
        "  inferlint series run.series.jsonl --snapshot after.snapshot.json --requested 32\n"
        "      T8 T9 T14: concurrency reached, the cache's ceiling, the block count\n"
        "  inferlint explain T1\n"
        "      what a tripwire catches\n\n"
        "vLLM, SGLang and TensorRT-LLM are told apart from their files; to name the engine,\n"
        "set INFERLINT_ENGINE or pass --engine.\n\n"
        "Every command: inferlint --help\n";
    return text;
}

// difflib-like similarity: 2*matches/total over the longest common subsequence.
double similarity(const std::string& a, const std::string& b) {
    std::vector<std::vector<int>> dp(a.size() + 1, std::vector<int>(b.size() + 1, 0));
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j)
            dp[i][j] = a[i - 1] == b[j - 1] ? dp[i - 1][j - 1] + 1 : std::max(dp[i - 1][j], dp[i][j - 1]);
    std::size_t total = a.size() + b.size();
    return total ? 2.0 * dp[a.size()][b.size()] / static_cast<double>(total) : 0.0;
}

// --format, --output-file and --color, on every command that gives verdicts.
void add_output_options(CLI::App& sub, Common& common) {
    sub.add_option("--format", common.format_arg,
                   "output for CI: text (the default), json (as --json), junit (JUnit XML), github (workflow "
                   "annotations) or markdown (a step summary)")
        ->type_name("FORMAT")
        ->check(CLI::IsMember({"text", "json", "junit", "github", "markdown"}));
    sub.add_option("--output-file", common.output_file,
                   "write --format's output to this file (whole or not at all); the terminal keeps the text")
        ->type_name("FILE");
    sub.add_option("--color", common.colour_arg,
                   "colour the status words: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always, "
                   "never")
        ->type_name("WHEN")
        ->check(CLI::IsMember({"auto", "always", "never"}));
}

bool resolve_engine(Common& common) {
    if (!common.engine_arg.empty()) {
        common.engine = parse_key(common.engine_arg);
        return true;  // validated by CLI11's check
    }
    const char* env = std::getenv(kEngineEnvVar);
    std::string value = env ? env : "";
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1 == 0 ? 0 : value.find_last_not_of(" \t") + 1);
    if (value.empty()) return true;
    common.engine = parse_key(value);
    if (!common.engine) {
        std::cerr << fmt::format("inferlint: {}={}: unknown engine (known: vllm, sglang, trtllm)\n", kEngineEnvVar,
                                 value);
        return false;
    }
    common.engine_arg = common.engine->key;
    common.engine_from_env = true;
    return true;
}

// --tripwires, else $INFERLINT_TRIPWIRES, else every tripwire: which tripwires to report.
bool resolve_tripwires(Common& common) {
    const char* env = std::getenv(kTripwiresEnvVar);
    const bool from_env = common.tripwires_arg.empty();
    std::string value = from_env ? (env ? env : "") : common.tripwires_arg;
    if (value.empty()) value = "all";
    common.only = parse_tripwire_selection(value);
    if (!common.only) {
        std::cerr << fmt::format(
            "inferlint: {}{}: not a list of tripwires (for example all, reference, T1-T15 or T1,T8)\n",
            from_env ? fmt::format("{}=", kTripwiresEnvVar) : "--tripwires ", value);
        return false;
    }
    return true;
}

// --format and --json (which is --format json), and --color.
bool resolve_output(Common& common) {
    if (!common.format_arg.empty()) {
        common.format = *report::parse_format(common.format_arg);  // validated by CLI11's check
        if (common.json && common.format != report::Format::json) {
            std::cerr << fmt::format("inferlint: --json and --format {} ask for different output; give one\n",
                                     common.format_arg);
            return false;
        }
    } else if (common.json) {
        common.format = report::Format::json;
    }
    common.json = common.format == report::Format::json;
    common.colour = !common.machine() && colour_wanted(common.colour_arg, ::isatty(STDOUT_FILENO) == 1,
                                                       std::getenv("NO_COLOR"), std::getenv("TERM"));
    return true;
}

// Passes stderr through and keeps its last line: the message a bad input's JUnit,
// annotation or summary carries.
class LastLineBuf : public std::streambuf {
public:
    explicit LastLineBuf(std::streambuf* to) : to_(to) {}
    std::string last() const {
        std::string l = line_.empty() ? last_ : line_;
        return l.starts_with("inferlint: ") ? l.substr(11) : l;
    }

protected:
    int overflow(int c) override {
        if (c == traits_type::eof()) return traits_type::not_eof(c);
        take(static_cast<char>(c));
        return to_->sputc(static_cast<char>(c));
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        for (std::streamsize i = 0; i < n; ++i) take(s[i]);
        return to_->sputn(s, n);
    }
    int sync() override { return to_->pubsync(); }

private:
    void take(char c) {
        if (c != '\n') {
            line_ += c;
        } else if (!line_.empty()) {
            last_ = std::move(line_);
            line_.clear();
        }
    }
    std::streambuf* to_;
    std::string line_, last_;
};

// Runs the chosen command; a bad input is one line on stderr and exit 2, and, in a CI
// format, that format's own error form.
int run_chosen(const std::function<int(const Common&)>& chosen, const Common& common) {
    LastLineBuf recorder(std::cerr.rdbuf());
    std::streambuf* const saved = std::cerr.rdbuf(&recorder);
    struct Restore {
        std::streambuf* saved;
        ~Restore() { std::cerr.rdbuf(saved); }
    } restore{saved};
    int rc = 2;
    try {
        rc = chosen(common);
    } catch (const InputError& e) {
        std::cout.flush();
        std::cerr << "inferlint: " << e.what() << "\n";
    } catch (const std::exception& e) {
        std::cout.flush();
        std::cerr << "inferlint: error: " << e.what() << "\n";
    }
    if (rc == 2 && !common.emitted) {
        std::string why = recorder.last();
        show_problem(why.empty() ? "the command stopped before giving verdicts" : why, common);
    }
    return rc;
}

}  // namespace

std::vector<CheckResult> Common::selected(std::vector<CheckResult> results) const {
    if (!only) return results;
    std::erase_if(results, [&](const CheckResult& r) {
        return std::find(only->begin(), only->end(), r.tripwire) == only->end();
    });
    return results;
}

Registrar::Registrar(Command c) { table().push_back(std::move(c)); }

const std::vector<Command>& commands() { return table(); }

std::string Common::how_named() const {
    std::string key = engine ? engine->key : engine_arg;
    return engine_from_env ? fmt::format("{}={}", kEngineEnvVar, key) : fmt::format("--engine {}", key);
}

void add_clear_card_options(CLI::App& app, run::WaitOptions& o) {
    app.add_option("--max-used-mib", o.max_used_mib, "a GPU using more MiB than this is not free")
        ->capture_default_str();
    app.add_option("--consecutive", o.consecutive, "clear readings in a row needed")
        ->check(CLI::Range(1, INT_MAX))
        ->capture_default_str();
    app.add_option("--timeout", o.timeout_s, "seconds to wait for a clear card")->capture_default_str();
}

void add_http_options(CLI::App& app) {
    struct Given {
        std::vector<std::string> headers;
        std::string api_key, ca_cert;
        bool insecure = false;
    };
    auto given = std::make_shared<Given>();
    app.add_option("--header", given->headers, "send this header with every request (repeatable)")
        ->type_name("'NAME: VALUE'")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->check([](const std::string& v) -> std::string {
            try {
                util::parse_header(v);
            } catch (const InputError& e) {
                return e.what();
            }
            return "";
        });
    app.add_option("--api-key", given->api_key,
                   "the server's API key, sent as 'Authorization: Bearer KEY' to its /v1 endpoints")
        ->type_name("KEY")
        ->envname("VLLM_API_KEY");
    app.add_option("--ca-cert", given->ca_cert, "https: trust the CAs in this PEM file too")
        ->type_name("FILE")
        ->check([](const std::string& v) -> std::string {
            std::error_code ec;
            if (!std::filesystem::is_regular_file(v, ec)) return fmt::format("no such file: {}", v);
            std::ifstream in(v, std::ios::binary);
            std::string head(64 << 10, '\0');
            in.read(head.data(), static_cast<std::streamsize>(head.size()));
            head.resize(static_cast<std::size_t>(in.gcount()));
            return head.find("-----BEGIN CERTIFICATE-----") != std::string::npos
                       ? ""
                       : fmt::format("{}: not a PEM file of certificates", v);
        });
    app.add_flag("--insecure", given->insecure, "https: do not check the server's certificate (said on stderr)");
    app.parse_complete_callback([given] {
        util::HttpOptions http;
        for (const auto& h : given->headers) http.headers.push_back(util::parse_header(h));
        if (!given->api_key.empty()) http.api_key = given->api_key;
        if (!given->ca_cert.empty()) http.ca_cert = given->ca_cert;
        http.insecure = given->insecure;
        util::set_http_options(std::move(http));
        if (given->insecure)
            std::cerr << "note: --insecure: https certificates are not checked; anyone on the way to the server "
                         "can read and change its answers\n";
    });
}

void add_max_failed_share_option(CLI::App& app, std::optional<double>& share) {
    app.add_option_function<double>(
           "--max-failed-share", [&share](double pct) { share = pct / 100.0; },
           "T20: accept up to PCT% of requests failed with a WARN instead of a failure")
        ->type_name("PCT")
        ->check([](const std::string& v) -> std::string {
            double pct = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), pct);
            if (ec != std::errc() || end != v.data() + v.size() || !(pct >= 0 && pct <= 100))
                return fmt::format("must be a percentage from 0 to 100, not '{}'", v);
            return "";
        });
}

void add_requested_option(CLI::App& app, std::optional<checks::Requested>& requested, const std::string& help) {
    app.add_option_function<long long>(
           "--requested", [&requested](long long n) { requested = checks::Requested::of(n); }, help)
        ->type_name("N")
        ->check([](const std::string& v) -> std::string {
            long long n = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || !checks::Requested::of(n))
                return fmt::format("must be a whole number above 0 (the load's concurrency), not '{}'", v);
            return "";
        });
}

bool other_engine(const Common& common, const Engine* found, const std::string& what, const std::string& verb) {
    if (!common.engine || !found || found == common.engine) return false;
    std::cerr << fmt::format(
        "inferlint: {}, but {} {} {}. Check the server address or the file, or name the engine it "
        "came from.\n",
        common.how_named(), what, verb, found->name);
    return true;
}

run::AcceptEngine refuse_other_engine(const Common& common) {
    return [&common](const Engine* found, const std::string& what) { return !other_engine(common, found, what); };
}

void note_unknown(const Common& common, const Engine* found, const std::string& what) {
    if (found || common.engine) return;
    std::cerr << fmt::format(
        "note: {} does not say which engine it came from; read as vLLM's (--engine or {} names it)\n", what,
        kEngineEnvVar);
}

const Engine& effective_engine(const Common& common, const Engine* found) {
    if (common.engine) return *common.engine;
    if (found) return *found;
    return vllm();
}

// A first word that is no command and no option: one line with the closest command's name, exit 2.
static std::optional<int> refuse_unknown_command(const std::string& word) {
    const auto& cmds = commands();
    if (word.starts_with("-") ||
        std::any_of(cmds.begin(), cmds.end(), [&](const Command& c) { return c.name == word; }))
        return std::nullopt;
    std::string best;
    double best_score = 0.6;
    for (const auto& c : cmds) {
        double s = similarity(word, c.name);
        if (s >= best_score) best_score = s, best = c.name;
    }
    std::string hint = best.empty() ? "" : fmt::format(" Did you mean '{}'?", best);
    std::cerr << fmt::format("inferlint: unknown command '{}'.{} 'inferlint --help' lists them.\n", word, hint);
    return 2;
}

int run(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cout << start_text();
        return 0;
    }
    if (auto refused = refuse_unknown_command(args[0])) return *refused;

    CLI::App app{"inferlint: checks an inference server's benchmark run for silent problems (tripwires).", "inferlint"};
    app.footer(
        "\nExit status: 0 every tripwire passed (warnings allowed), 1 a tripwire failed,\n"
        "2 a tripwire could not decide, or the input was bad or from another engine.");
    app.set_version_flag("--version", std::string("inferlint ") + INFERLINT_VERSION);
    app.require_subcommand(1);
    app.get_formatter()->column_width(16);

    Common common;
    std::function<int(const Common&)> chosen;
    struct Runner {
        CLI::App* sub;
        std::string name;
        std::function<int(const Common&)> run;
    };
    std::vector<Runner> runners;
    for (const Command* c : sorted_commands()) {
        CLI::App* sub = app.add_subcommand(c->name, c->summary);
        sub->group(group_title(c->group));
        sub->add_flag("--json", common.json, "machine-readable output");
        if (c->gives_verdicts == GivesVerdicts::yes) add_output_options(*sub, common);
        sub->add_flag("--strict", common.strict, "treat warnings as failures");
        sub->add_option("--tripwires", common.tripwires_arg,
                        "report only these: all, reference (the Python tool's T1-T15, line for line), or a list "
                        "such as T1-T15 or T1,T8 (default: $INFERLINT_TRIPWIRES, else all)")
            ->type_name("LIST");
        if (c->takes_engine == TakesEngine::yes) {
            sub->add_option("--engine", common.engine_arg,
                            "the serving engine (default: $INFERLINT_ENGINE, else told from the input)")
                ->type_name("{vllm,sglang,trtllm}")
                ->check([](const std::string& v) -> std::string {
                    return parse_key(v) ? "" : fmt::format("unknown engine '{}' (known: vllm, sglang, trtllm)", v);
                });
        }
        runners.push_back({sub, c->name, c->setup(*sub)});
    }
    // Hidden: the man page, made at build time from this definition (CMakeLists.txt).
    bool man = false;
    app.add_flag("--man", man, "print the man page (inferlint.1)")->group("");
    if (args.size() == 1 && args[0] == "--man") {
        std::cout << man_page(app, describe(app), INFERLINT_VERSION);
        return 0;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        // A bad command line: one line naming the option, exit 2.
        std::cerr << fmt::format("inferlint: {} (see 'inferlint --help')\n", e.what());
        return 2;
    }
    for (auto& r : runners)
        if (r.sub->parsed()) chosen = r.run, common.command = r.name;
    if (!chosen) return 2;
    if (!resolve_output(common)) return 2;
    return run_chosen(
        [&](const Common&) {
            if (!resolve_engine(common) || !resolve_tripwires(common)) return 2;
            return chosen(common);
        },
        common);
}

}  // namespace inferlint::cli
