// The project's own small boot logs (tests/fixtures/bootlog/, described in its README.md):
// one or a few per rule, written by hand, run through the built binary as a user would.
// Each case asserts the exit status, the tripwire's status, and a figure or the key
// evidence; the mutation cases change one line of a log in a scratch copy and require the
// verdict to flip.
#include "own_bootlog.hpp"

// The test cases too are in the helpers' namespace, apart from other files' in a unity batch.
namespace own_bootlog_test {

// ---- start-up failures: T12 FAIL in phase boot, one log per kind

TEST_CASE("own boot logs: each start-up failure kind is T12 FAIL during boot", "[bootlog][own]") {
    struct Row {
        const char* file;
        const char* kind;
        long long lineno;
        const char* message;  // the whole message, or its start where `prefix_only`
        bool prefix_only = false;
    };
    const std::vector<Row> rows{
        {"fail/jit_ptxas.log", "jit_toolchain", 13,
         "jit_toolchain during boot: Value 'sm_121a' is not defined for option 'gpu-name'"},
        {"fail/jit_nvcc.log", "jit_toolchain", 13,
         "jit_toolchain during boot: Unsupported gpu architecture 'compute_120a'"},
        {"fail/oom.log", "out_of_memory", 9,
         "out_of_memory during boot: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 "
         "has a total capacity of 79.19 GiB of which 412.69 MiB is free. Including non-PyTorch memory, this process "
         "has 78.78 GiB memory in use."},
        {"fail/kv_cache_too_small.log", "kv_cache_too_small", 10,
         "kv_cache_too_small during boot: ValueError: To serve at least one request with the models's max seq len "
         "(131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.91 GiB).",
         true},
        {"fail/accelerator_error.log", "accelerator_error", 9,
         "accelerator_error during boot: CUDA error: unspecified launch failure"},
        {"fail/cuda_error.log", "cuda_error", 8,
         "cuda_error during boot: no kernel image is available for execution on the device"},
        {"fail/assertion.log", "assertion", 7,
         "assertion during boot: assert input_size_per_partition % self.quant_config.group_size == 0"},
        {"fail/value_error.log", "value_error", 8,
         "value_error during boot: The checkpoint you are trying to load has model type `orca9` but Transformers "
         "does not recognize this architecture."},
        {"fail/runtime_error.log", "runtime_error", 8,
         "runtime_error during boot: Cannot find any model weights with `/models/Llama-3.1-8B-Instruct`"},
        {"fail/unclassified_exception.log", "unclassified_exception", 10,
         "unclassified_exception during boot: 'layers.12.mlp.down_proj.input_scale' (in load_weights, llama.py:468)"},
        {"fail/engine_dead.log", "engine_dead", 12,
         "engine_dead during boot: vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
         "stack trace (above) for the root cause."},
    };
    for (const auto& row : rows) {
        DYNAMIC_SECTION(row.file) {
            auto c = check_log({logs() / row.file});
            CHECK(c.rc == 1);
            CHECK(results_of(c.results, "T7").empty());
            Json t12 = only(c.results, "T12");
            CHECK(t12["status"] == "fail");
            CHECK(t12["evidence"]["kind"] == row.kind);
            CHECK(t12["evidence"]["phase"] == "boot");
            CHECK(t12["evidence"]["lineno"] == row.lineno);
            const std::string message = t12["message"].get<std::string>();
            if (row.prefix_only)
                CHECK(starts(message, row.message));
            else
                CHECK(message == row.message);
            // None of these starts got as far as sizing blocks.
            Json t5 = only(c.results, "T5");
            CHECK(t5["status"] == "unknown");
            CHECK(t5["message"] == "boot did not get far enough to size blocks");
        }
    }
}

TEST_CASE("own boot logs: the failing line is quoted, cut at 300 characters", "[bootlog][own]") {
    auto c = check_log({logs() / "fail/kv_cache_too_small.log"});
    CHECK(c.rc == 1);
    Json t12 = only(c.results, "T12");
    CHECK(t12["status"] == "fail");
    const std::string line = t12["evidence"]["line"].get<std::string>();
    CHECK(line.size() == 300);
    CHECK(starts(line, "ValueError: To serve at least one request"));
}

TEST_CASE("own boot logs: an assert's bare AssertionError is named by its assert line", "[bootlog][own]") {
    auto c = check_log({logs() / "fail/assertion.log"});
    CHECK(c.rc == 1);
    Json t12 = only(c.results, "T12");
    CHECK(t12["status"] == "fail");
    CHECK(t12["evidence"]["line"] == "AssertionError");
    CHECK(contains(t12["message"].get<std::string>(), "assert input_size_per_partition"));
}

// ---- after the ready line

TEST_CASE("own boot logs: a crash after startup complete is T7 FAIL during serving", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/serving_crash.log"});
    CHECK(c.rc == 1);
    CHECK(results_of(c.results, "T12").empty());
    Json t7 = only(c.results, "T7");
    CHECK(t7["status"] == "fail");
    CHECK(t7["evidence"]["kind"] == "accelerator_error");
    CHECK(t7["evidence"]["phase"] == "serving");
    CHECK(t7["evidence"]["lineno"] == 15);
    CHECK(t7["message"] == "accelerator_error during serving: CUDA error: an illegal memory access was encountered");
    // It was ready, so the block size was settled.
    CHECK(only(c.results, "T5")["status"] == "pass");
}

TEST_CASE("own boot logs: a traceback after an orderly [shutdown] is no failure", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/shutdown_traceback.log"});
    CHECK(c.rc == 0);
    CHECK(results_of(c.results, "T7").empty());
    Json t12 = only(c.results, "T12");
    CHECK(t12["status"] == "pass");
    CHECK(t12["message"] == "no failure in log");
}

TEST_CASE("own boot logs: an error the server answered requests after is no failure", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/crash_then_served.log"});
    CHECK(c.rc == 0);
    CHECK(results_of(c.results, "T7").empty());
    Json t12 = only(c.results, "T12");
    CHECK(t12["status"] == "pass");
    CHECK(t12["message"] == "no failure in log");
}

// ---- mutations: one line changed, the verdict flips

TEST_CASE("own boot logs, mutated: making the two pools equal turns T4 from warn to pass", "[bootlog][own]") {
    auto dir = scratch() / "pool-mutated";
    // run1 as it is, run2 with run1's pool.
    fs::create_directories(dir / "run1");
    fs::copy_file(logs() / "pool/run1/boot.log", dir / "run1/boot.log", fs::copy_options::overwrite_existing);
    write_edited(logs() / "pool/run2/boot.log", dir / "run2/boot.log", [](std::string& line) {
        auto at = line.find("GPU KV cache size: 46,768 tokens");
        if (at != std::string::npos) line.replace(at, 32, "GPU KV cache size: 51,104 tokens");
        return true;
    });
    auto c = check_log({dir / "run1/boot.log", dir / "run2/boot.log"});
    fs::remove_all(scratch());
    CHECK(c.rc == 0);
    Json t4 = only(c.results, "T4");
    CHECK(t4["status"] == "pass");
    CHECK(t4["message"] == "same flags, same pool (51,104 tokens): run1/boot.log, run2/boot.log");
    // Only the pool changed: the KV memory still differs.
    CHECK(only(c.results, "T11")["status"] == "warn");
}

TEST_CASE("own boot logs, mutated: without its ptxas line the JIT failure is a runtime error", "[bootlog][own]") {
    auto mutated = scratch() / "jit_no_ptxas.log";
    write_edited(logs() / "fail/jit_ptxas.log", mutated,
                 [](std::string& line) { return !contains(line, "ptxas fatal"); });
    auto c = check_log({mutated});
    fs::remove_all(scratch());
    CHECK(c.rc == 1);
    Json t12 = only(c.results, "T12");
    CHECK(t12["status"] == "fail");
    CHECK(t12["evidence"]["kind"] == "runtime_error");
    CHECK(t12["evidence"]["phase"] == "boot");
    CHECK(t12["evidence"]["lineno"] == 18);
    CHECK(t12["message"] ==
          "runtime_error during boot: Engine core initialization failed. See root cause above. Failed core proc(s): "
          "{'EngineCore': 1}");
}

TEST_CASE("own boot logs, mutated: without [shutdown] the late traceback is T7 FAIL", "[bootlog][own]") {
    auto mutated = scratch() / "no_shutdown.log";
    write_edited(logs() / "vllm/shutdown_traceback.log", mutated,
                 [](std::string& line) { return !contains(line, "[shutdown]"); });
    auto c = check_log({mutated});
    fs::remove_all(scratch());
    CHECK(c.rc == 1);
    CHECK(results_of(c.results, "T12").empty());
    Json t7 = only(c.results, "T7");
    CHECK(t7["status"] == "fail");
    CHECK(t7["evidence"]["kind"] == "runtime_error");
    CHECK(t7["evidence"]["phase"] == "serving");
    CHECK(t7["evidence"]["lineno"] == 15);
}

TEST_CASE("own boot logs, mutated: with no request answered after it, the error is T7 FAIL", "[bootlog][own]") {
    auto mutated = scratch() / "not_served.log";
    write_edited(logs() / "vllm/crash_then_served.log", mutated, [](std::string& line) {
        return !(contains(line, "127.0.0.1:45020") || contains(line, "127.0.0.1:45024"));
    });
    auto c = check_log({mutated});
    fs::remove_all(scratch());
    CHECK(c.rc == 1);
    Json t7 = only(c.results, "T7");
    CHECK(t7["status"] == "fail");
    CHECK(t7["evidence"]["kind"] == "value_error");
    CHECK(t7["evidence"]["phase"] == "serving");
    CHECK(t7["evidence"]["lineno"] == 13);
}

}  // namespace own_bootlog_test
