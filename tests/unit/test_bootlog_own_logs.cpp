// The project's own small boot logs (tests/fixtures/bootlog/, described in its README.md):
// one or a few per rule, written by hand, run through the built binary as a user would.
// Each case asserts the exit status, the tripwire's status, and a figure or the key
// evidence; the mutation cases change one line of a log in a scratch copy and require the
// verdict to flip.
#include "support.hpp"

#include "inferlint/core/result.hpp"
#include "inferlint/util/files.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

// Everything, test cases included, in one named namespace: the tests are compiled in unity
// batches, where another file's helpers of the same name would otherwise clash.
namespace own_bootlog_test {

namespace fs = std::filesystem;
using inferlint::Json;

fs::path logs() { return testsupport::own_fixtures() / "bootlog"; }

struct Checked {
    int rc = -1;
    Json results;  // the --json array
    std::string err;
};

// check-log --json on the logs; the output must be a JSON array.
Checked check_log(const std::vector<fs::path>& paths, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"check-log", "--json"};
    for (const auto& p : paths) {
        INFO("fixture " << p.string());
        REQUIRE(fs::is_regular_file(p));
        args.push_back(p.string());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testsupport::run_cli(args);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    Json parsed = Json::parse(r.out, nullptr, false);
    REQUIRE(parsed.is_array());
    return {r.rc, std::move(parsed), r.err};
}

// boot-facts --json on one log (exit 0 expected: facts are facts, not verdicts).
Json boot_facts(const fs::path& path) {
    auto r = testsupport::run_cli({"boot-facts", "--json", path.string()});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.rc == 0);
    Json parsed = Json::parse(r.out, nullptr, false);
    REQUIRE(parsed.is_object());
    return parsed;
}

// Every result of one tripwire, in output order.
std::vector<Json> results_of(const Json& results, const std::string& tripwire) {
    std::vector<Json> out;
    for (const auto& r : results)
        if (r.value("tripwire", "") == tripwire) out.push_back(r);
    return out;
}

// The one result of a tripwire (the test fails when there is not exactly one).
Json only(const Json& results, const std::string& tripwire) {
    auto found = results_of(results, tripwire);
    INFO("tripwire " << tripwire << " in " << results.dump());
    REQUIRE(found.size() == 1);
    return found.front();
}

// A scratch folder for this test process, removed by the caller.
fs::path scratch() {
    static const fs::path dir = testsupport::scratch_dir("own-bootlog");
    fs::create_directories(dir);
    return dir;
}

// Copies `from` to `to` line by line; `edit` may change a line, or return false to drop it.
// Requires that the edit changed something, so a fixture edited under the test is noticed.
void write_edited(const fs::path& from, const fs::path& to, const std::function<bool(std::string&)>& edit) {
    const std::string text = inferlint::util::read_file(from);
    int changed = 0;
    std::string out = testsupport::each_line(text, [&](std::string& line) {
        const std::string before = line;
        bool keep = edit(line);
        if (!keep || line != before) ++changed;
        return keep;
    });
    INFO("editing " << from.string());
    REQUIRE(changed > 0);
    inferlint::util::write_file(to, out);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

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
        {"fail/jit_nvcc.log", "jit_toolchain", 13, "jit_toolchain during boot: Unsupported gpu architecture 'compute_120a'"},
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

// ---- a healthy vLLM start

TEST_CASE("own boot logs: a healthy vLLM start passes T12, T5 and T6", "[bootlog][own]") {
    auto log = logs() / "vllm/healthy.log";
    auto c = check_log({log});
    CHECK(c.rc == 0);
    REQUIRE(c.results.size() == 3);
    for (const auto& r : c.results) {
        INFO(r.dump());
        CHECK(r["status"] == "pass");
    }
    CHECK(only(c.results, "T12")["message"] == "no failure in log");
    Json t5 = only(c.results, "T5");
    CHECK(t5["message"] == "no block-size override printed");
    CHECK(t5["evidence"]["block_size"] == 16);
    // T6 with nothing requested: nothing to check.
    Json t6 = only(c.results, "T6");
    CHECK(starts(t6["message"].get<std::string>(), "nothing to check: the server was started without --attention-backend"));
    CHECK(contains(t6["message"].get<std::string>(), "vLLM chose its own (FLASH_ATTN)"));
    CHECK(t6["evidence"]["requested"].is_null());
    CHECK(t6["evidence"]["target"] == Json::array({"FLASH_ATTN"}));
    CHECK(t6["evidence"]["speculative"] == false);

    Json f = boot_facts(log);
    CHECK(f["engine"] == "vllm");
    CHECK(f["vllm_version"] == "0.30.0");
    CHECK(f["kv_pool_tokens"] == 51104);
    CHECK(f["max_concurrency_request_len"] == 8192);
    CHECK(f["available_kv_cache_gib"].get<double>() == Approx(6.24));
    CHECK(f["model_load_gib"].get<double>() == Approx(13.51));
    CHECK(f["consumed_gib"].get<double>() == Approx(14.02));
    CHECK(f["peak_activation_gib"].get<double>() == Approx(1.12));
    CHECK(f["cudagraph_actual_gib"].get<double>() == Approx(0.21));
    CHECK(f["compiled_fresh"] == true);
    CHECK(f["ready"] == true);
    CHECK(f["ready_lineno"] == 20);
    CHECK(f["processes"]["APIServer"] == Json::array({2217}));
    CHECK(f["processes"]["EngineCore"] == Json::array({2390}));
    CHECK(f["unparsed"].empty());
}

// ---- T5: block size

TEST_CASE("own boot logs: T5 warns when a hybrid model forces the block size up", "[bootlog][own]") {
    auto log = logs() / "vllm/block_forced.log";
    auto c = check_log({log});
    CHECK(c.rc == 0);  // a warning alone
    Json t5 = only(c.results, "T5");
    CHECK(t5["status"] == "warn");
    CHECK(t5["message"] ==
          "attention block size forced to 528 tokens (requested 16); each request's KV is allocated in 528-token units");
    CHECK(t5["evidence"]["block_size"] == 528);
    CHECK(t5["evidence"]["requested"].is_null());
    CHECK(t5["evidence"]["mamba_page_padding_pct"].get<double>() == Approx(0.42));
    CHECK(t5["evidence"]["pool_blocks"].get<double>() == Approx(97.0));
    CHECK(only(c.results, "T12")["status"] == "pass");

    // --strict makes the warning a failure.
    auto strict = check_log({log}, {"--strict"});
    CHECK(strict.rc == 1);
    CHECK(only(strict.results, "T5")["status"] == "warn");
}

// ---- T6: requested attention backend

TEST_CASE("own boot logs: T6 passes when the requested backend is used", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/backend_honoured.log"});
    CHECK(c.rc == 0);
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "pass");
    CHECK(t6["message"] == "FLASHINFER was requested and used");
    CHECK(t6["evidence"]["requested"] == "FLASHINFER");
    CHECK(t6["evidence"]["target"] == Json::array({"FLASHINFER"}));
    CHECK(t6["evidence"]["drafter"].empty());
}

TEST_CASE("own boot logs: T6 fails when the main model's backend is overridden", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/backend_overridden.log"});
    CHECK(c.rc == 1);
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "fail");
    CHECK(t6["message"] == "FLASHINFER was requested, but the main model used TRITON_ATTN");
    CHECK(t6["evidence"]["requested"] == "FLASHINFER");
    CHECK(t6["evidence"]["target"] == Json::array({"TRITON_ATTN"}));
    CHECK(only(c.results, "T12")["status"] == "pass");
}

TEST_CASE("own boot logs: T6 fails when the draft model picks another backend", "[bootlog][own]") {
    auto c = check_log({logs() / "vllm/backend_drafter_override.log"});
    CHECK(c.rc == 1);
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "fail");
    CHECK(t6["message"] ==
          "TRITON_ATTN was requested and the main model uses it, but the draft model (speculative decoding) picked "
          "FLASH_ATTN");
    CHECK(t6["evidence"]["target"] == Json::array({"TRITON_ATTN"}));
    CHECK(t6["evidence"]["drafter"] == Json::array({"FLASH_ATTN"}));
    CHECK(t6["evidence"]["speculative"] == true);
}

// ---- T12 unknown: a recognised line the parser cannot read

TEST_CASE("own boot logs: a pool line in an unknown format is T12 unknown", "[bootlog][own]") {
    auto log = logs() / "vllm/unparsed_pool.log";
    auto c = check_log({log});
    CHECK(c.rc == 2);
    auto t12 = results_of(c.results, "T12");
    REQUIRE(t12.size() == 2);
    CHECK(t12[0]["status"] == "pass");  // no failure in the log
    CHECK(t12[1]["status"] == "unknown");
    CHECK(t12[1]["message"] == "1 recognised line(s) in an unknown format");
    REQUIRE(t12[1]["evidence"]["unparsed"].size() == 1);
    CHECK(t12[1]["evidence"]["unparsed"][0]["field"] == "kv_pool");
    CHECK(t12[1]["evidence"]["unparsed"][0]["lineno"] == 6);
    CHECK(starts(t12[1]["evidence"]["unparsed"][0]["line"].get<std::string>(), "GPU KV cache size: 51,680 tokens (3,230 blocks"));
    CHECK(contains(c.err, "note: vLLM 0.31.0 is not a tested version"));

    Json f = boot_facts(log);
    CHECK(f["kv_pool_tokens"].is_null());
    CHECK(f["available_kv_cache_gib"].get<double>() == Approx(6.31));  // the line beside it still reads
}

// ---- T4 and T11: two starts of one configuration

TEST_CASE("own boot logs: T4 warns when identical flags drew different pools", "[bootlog][own]") {
    auto c = check_log({logs() / "pool/run1/boot.log", logs() / "pool/run2/boot.log"});
    CHECK(c.rc == 0);  // warnings only
    Json t4 = only(c.results, "T4");
    CHECK(t4["status"] == "warn");
    CHECK(t4["message"] ==
          "same flags, 2 different pools: 46,768 to 51,104 tokens (9.27% apart) across run1/boot.log, "
          "run2/boot.log; compare results only within one pool");
    CHECK(t4["evidence"]["pools"]["run1/boot.log"] == 51104);
    CHECK(t4["evidence"]["pools"]["run2/boot.log"] == 46768);
    CHECK(t4["evidence"]["levels"] == Json::array({46768, 51104}));
    CHECK(t4["evidence"]["not_compared"].empty());
    // Per-log results carry the log's label.
    auto t12 = results_of(c.results, "T12");
    REQUIRE(t12.size() == 2);
    CHECK(t12[0]["message"] == "run1/boot.log: no failure in log");
    CHECK(t12[1]["message"] == "run2/boot.log: no failure in log");
}

TEST_CASE("own boot logs: T4 and T11 pass when identical flags drew the same pool", "[bootlog][own]") {
    auto c = check_log({logs() / "pool-equal/run1/boot.log", logs() / "pool-equal/run2/boot.log"});
    CHECK(c.rc == 0);
    Json t4 = only(c.results, "T4");
    CHECK(t4["status"] == "pass");
    CHECK(t4["message"] == "same flags, same pool (51,104 tokens): run1/boot.log, run2/boot.log");
    CHECK(t4["evidence"]["pools"]["run1/boot.log"] == 51104);
    CHECK(t4["evidence"]["pools"]["run2/boot.log"] == 51104);
    Json t11 = only(c.results, "T11");
    CHECK(t11["status"] == "pass");
    CHECK(t11["message"] == "same flags, 6.24 GiB for KV cache on every boot");
}

TEST_CASE("own boot logs: T11 warns when KV cache memory differs between starts", "[bootlog][own]") {
    auto c = check_log({logs() / "kvmem/start1/boot.log", logs() / "kvmem/start2/boot.log"});
    CHECK(c.rc == 0);
    Json t11 = only(c.results, "T11");
    CHECK(t11["status"] == "warn");
    CHECK(t11["message"] ==
          "same flags, KV cache memory varied: 4.72 to 5.1 GiB (weights and non-torch memory 15.53 to 15.91 GiB)");
    CHECK(t11["evidence"]["available_kv_cache_gib"]["start1/boot.log"].get<double>() == Approx(5.10));
    CHECK(t11["evidence"]["available_kv_cache_gib"]["start2/boot.log"].get<double>() == Approx(4.72));
    CHECK(t11["evidence"]["consumed_gib"]["start1/boot.log"].get<double>() == Approx(15.53));
    CHECK(t11["evidence"]["consumed_gib"]["start2/boot.log"].get<double>() == Approx(15.91));
    CHECK(t11["evidence"]["compiled_fresh"]["start1/boot.log"] == true);
    CHECK(t11["evidence"]["compiled_fresh"]["start2/boot.log"] == true);
    // Less memory, fewer tokens.
    Json t4 = only(c.results, "T4");
    CHECK(t4["status"] == "warn");
    CHECK(t4["evidence"]["levels"] == Json::array({38656, 41776}));

    // The pool pair differs in peak activation and in a cached compile instead.
    auto p = check_log({logs() / "pool/run1/boot.log", logs() / "pool/run2/boot.log"});
    Json pt11 = only(p.results, "T11");
    CHECK(pt11["status"] == "warn");
    CHECK(pt11["message"] ==
          "same flags, KV cache memory varied: 5.71 to 6.24 GiB (peak activation 1.12 to 1.65 GiB; 1 of 2 starts "
          "compiled the model from scratch)");
}

// ---- the other engines

TEST_CASE("own boot logs: an SGLang start", "[bootlog][own]") {
    auto log = logs() / "sglang/boot.log";
    auto c = check_log({log});
    CHECK(c.rc == 0);
    REQUIRE(c.results.size() == 3);
    CHECK(only(c.results, "T12")["status"] == "pass");
    Json t5 = only(c.results, "T5");
    CHECK(t5["status"] == "pass");
    CHECK(t5["message"] == "page size 1 token, as set");
    CHECK(t5["evidence"]["page_size"] == 1);
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "pass");
    CHECK(contains(t6["message"].get<std::string>(), "SGLang chose its own (flashinfer)"));
    CHECK(t6["evidence"]["target"] == Json::array({"flashinfer"}));

    Json f = boot_facts(log);
    CHECK(f["engine"] == "sglang");
    CHECK(f["kv_pool_tokens"] == 196864);
    CHECK(f["available_kv_cache_gib"].get<double>() == Approx(36.04));  // K + V
    CHECK(f["cudagraph_actual_gib"].get<double>() == Approx(1.38));     // prefill + decode capture
    CHECK(f["model_load_gib"].get<double>() == Approx(27.71));
    CHECK(f["running_cap"] == 48);
    CHECK(f["requested_running"] == 48);
    CHECK(f["requested_backend"].is_null());
    CHECK(f["cudagraphs"] == true);
    CHECK(f["ready_lineno"] == 13);
    CHECK(f["unparsed"].empty());
}

TEST_CASE("own boot logs: a TensorRT-LLM start", "[bootlog][own]") {
    auto log = logs() / "trtllm/boot.log";
    auto c = check_log({log});
    CHECK(c.rc == 0);
    REQUIRE(c.results.size() == 3);
    CHECK(only(c.results, "T12")["status"] == "pass");
    Json t5 = only(c.results, "T5");
    CHECK(t5["status"] == "pass");
    CHECK(t5["message"] == "page size 32 tokens, as set");
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "pass");
    CHECK(contains(t6["message"].get<std::string>(), "started without attn_backend, so TensorRT-LLM chose its own (TRTLLM)"));
    CHECK(t6["evidence"]["target"] == Json::array({"TRTLLM"}));

    Json f = boot_facts(log);
    CHECK(f["engine"] == "trtllm");
    CHECK(f["engine_version"] == "1.3.0rc31");
    CHECK(f["kv_pool_tokens"] == 61504);  // the real pool, not the dry run's 10240
    CHECK(f["available_kv_cache_gib"].get<double>() == Approx(7.51));
    CHECK(f["page_size"] == 32);
    CHECK(f["running_cap"] == 64);
    CHECK(f["model_load_gib"].get<double>() == Approx(7.64));
    CHECK(f["served_in_log"] == 3);
    CHECK(f["pauses"] == 1);
    CHECK(f["server_args"]["attn_backend"] == "TRTLLM");
    CHECK(f["server_args"]["capacity_scheduler_policy"] == "MAX_UTILIZATION");
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
