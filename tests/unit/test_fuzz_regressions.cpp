// Every input the fuzzers ever found a fault with (tests/fuzz/regressions/<target>/), and
// the targets' own seeds, replayed through the same entry points the fuzz targets call,
// in the plain and the sanitized builds. A fault fixed stays fixed.
#define INFERLINT_FUZZ_REPLAY
#include "fuzz/fuzz_benchresult.cpp"
#include "fuzz/fuzz_bootlog_sglang.cpp"
#include "fuzz/fuzz_bootlog_trtllm.cpp"
#include "fuzz/fuzz_bootlog_vllm.cpp"
#include "fuzz/fuzz_failures.cpp"
#include "fuzz/fuzz_http.cpp"
#include "fuzz/fuzz_load_aiperf.cpp"
#include "fuzz/fuzz_load_genai_perf.cpp"
#include "fuzz/fuzz_load_guidellm.cpp"
#include "fuzz/fuzz_load_inference_perf.cpp"
#include "fuzz/fuzz_load_inferlint.cpp"
#include "fuzz/fuzz_load_llmperf.cpp"
#include "fuzz/fuzz_load_vllm.cpp"
#include "fuzz/fuzz_loadlog.cpp"
#include "fuzz/fuzz_log_stamps.cpp"
#include "fuzz/fuzz_model_config.cpp"
#include "fuzz/fuzz_nvidia_smi.cpp"
#include "fuzz/fuzz_procfs.cpp"
#include "fuzz/fuzz_prom.cpp"
#include "fuzz/fuzz_prom_api.cpp"
#include "fuzz/fuzz_pyliteral.cpp"
#include "fuzz/fuzz_series_file.cpp"
#include "fuzz/fuzz_series_line.cpp"
#include "fuzz/fuzz_snapshot.cpp"
#include "fuzz/fuzz_url.cpp"
#undef INFERLINT_FUZZ_REPLAY

#include "inferlint/util/files.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

namespace {

using FuzzOne = int (*)(const std::uint8_t*, std::size_t);

const std::map<std::string, FuzzOne>& fuzz_targets() {
    namespace f = inferlint::fuzz;
    static const std::map<std::string, FuzzOne> all = {{"benchresult", f::one_benchresult},
                                                       {"bootlog_sglang", f::one_bootlog_sglang},
                                                       {"bootlog_trtllm", f::one_bootlog_trtllm},
                                                       {"bootlog_vllm", f::one_bootlog_vllm},
                                                       {"failures", f::one_failures},
                                                       {"http", f::one_http},
                                                       {"load_aiperf", f::one_load_aiperf},
                                                       {"load_genai_perf", f::one_load_genai_perf},
                                                       {"load_guidellm", f::one_load_guidellm},
                                                       {"load_inference_perf", f::one_load_inference_perf},
                                                       {"load_inferlint", f::one_load_inferlint},
                                                       {"load_llmperf", f::one_load_llmperf},
                                                       {"load_vllm", f::one_load_vllm},
                                                       {"loadlog", f::one_loadlog},
                                                       {"log_stamps", f::one_log_stamps},
                                                       {"model_config", f::one_model_config},
                                                       {"nvidia_smi", f::one_nvidia_smi},
                                                       {"procfs", f::one_procfs},
                                                       {"prom", f::one_prom},
                                                       {"prom_api", f::one_prom_api},
                                                       {"pyliteral", f::one_pyliteral},
                                                       {"series_file", f::one_series_file},
                                                       {"series_line", f::one_series_line},
                                                       {"snapshot", f::one_snapshot},
                                                       {"url", f::one_url}};
    return all;
}

// Replays every file of dir through target; how many there were.
int fuzz_replay(const std::string& target, const std::filesystem::path& dir) {
    int n = 0;
    if (!std::filesystem::is_directory(dir)) return n;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().filename() == ".gitkeep") continue;
        std::string bytes = inferlint::util::read_file(e.path(), inferlint::util::AllowEmpty::yes);
        INFO(target << ": " << e.path().string());
        CHECK_NOTHROW(fuzz_targets().at(target)(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("every fuzz target has a file, and its seeds and regressions replay cleanly", "[fuzz]") {
    const std::filesystem::path fuzz_dir = std::filesystem::path(INFERLINT_SOURCE_DIR) / "tests" / "fuzz";
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(fuzz_dir)) {
        auto name = e.path().filename().string();
        if (name.starts_with("fuzz_") && name.ends_with(".cpp")) files.insert(name.substr(5, name.size() - 9));
    }
    std::set<std::string> replayed;
    for (const auto& [name, one] : fuzz_targets()) replayed.insert(name);
    CHECK(files == replayed);  // a new target is replayed here too
    int total = 0;
    for (const auto& [name, one] : fuzz_targets()) {
        total += fuzz_replay(name, fuzz_dir / "seeds" / name);
        total += fuzz_replay(name, fuzz_dir / "regressions" / name);
    }
    CHECK(total >= 21);
}

TEST_CASE("the fuzz entry points take empty and odd bytes", "[fuzz]") {
    const std::vector<std::string> odd = {"",
                                          std::string(1, '\0'),
                                          "\xff\xfe",
                                          "{",
                                          "[",
                                          "# HELP",
                                          "\n\n\n",
                                          std::string(70000, '{'),
                                          "{\"schema\": \"inferlint.series/1\"}\n{\"t\":"};
    for (const auto& [name, one] : fuzz_targets())
        for (const auto& s : odd) {
            INFO(name << " on " << s.size() << " bytes");
            CHECK_NOTHROW(one(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
        }
}
