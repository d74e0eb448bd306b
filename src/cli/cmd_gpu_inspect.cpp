#include "registry.hpp"
#include "util/text.hpp"

#include "inferlint/checks/t02_gpu_clear.hpp"
#include "inferlint/parse/procfs.hpp"
#include "inferlint/run/gpu.hpp"
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

int gpu_inspect(const Opts& o, const Common& common) {
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

const Registrar reg{Command{.name = "gpu-inspect",
                            .group = Group::gpu,
                            .order = 1,
                            .summary = "T2: which GPU this is, its memory, and whether it is free",
                            .takes_engine = TakesEngine::no,
                            .setup = [](CLI::App& app) {
                                auto o = std::make_shared<Opts>();
                                add_clear_card_options(app, o->wait);
                                return [o](const Common& common) -> int { return gpu_inspect(*o, common); };
                            }}};

}  // namespace
}  // namespace inferlint::cli::gpu_inspect_cmd
