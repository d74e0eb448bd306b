#include "registry.hpp"
#include "util/text.hpp"

#include "inferlint/checks/dcgm_gpu.hpp"
#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/parse/procfs.hpp"
#include "inferlint/run/gpu.hpp"
#include "inferlint/run/prometheus_dcgm.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/run/teardown.hpp"

#include <fmt/format.h>

#include <iostream>
#include <unistd.h>

// A namespace of its own: the unity build compiles the commands together, and every
// command has its Opts and its reg.
namespace inferlint::cli::gpu_inspect_cmd {
namespace {

struct Opts {
    run::WaitOptions wait{.timeout_s = 10.0};
    std::string prometheus, node, match, at;
};

std::string mib_text(const std::optional<long long>& v) {
    return v ? fmt::format("{} MiB", util::text::with_commas(*v)) : std::string("?");
}

void print_gpus(const run::GpuQuery& q) {
    if (q.gpus.empty())
        std::cout << "no NVIDIA GPU found: nvidia-smi is missing or failed"
                  << (q.why.empty() ? std::string() : fmt::format(" ({})", q.why)) << "\n";
    for (const auto& g : q.gpus) {
        std::vector<std::string> kind;
        if (auto f = g.family()) kind.push_back(*f);
        if (g.compute_cap) kind.push_back("compute capability " + *g.compute_cap);
        if (g.driver) kind.push_back("driver " + *g.driver);
        std::cout << fmt::format("GPU {}   {}\n", g.index, g.name);
        if (!kind.empty()) std::cout << fmt::format("        {}\n", fmt::join(kind, ", "));
        std::cout << fmt::format("        memory: {} total, {} used, {} free\n", mib_text(g.memory_total_mib),
                                 mib_text(g.memory_used_mib), mib_text(g.memory_free_mib));
    }
}

// --prometheus: a Kubernetes node's GPUs as NVIDIA's DCGM exporter last reported them, and
// the pods it maps to each; T2 from them (no process table to read there).
int gpu_inspect_dcgm(const Opts& o, const Common& common) {
    run::PromSource src;
    src.url = o.prometheus;
    src.selector = o.match;
    src.limits.read_s = o.wait.timeout_s;
    src.limits.connect_s = std::min(5.0, o.wait.timeout_s);
    src.limits.total_s = 2 * o.wait.timeout_s;
    const double at = o.at.empty() ? util::epoch_now() : util::parse_moment(o.at, "--at");
    const run::DcgmNode node = run::read_dcgm_node(src, o.node, at);
    CheckResult r = checks::check_gpu_clear_dcgm(node.used, node.free, o.wait.max_used_mib, node.why);
    if (!common.machine())
        for (const auto& g : r.evidence.value("gpus", Json::array())) {
            std::cout << fmt::format("GPU {}   {}{}\n", g.value("gpu", "?"), g.value("model", ""),
                                     g.value("host", "").empty() ? "" : "   on " + g.value("host", ""));
            std::cout << fmt::format("        {}\n", g.value("uuid", ""));
            std::optional<long long> used = g.value("used_mib", 0LL), free;
            if (g.contains("free_mib") && g["free_mib"].is_number()) free = g["free_mib"].get<long long>();
            std::cout << fmt::format("        memory: {} used, {} free\n", mib_text(used), mib_text(free));
            const auto pods = g.value("pods", std::vector<std::string>{});
            std::cout << fmt::format("        pods: {}\n",
                                     pods.empty() ? "none" : fmt::format("{}", fmt::join(pods, ", ")));
        }
    return emit({std::move(r)}, common);
}

int gpu_inspect(const Opts& o, const Common& common) {
    if (!o.prometheus.empty()) return gpu_inspect_dcgm(o, common);
    if (!o.node.empty() || !o.match.empty() || !o.at.empty())
        throw InputError("gpu-inspect: --node, --match and --at go with --prometheus");
    const std::string exe = run::nvidia_smi_path();
    const auto runner = run::system_runner();
    run::GpuQuery q = run::read_gpus(runner, exe);
    if (!common.machine()) print_gpus(q);

    const auto root = run::proc_root();
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec))
        return emit({checks::gpu_clear_needs_linux("Checking that the GPU is free", root.string(), q.gpus)}, common);

    // The card is free only when no engine's server holds it, whichever engine.
    const int self = static_cast<int>(::getpid());
    auto live = [&] { return static_cast<int>(run::server_processes(procfs::list_processes(root), self).size()); };
    auto used = [&] { return run::read_gpu_used_mib(runner, exe); };
    run::SteadyClock clock;
    return emit({checks::check_gpu_clear_to_boot(run::wait_clear(used, live, o.wait, clock), q.gpus)}, common);
}

const Registrar reg{
    Command{.name = "gpu-inspect",
            .group = Group::gpu,
            .order = 1,
            .summary = "T2: which GPU this is, its memory, and whether it is free",
            .takes_engine = TakesEngine::no,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                add_clear_card_options(app, o->wait);
                app.add_option("--prometheus", o->prometheus,
                               "read a Kubernetes node's GPUs from NVIDIA's DCGM exporter through "
                               "this Prometheus (DCGM_FI_DEV_FB_USED, its pod labels)")
                    ->type_name("URL");
                app.add_option("--node", o->node,
                               "with --prometheus: the node, as DCGM's Hostname label names it "
                               "(default: every node the selector matches)");
                app.add_option("--match", o->match,
                               "with --prometheus: label matchers for the DCGM series, e.g. "
                               "'{job=\"dcgm-exporter\"}'");
                app.add_option("--at", o->at, "with --prometheus: the moment, Unix seconds or RFC 3339 (default: now)");
                return [o](const Common& common) -> int { return gpu_inspect(*o, common); };
            }}};

}  // namespace
}  // namespace inferlint::cli::gpu_inspect_cmd
