#include "inferlint/run/run_folder.hpp"

#include "inferlint/parse/benchresult.hpp"
#include "inferlint/util/files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace inferlint::run {

namespace fs = std::filesystem;

namespace {

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

std::vector<fs::path> files_matching(const fs::path& folder, std::initializer_list<std::string_view> patterns) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        if (!is_file(it->path())) continue;
        std::string name = it->path().filename().string();
        for (auto p : patterns)
            if (name_matches(name, p)) {
                out.push_back(it->path());
                break;
            }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<fs::path> first(const fs::path& folder, std::string_view name, std::string_view pattern) {
    if (is_file(folder / name)) return folder / name;
    auto found = files_matching(folder, {pattern});
    if (found.empty()) return std::nullopt;
    return found.front();
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool name_matches(std::string_view name, std::string_view pattern) {
    if (!pattern.empty() && pattern.front() == '*' && !name.empty() && name.front() == '.') return false;
    // Iterative '*' matching with one backtrack point.
    std::size_t n = 0, p = 0, star = std::string_view::npos, mark = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = n;
        } else if (p < pattern.size() && pattern[p] == name[n]) {
            ++p;
            ++n;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            n = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::optional<fs::path> find_bench_result(const fs::path& folder) {
    for (const char* name : {"bench.json", "bench.jsonl"})
        if (is_file(folder / name)) return folder / name;
    for (const auto& f : files_matching(folder, {"*.json", "*.jsonl"})) {
        std::string name = f.filename().string();
        if (ends_with(name, ".snapshot.json") || ends_with(name, ".series.jsonl") || name == "results.json") continue;
        try {
            BenchResult b = load_bench_result(f);
            if (b.has_counts()) return f;
        } catch (const std::exception&) {
            // not a load tool's result: look at the next file
        }
    }
    return std::nullopt;
}

RunFiles find_run_files(const fs::path& folder) {
    RunFiles r;
    r.boot_log = first(folder, "boot.log", "*boot*.log");
    r.before = first(folder, "before.snapshot.json", "*before*.json");
    r.after = first(folder, "after.snapshot.json", "*after*.json");
    r.series = first(folder, "run.series.jsonl", "*.series.jsonl");
    r.bench = find_bench_result(folder);
    if (is_file(folder / "load.log")) r.load_log = folder / "load.log";
    r.gpu = gpu_recording_in(folder);
    return r;
}

std::optional<fs::path> gpu_recording_in(const fs::path& folder) {
    if (is_file(folder / "gpu.jsonl")) return folder / "gpu.jsonl";
    return std::nullopt;
}

std::vector<fs::path> fleet_replica_folders(const fs::path& folder) {
    std::vector<fs::path> out;
    const fs::path results = folder / "results.json";
    if (!is_file(results)) return out;
    try {
        const auto doc = nlohmann::json::parse(util::read_file(results));
        if (doc.value("schema", "") != "inferlint.xray/1") return out;
        const auto plan = doc.find("plan");
        if (plan == doc.end() || !plan->is_object() || !plan->contains("replicas")) return out;
        for (const auto& r : plan->at("replicas"))
            if (r.is_object() && r.contains("folder") && r["folder"].is_string())
                out.push_back(folder / r["folder"].get<std::string>());
    } catch (const std::exception&) {
        out.clear();
    }
    return out;
}

}  // namespace inferlint::run
