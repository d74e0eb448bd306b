// Every fuzz target's entry point, by name (tests/fuzz/fuzz_<name>.cpp): the one fuzzing
// program (all_targets.cpp) picks one by the name it is run as, and the unit tests
// (test_fuzz_regressions.cpp) replay each target's seeds and regressions through them.
#pragma once

#define INFERLINT_FUZZ_REPLAY
#include "fuzz_benchresult.cpp"
#include "fuzz_bootlog_sglang.cpp"
#include "fuzz_bootlog_trtllm.cpp"
#include "fuzz_bootlog_vllm.cpp"
#include "fuzz_failures.cpp"
#include "fuzz_http.cpp"
#include "fuzz_load_aiperf.cpp"
#include "fuzz_load_genai_perf.cpp"
#include "fuzz_load_guidellm.cpp"
#include "fuzz_load_inference_perf.cpp"
#include "fuzz_load_inferlint.cpp"
#include "fuzz_load_llmperf.cpp"
#include "fuzz_load_vllm.cpp"
#include "fuzz_loadlog.cpp"
#include "fuzz_log_stamps.cpp"
#include "fuzz_model_config.cpp"
#include "fuzz_nvidia_smi.cpp"
#include "fuzz_procfs.cpp"
#include "fuzz_prom.cpp"
#include "fuzz_prom_api.cpp"
#include "fuzz_pyliteral.cpp"
#include "fuzz_series_file.cpp"
#include "fuzz_series_line.cpp"
#include "fuzz_snapshot.cpp"
#include "fuzz_url.cpp"
#undef INFERLINT_FUZZ_REPLAY

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace inferlint::fuzz {

using FuzzOne = int (*)(const std::uint8_t*, std::size_t);

inline const std::map<std::string, FuzzOne>& targets() {
    static const std::map<std::string, FuzzOne> all = {
        {"benchresult", one_benchresult},
        {"bootlog_sglang", one_bootlog_sglang},
        {"bootlog_trtllm", one_bootlog_trtllm},
        {"bootlog_vllm", one_bootlog_vllm},
        {"failures", one_failures},
        {"http", one_http},
        {"load_aiperf", one_load_aiperf},
        {"load_genai_perf", one_load_genai_perf},
        {"load_guidellm", one_load_guidellm},
        {"load_inference_perf", one_load_inference_perf},
        {"load_inferlint", one_load_inferlint},
        {"load_llmperf", one_load_llmperf},
        {"load_vllm", one_load_vllm},
        {"loadlog", one_loadlog},
        {"log_stamps", one_log_stamps},
        {"model_config", one_model_config},
        {"nvidia_smi", one_nvidia_smi},
        {"procfs", one_procfs},
        {"prom", one_prom},
        {"prom_api", one_prom_api},
        {"pyliteral", one_pyliteral},
        {"series_file", one_series_file},
        {"series_line", one_series_line},
        {"snapshot", one_snapshot},
        {"url", one_url},
    };
    return all;
}

}  // namespace inferlint::fuzz
