// The boot-log formats people run today (issue 29): SGLang's MLA, DeepSeek-V4 and NPU
// pools, vLLM 0.31's and the two-line KV lines, XPU and ROCm lines, TensorRT-LLM 1.1's
// lines, and the wrappers logs are pasted through. Each format on a real line from
// ../shared/field ([shared]) and on one of the project's own (tests/fixtures/bootlog).
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

namespace field_bootlog_test {

namespace fs = std::filesystem;
using inferlint::Json;
using inferlint::parse::BootFacts;

fs::path own(const std::string& name) { return testsupport::own_fixtures() / "bootlog" / name; }

// ../shared/field beside ../shared/reference (the folder issue 29's logs are in).
std::optional<fs::path> field_dir() {
    auto p = testsupport::reference_dir().parent_path() / "field";
    if (fs::is_directory(p)) return p;
    return std::nullopt;
}

#define REQUIRE_FIELD(var)                                                                 \
    auto var##_opt = field_dir();                                                          \
    if (!var##_opt)                                                                        \
        FAIL(                                                                              \
            "needs ../shared/field, which is absent: ctest skips the [shared] test cases " \
            "there; by hand, leave them out with ~[shared]");                              \
    const fs::path var = *var##_opt

// The facts of a log, read as the engine the log itself names (none named by the user).
struct Read {
    const inferlint::Engine* found = nullptr;
    BootFacts facts;
};
Read read(const fs::path& p) {
    INFO("log " << p.string());
    REQUIRE(fs::is_regular_file(p));
    auto scan = inferlint::parse::scan_boot_log_file(p, nullptr);
    REQUIRE(scan);
    return {scan->found, std::move(scan->facts)};
}

// ---- SGLang

TEST_CASE("field logs: SGLang's MLA pool line, KV dtype line and untimed weight line", "[bootlog][field]") {
    auto r = read(own("sglang/mla_fragment.log"));
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "sglang");
    CHECK(r.facts.kv_pool_tokens == 52000);
    CHECK(r.facts.available_kv_cache_gib == Approx(3.41));
    CHECK(r.facts.model_load_gib == Approx(21.5));
    CHECK_FALSE(r.facts.model_load_s);
    CHECK(r.facts.realized.kv_cache_dtype == "torch.float8_e4m3fn");
    // The first rank's graphs only (TP1 prints its own), the drafter's apart.
    CHECK(r.facts.cudagraph_actual_gib == Approx(0.51));
    CHECK(r.facts.realized.drafter_cudagraph_gib == Approx(-0.02));
    CHECK(r.facts.drafter_backends == std::vector<std::string>{"flashinfer"});
    CHECK(r.facts.realized.linear_attention_backend == "triton");
    CHECK(r.facts.unparsed.empty());
}

TEST_CASE("field logs: SGLang's MLA pool and KV dtype on a real log", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto r = read(field / "sglang-kt-unknown-deepseek-v3-mla-tp2-fragment.log");
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "sglang");
    CHECK(r.facts.kv_pool_tokens == 10000);
    CHECK(r.facts.model_load_gib == Approx(13.06));
    CHECK(r.facts.realized.kv_cache_dtype == "torch.bfloat16");
    CHECK(r.facts.unparsed.empty());
}

TEST_CASE("field logs: SGLang's pool line with its dtype, linear and draft backends (real)",
          "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto r = read(field / "sglang-unknown-qwen38-27b-nvfp4-2x5090-mtp-hybrid-fragment.log");
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "sglang");
    CHECK(r.facts.kv_pool_tokens == 454112);
    CHECK(r.facts.realized.kv_cache_dtype == "torch.float8_e4m3fn");
    CHECK(r.facts.realized.linear_attention_backend == "triton");
    CHECK(r.facts.drafter_backends == std::vector<std::string>{"flashinfer", "flashinfer"});
}

TEST_CASE("field logs: DeepSeek-V4's pool and NPU graphs", "[bootlog][field]") {
    auto r = read(own("sglang/dsv4_npu_fragment.log"));
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "sglang");
    CHECK(r.facts.kv_pool_tokens == 3600000);
    CHECK(r.facts.available_kv_cache_gib == Approx(20.5));
    CHECK(r.facts.cudagraph_actual_gib == Approx(0.4));  // TP0's, not TP0's and TP1's added
    CHECK(r.facts.running_cap == 16);
    CHECK(r.facts.ready);
    CHECK(r.facts.unparsed.empty());
}

TEST_CASE("field logs: DeepSeek-V4's pool and NPU graphs on real logs", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto pool = read(field / "sglang-unknown-deepseek-v4-flash-w4a8-npu-tp4-pool-fragment.log");
    REQUIRE(pool.found != nullptr);
    CHECK(pool.found->key == "sglang");
    CHECK(pool.facts.kv_pool_tokens == 1641472);
    CHECK(pool.facts.available_kv_cache_gib == Approx(11.89));
    auto tail = read(field / "sglang-unknown-deepseek-v4-flash-w4a8-npu-tp4-ready-tail.log");
    REQUIRE(tail.found != nullptr);
    CHECK(tail.found->key == "sglang");
    CHECK(tail.facts.kv_pool_tokens == 1641472);
    CHECK(tail.facts.cudagraph_actual_gib == Approx(0.73));
    CHECK(tail.facts.ready);
}

// ---- vLLM

TEST_CASE("field logs: vLLM 0.31's merged KV line and its CUDA graph share", "[bootlog][field]") {
    auto r = read(own("vllm/v031_fragment.log"));
    CHECK(r.facts.kv_pool_tokens == 328400);
    CHECK(r.facts.max_concurrency == Approx(10.02));
    CHECK(r.facts.max_concurrency_request_len == 32768);
    CHECK(r.facts.model_load_gib == Approx(9.5));
    CHECK(r.facts.realized.cudagraph_memory_gib == Approx(0.31));
    CHECK(r.facts.unparsed.empty());
}

TEST_CASE("field logs: vLLM's KV pool and concurrency on two lines", "[bootlog][field]") {
    auto r = read(own("vllm/two_line_kv.log"));
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "vllm");  // by its logger's line prefix
    CHECK(r.facts.kv_pool_tokens == 120000);
    CHECK(r.facts.max_concurrency == Approx(14.65));
    CHECK(r.facts.max_concurrency_request_len == 8192);
    CHECK(r.facts.unparsed.empty());
}

TEST_CASE("field logs: vLLM's two-line KV format and 0.31's lines on real logs", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto two = read(field / "vllm-unknown-lmcache-mp-connector-kv-fragment.log");
    CHECK(two.facts.kv_pool_tokens == 229344);
    CHECK(two.facts.max_concurrency == Approx(14.0));
    CHECK(two.facts.max_concurrency_request_len == 16384);
    CHECK(two.facts.unparsed.empty());
    auto v031 = read(field / "vllm-0.31.0-a100-llama31-8b-ok-fragment.log");
    CHECK(v031.facts.kv_pool_tokens == 460496);
    CHECK(v031.facts.max_concurrency == Approx(3.51));
    CHECK(v031.facts.model_load_gib == Approx(15.0));
    CHECK(v031.facts.realized.cudagraph_memory_gib == Approx(0.23));
}

TEST_CASE("field logs: vLLM on XPU, with the KV memory set in bytes", "[bootlog][field]") {
    auto r = read(own("vllm/xpu_kv.log"));
    CHECK(r.facts.kv_pool_tokens == 70000);
    CHECK(r.facts.available_kv_cache_gib == Approx(6.5));
    CHECK(r.facts.max_concurrency_request_len == 4096);
}

TEST_CASE("field logs: vLLM's reserved KV memory and the one a failure names (real)", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto one = read(field / "vllm-unknown-xpu-arc-b70-kv-cache-memory-bytes-fail-part1.log");
    CHECK(one.facts.available_kv_cache_gib == Approx(4.25));
    // Hard-wrapped by the terminal: the figure is on the continuation line, read there.
    auto two = read(field / "vllm-unknown-xpu-arc-b70-kv-cache-memory-bytes-fail-part2.log");
    CHECK(two.facts.available_kv_cache_gib == Approx(4.25));
}

TEST_CASE("field logs: vLLM on ROCm names the backend the flag chose", "[bootlog][field]") {
    auto r = read(own("vllm/rocm_backend.log"));
    CHECK(r.facts.selected_backends == std::vector<std::string>{"ROCM_AITER_FA", "ROCM_ATTN"});
    CHECK(r.facts.candidate_backends == std::vector<std::string>{"ROCM_ATTN", "TRITON_ATTN"});
}

TEST_CASE("field logs: journald and grep -n wrappers are read through", "[bootlog][field]") {
    auto r = read(own("vllm/journald_grep_n.log"));
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "vllm");
    CHECK(r.facts.available_kv_cache_gib == Approx(12.5));
    CHECK(r.facts.kv_pool_tokens == 81920);
    CHECK(r.facts.max_concurrency == Approx(5.0));
    CHECK(r.facts.ready);
    CHECK(r.facts.processes.at("EngineCore") == std::vector<long long>{4242});
    CHECK(r.facts.unparsed.empty());  // "[110B blob data]" is no fact
}

TEST_CASE("field logs: journald and grep -n wrappers on a real log", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto r = read(field / "vllm-0.27.1-gb10-grep-n-journald-free-memory-fail.log");
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "vllm");
    CHECK(r.facts.processes.at("EngineCore") == std::vector<long long>{959645});
    auto scan =
        inferlint::parse::scan_boot_log_file(field / "vllm-0.27.1-gb10-grep-n-journald-free-memory-fail.log", nullptr);
    REQUIRE(scan->failure);
    CHECK(scan->failure->detail.find("Free memory on device cuda:0 (65.74/119.63 GiB)") != std::string::npos);
}

// ---- TensorRT-LLM

TEST_CASE("field logs: TensorRT-LLM 1.1's lines without LLM Args", "[bootlog][field]") {
    auto r = read(own("trtllm/v11_no_llm_args.log"));
    REQUIRE(r.found != nullptr);
    CHECK(r.found->key == "trtllm");
    CHECK(r.facts.engine_version == "1.1.0rc4");
    CHECK(r.facts.page_size == 64);
    CHECK(r.facts.kv_pool_tokens == 400000);
    CHECK(r.facts.selected_backends == std::vector<std::string>{"FLASHINFER"});
    CHECK(r.facts.speculative == false);
    CHECK(r.facts.model_load_gib == Approx(30.1));
    CHECK(r.facts.realized.kv_cache_dtype == "fp8");
    CHECK(r.facts.ready);
}

TEST_CASE("field logs: TensorRT-LLM 1.1.0rc3's healthy start (real)", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    auto r = read(field / "trtllm-1.1.0rc3-dgx-spark-gpt-oss-120b-serve-ok.log");
    CHECK(r.facts.engine_version == "1.1.0rc3");
    CHECK(r.facts.page_size == 32);
    CHECK(r.facts.kv_pool_tokens == 86720);
    CHECK(r.facts.available_kv_cache_gib == Approx(5.95));
    CHECK(r.facts.selected_backends == std::vector<std::string>{"TRTLLM"});
    CHECK(r.facts.model_load_gib == Approx(63.32));
    CHECK(r.facts.realized.kv_cache_dtype == "auto");
    CHECK(r.facts.ready);
}

// ---- the commands

namespace {

// A healthy TensorRT-LLM 1.1 start prints no 'LLM Args:' line, but its loader states the KV
// dtype setting; with "auto" it follows the checkpoint's KV quantization, as asked. Every
// verdict decides, and check-log exits 0.
void trt_healthy_log_decides(const fs::path& log) {
    auto r = testsupport::run_cli({"check-log", "--json", log.string()});
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    bool t17 = false;
    for (const auto& x : results) {
        INFO(x.dump());
        CHECK(x["status"] != "unknown");
        if (x["tripwire"] != "T17") continue;
        t17 = true;
        CHECK(x["status"] == "pass");
        CHECK(x["evidence"]["asked"].is_string());
    }
    CHECK(t17);
}

}  // namespace

TEST_CASE("field logs: a healthy TensorRT-LLM start without LLM Args decides", "[bootlog][field]") {
    const fs::path log = own("trtllm/v11_no_llm_args.log");
    trt_healthy_log_decides(log);
    auto r = testsupport::run_cli({"check-log", "--json", log.string()});
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    bool t6 = false;
    for (const auto& x : results)
        if (x["tripwire"] == "T6") {
            t6 = true;
            CHECK(x["status"] == "pass");
            CHECK(x["evidence"]["target"] == Json::array({"FLASHINFER"}));
        }
    CHECK(t6);
}

TEST_CASE("field logs: TensorRT-LLM 1.1.0rc3's complete healthy log decides (real)", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    const fs::path log = field / "trtllm-1.1.0rc3-dgx-spark-gpt-oss-120b-serve-ok.log";
    trt_healthy_log_decides(log);
    // Its loader's 'Validating KV Cache config against kv_cache_dtype="auto"' is what was asked.
    auto f = read(log).facts;
    CHECK(f.asked.kv_cache_dtype == "auto");
    CHECK(f.realized.kv_dtype_from_checkpoint);
    auto r = testsupport::run_cli({"check-log", "--json", "--tripwires", "T17", log.string()});
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    REQUIRE(results.size() == 1);
    CHECK(results[0]["evidence"]["asked"] == "auto");
    CHECK(results[0]["evidence"]["realized"] == "checkpoint's");
    CHECK(results[0]["message"].get<std::string>().find("--model-config") != std::string::npos);
}

TEST_CASE(
    "field logs: a TensorRT-LLM 1.1 start on the checkpoint's KV quantization passes T17, and its "
    "config.json decides more",
    "[bootlog][field][T17]") {
    const fs::path log = own("trtllm/v11_checkpoint_kv.log");
    trt_healthy_log_decides(log);
    testsupport::TempDir tmp("t17trt");
    fs::create_directories(tmp.path / "model");
    inferlint::util::write_file(
        tmp.path / "model" / "config.json",
        R"({"architectures": ["Qwen3ForCausalLM"], "quantization_config": {"quant_method": "compressed-tensors",)"
        R"( "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false}}})");
    auto r = testsupport::run_cli(
        {"check-log", "--json", "--tripwires", "T17", "--model-config", (tmp.path / "model").string(), log.string()});
    INFO(r.out << r.err);
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    REQUIRE(results.size() == 1);
    CHECK(results[0]["status"] == "warn");
    CHECK(results[0]["message"].get<std::string>().find("the checkpoint asked for it") != std::string::npos);
    CHECK(r.rc == 0);  // a warning, not a failure
}

TEST_CASE("field logs: a TensorRT-LLM start that states no KV dtype setting is T17's Can't tell",
          "[bootlog][field][T17]") {
    testsupport::TempDir tmp("t17trt");
    std::string text = inferlint::util::read_file(own("trtllm/v11_checkpoint_kv.log"));
    for (std::string_view gone :
         {"kv_cache_dtype='auto', ", "Validating KV Cache config against kv_cache_dtype=\"auto\""}) {
        auto at = text.find(gone);
        REQUIRE(at != std::string::npos);
        text.erase(at, gone.size());
    }
    const fs::path log = tmp.path / "boot.log";
    inferlint::util::write_file(log, text);
    auto r = testsupport::run_cli({"check-log", "--json", "--tripwires", "T17", log.string()});
    INFO(r.out << r.err);
    CHECK(r.rc == 2);
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    REQUIRE(results.size() == 1);
    CHECK(results[0]["status"] == "unknown");
    CHECK(results[0]["message"].get<std::string>().find("--model-config") != std::string::npos);
}

TEST_CASE("field logs: T6's Can't tell names the line it needs", "[bootlog][field]") {
    auto r = testsupport::run_cli({"check-log", "--json", own("sglang/mla_fragment.log").string()});
    INFO(r.out << r.err);
    Json results = Json::parse(r.out, nullptr, false);
    REQUIRE(results.is_array());
    for (const auto& x : results)
        if (x["tripwire"] == "T6") {
            CHECK(x["status"] == "unknown");
            CHECK(x["message"].get<std::string>().find("server_args=") != std::string::npos);
        }
}

TEST_CASE("field logs: boot-facts on a /metrics dump is one line and exit 2", "[bootlog][field]") {
    auto p = own("not_a_log/samples_only.prom");
    auto r = testsupport::run_cli({"boot-facts", p.string()});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("Prometheus metrics text, not a boot log") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("field logs: boot-facts on real /metrics dumps is exit 2", "[bootlog][field][shared]") {
    REQUIRE_FIELD(field);
    for (const auto& e : fs::directory_iterator(field)) {
        if (e.path().extension() != ".prom") continue;
        auto r = testsupport::run_cli({"boot-facts", e.path().string()});
        INFO(e.path().string() << ": " << r.err);
        CHECK(r.rc == 2);
        CHECK(r.err.find("not a boot log") != std::string::npos);
    }
}

TEST_CASE("field logs: boot-facts shows the KV cache dtype", "[bootlog][field]") {
    auto r = testsupport::run_cli({"boot-facts", own("sglang/mla_fragment.log").string()});
    CHECK(r.rc == 0);
    CHECK(r.out.find("kv_cache_dtype               torch.float8_e4m3fn") != std::string::npos);
}

}  // namespace field_bootlog_test

namespace field_bootlog_test {

TEST_CASE("field logs: the untested-version note fires for SGLang after 0.5.20 too", "[bootlog][field]") {
    BootFacts f;
    f.engine = "sglang";
    f.server_version = "0.5.20";
    CHECK_FALSE(inferlint::parse::untested_version(f));
    f.server_version = "0.5.20.post1";
    CHECK_FALSE(inferlint::parse::untested_version(f));
    f.server_version = "0.5.27";
    auto note = inferlint::parse::untested_version(f);
    REQUIRE(note);
    CHECK(note->rfind("SGLang 0.5.27 is not a tested version (tested: 0.5.20)", 0) == 0);
}

}  // namespace field_bootlog_test

namespace field_bootlog_test {

// ---- the settings asked for, typed (issue 27): the checks read these, not the engines' keys

TEST_CASE("bootlog: each engine's arguments line gives the same typed settings", "[bootlog][field][asked]") {
    auto v = read(own("vllm/backend_drafter_override.log")).facts.asked;
    CHECK(v.max_running == 16);
    CHECK(v.speculative_method == "eagle");
    CHECK(v.kv_cache_dtype == "auto");  // not among the non-default args: vLLM's default
    CHECK_FALSE(v.block_size);
    CHECK_FALSE(v.prefix_caching);

    auto s = read(own("sglang/boot.log")).facts.asked;
    CHECK(s.max_running == 48);
    CHECK(s.block_size == 1);
    CHECK(s.kv_cache_dtype == "auto");
    CHECK_FALSE(s.speculative_method);  // None

    auto t = read(own("trtllm/boot.log")).facts.asked;
    CHECK(t.max_running == 64);
    CHECK(t.block_size == 32);
    CHECK(t.kv_cache_dtype == "auto");
    CHECK(t.prefix_caching == true);
    CHECK(t.scheduler_policy == "MAX_UTILIZATION");

    // A fragment without an arguments line says nothing.
    auto none = read(own("vllm/v031_fragment.log")).facts.asked;
    CHECK_FALSE(none.max_running);
    CHECK_FALSE(none.kv_cache_dtype);
}

TEST_CASE("bootlog: typed settings from the recorded starts", "[bootlog][field][asked][shared]") {
    REQUIRE_REFERENCE(root);
    auto v = inferlint::parse::parse_boot_log_file(root / "vllm-0.29/live/boot.log", nullptr).asked;
    CHECK(v.max_running == 32);
    CHECK(v.kv_cache_dtype == "auto");
    auto s = inferlint::parse::parse_boot_log_file(root / "sglang-0.5/live/boot.log", nullptr).asked;
    CHECK(s.max_running == 10);
    CHECK(s.prefix_caching == false);  // disable_radix_cache True
    auto t = inferlint::parse::parse_boot_log_file(root / "trtllm-1.3/qwen3-8b/boot.log", nullptr).asked;
    CHECK(t.scheduler_policy == "GUARANTEED_NO_EVICT");
    CHECK(t.prefix_caching == true);
}

}  // namespace field_bootlog_test
