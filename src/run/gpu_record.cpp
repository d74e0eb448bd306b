#include "inferlint/run/gpu_record.hpp"

#include "inferlint/parse/procfs.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <map>

namespace inferlint::run {

parse::GpuSample read_gpu_sample(const CommandRunner& run, const std::string& exe) {
    parse::GpuSample s;
    const std::string format(nvidia_smi::kFormat);
    auto mem = run({exe, std::string(parse::kGpuMemoryQuery), format});
    if (!mem.ok()) {
        s.error = mem.why.empty() ? fmt::format("{} failed", exe) : mem.why;
        return s;
    }
    auto gpus = parse::parse_gpu_memory(mem.out);
    if (!gpus) {
        s.error = fmt::format("{} {} printed no GPU readings", exe, parse::kGpuMemoryQuery);
        return s;
    }
    auto apps_out = run({exe, std::string(parse::kComputeAppsQuery), format});
    if (!apps_out.ok()) {
        s.error = apps_out.why.empty() ? fmt::format("{} failed", exe) : apps_out.why;
        return s;
    }
    auto apps = parse::parse_compute_apps(apps_out.out);
    if (!apps) {
        s.error = fmt::format("{} {} printed something that is not its fields", exe, parse::kComputeAppsQuery);
        return s;
    }
    s.gpus = std::move(*gpus);
    s.apps = std::move(*apps);
    return s;
}

std::vector<long long> process_tree(const std::filesystem::path& proc_root, int root) {
    std::multimap<int, int> children;
    for (const auto& p : procfs::list_processes(proc_root)) children.emplace(p.ppid, p.pid);
    std::vector<long long> out{root};
    for (std::size_t i = 0; i < out.size() && out.size() < 100'000; ++i) {
        auto [lo, hi] = children.equal_range(static_cast<int>(out[i]));
        for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    }
    return out;
}

std::vector<long long> process_trees(const std::filesystem::path& proc_root, const std::vector<int>& roots) {
    std::vector<long long> out;
    for (int root : roots)
        if (root > 0)
            for (long long p : process_tree(proc_root, root)) out.push_back(p);
    return out;
}

std::optional<parse::GpuRecording> read_gpu_recording(const std::filesystem::path& folder) {
    auto file = gpu_recording_in(folder);
    if (!file) return std::nullopt;
    return parse::parse_gpu_recording(util::read_file(*file, util::AllowEmpty::yes));
}

void record_gpus(std::ostream& out, const GpuRecordOptions& options, const std::atomic<bool>& stop,
                 const CommandRunner& run, const std::string& exe,
                 const std::function<std::vector<long long>()>& server_pids, const WatchClock& clock) {
    out << parse::gpu_header_json(options.interval_s).dump() << '\n' << std::flush;
    const long long t0 = clock.mono_ns();
    const long long step = static_cast<long long>(options.interval_s * 1e9);
    for (long long next = t0;;) {
        const bool last = stop.load();
        parse::GpuSample s = read_gpu_sample(run, exe);
        s.t_s = static_cast<double>(clock.mono_ns() - t0) / 1e9;
        if (!s.error && server_pids) s.server_pids = server_pids();
        out << parse::gpu_sample_json(s).dump() << '\n' << std::flush;
        if (last) return;
        next += step;
        clock.sleep_until(next, stop);
    }
}

}  // namespace inferlint::run
