#include "registry.hpp"

#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/parse/procfs.hpp"
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/teardown.hpp"
#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <unistd.h>

// A namespace of its own: the unity build compiles the commands together, and every
// command has its Opts and its reg.
namespace inferlint::cli::teardown_cmd {
namespace {

struct Opts {
    run::WaitOptions wait{.timeout_s = 120.0};
    bool dry_run = false;
};

// The first n characters (not bytes) of UTF-8 text.
std::string first_chars(const std::string& s, std::size_t n) {
    std::size_t i = 0;
    for (std::size_t chars = 0; i < s.size() && chars < n; ++chars) {
        ++i;
        while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    }
    return s.substr(0, i);
}

bool contains_pid(const std::vector<procfs::Proc>& procs, int pid) {
    return std::any_of(procs.begin(), procs.end(), [&](const procfs::Proc& p) { return p.pid == pid; });
}

// Lists the targets, what was left alone, and what the usual pkill gets wrong. With
// --json these lines go to stderr so stdout stays one JSON document.
void describe(const std::vector<procfs::Proc>& procs, const std::vector<procfs::Proc>& targets, int self,
              const Common& common) {
    std::ostream& out = common.machine() ? std::cerr : std::cout;
    for (const auto& p : targets) out << fmt::format("target  pid={:<8} {}\n", p.pid, first_chars(p.cmdline(), 100));
    if (targets.empty() && !common.machine())
        out << fmt::format("no server processes found ({})\n",
                           common.engine ? common.engine->name : std::string("vLLM, SGLang or TensorRT-LLM"));
    std::vector<procfs::Proc> others;
    for (const auto& p : run::server_processes(procs, self))
        if (!contains_pid(targets, p.pid)) others.push_back(p);
    if (!others.empty() && !common.machine()) {
        std::set<std::string> kinds;  // sorted, as the names print
        for (const auto& p : others)
            if (auto e = run::server_engine(p)) kinds.insert(engine(*e).name);
        out << fmt::format("left alone ({}): {} processes of {} servers\n", common.how_named(), others.size(),
                           fmt::join(kinds, " and "));
    }
    const std::string pattern = run::usual_pkill_pattern(targets);
    const auto naive = run::naive_pkill_matches(procs, pattern);
    std::size_t missed = 0, wrong = 0;
    for (const auto& p : targets) missed += !contains_pid(naive, p.pid);
    for (const auto& p : naive) wrong += !contains_pid(targets, p.pid);
    if (missed || wrong)
        out << fmt::format("(pkill -f '{}' would miss {} and wrongly hit {})\n", pattern, missed, wrong);
    out.flush();
}

int teardown(const Opts& o, const Common& common) {
    const auto root = run::proc_root();
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec))
        return emit({checks::gpu_clear_needs_linux("teardown", root.string())}, common);
    const int self = static_cast<int>(::getpid());
    std::optional<EngineId> only;
    if (common.engine) only = common.engine->id;
    const auto procs = procfs::list_processes(root);
    describe(procs, run::server_processes(procs, self, only), self, common);
    if (o.dry_run) return 0;
    // A synthetic tree's pids name real processes on this machine: never signal from one.
    if (!run::proc_root_is_real(root))
        throw InputError(
            fmt::format("{}={}: a process tree for reading only; teardown signals only from /proc "
                        "(use --dry-run)",
                        run::kProcRootEnvVar, root.string()));

    const std::string exe = run::nvidia_smi_path();
    const auto runner = run::system_runner();
    std::vector<std::string> refused;
    auto send = [&](const std::vector<procfs::Proc>& ps, int sig) {
        return run::signal_processes(ps, sig, root, &refused);
    };
    run::SteadyClock clock;
    auto outcome = run::teardown([&] { return procfs::list_processes(root); }, send,
                                 [&] { return run::read_gpu_used_mib(runner, exe); },
                                 {.wait = o.wait, .engine = only, .self_pid = self}, clock);
    for (const auto& line : refused) std::cerr << "inferlint: could not signal " << line << "\n";
    std::vector<int> signalled;
    for (const auto& p : outcome.targets) signalled.push_back(p.pid);
    return emit({checks::check_gpu_clear_after_teardown(outcome.clear, signalled)}, common);
}

const Registrar reg{Command{.name = "teardown",
                            .group = Group::gpu,
                            .order = 2,
                            .summary = "T2: stop inference servers and wait for a free card",
                            .takes_engine = TakesEngine::yes,
                            .setup = [](CLI::App& app) {
                                auto o = std::make_shared<Opts>();
                                add_clear_card_options(app, o->wait);
                                app.add_flag("--dry-run", o->dry_run, "list targets, signal nothing");
                                return [o](const Common& common) -> int { return teardown(*o, common); };
                            }}};

}  // namespace
}  // namespace inferlint::cli::teardown_cmd
