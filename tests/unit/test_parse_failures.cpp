#include "inferlint/parse/failures.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
using parse::classify_failure;
using parse::FailureKind;
using parse::FailurePhase;

namespace {
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
        s.replace(at, from.size(), to);
    return s;
}
}  // namespace

TEST_CASE("failures: the accelerator error is named, during boot", "[failures][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = classify_failure(util::read_file(root / "vllm-0.28/boot_fail_accelerator.log"));
    REQUIRE(f);
    CHECK(f->kind == FailureKind::accelerator_error);
    CHECK(f->detail == "CUDA error: device not ready");
    CHECK(f->phase == FailurePhase::boot);
}

TEST_CASE("failures: a crash on the first request is the serving phase", "[failures][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = classify_failure(util::read_file(root / "vllm-0.28/boot_spec_backend_override.log"));
    REQUIRE(f);
    CHECK(f->kind == FailureKind::jit_toolchain);
    CHECK(f->phase == FailurePhase::serving);
}

TEST_CASE("failures: healthy runs stopped from outside are clean because of the shutdown cut-off",
          "[failures][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* name :
         {"boot_eager.log", "boot_cudagraphs.log", "boot_fp8_triton.log", "run_preempted_silently.log"}) {
        INFO(name);
        std::string text = util::read_file(root / "vllm-0.28" / name);
        CHECK_FALSE(classify_failure(text));
        CHECK(parse::shutdown_lineno(text));
        // mutation: hide the marker and the teardown tracebacks become failures
        CHECK(classify_failure(replace_all(text, "[shutdown]", "[stopping]")));
    }
    CHECK_FALSE(classify_failure(util::read_file(root / "vllm-0.28/boot_pool_level_hi.log")));
}

TEST_CASE("failures: each rule on its own line", "[failures]") {
    struct Case {
        const char* line;
        FailureKind kind;
    };
    for (const Case& c : std::initializer_list<Case>{
             {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", FailureKind::out_of_memory},
             {"ValueError: To serve at least one request with the models's max seq len (32768), (4.0 GiB KV cache is "
              "needed, which is larger than the available KV cache memory (1.2 GiB).",
              FailureKind::kv_cache_too_small},
             {"RuntimeError: CUDA error: an illegal memory access was encountered", FailureKind::cuda_error},
             {"AssertionError", FailureKind::assertion},
             {"ValueError: unsupported quantization", FailureKind::value_error},
             {"RuntimeError: something else", FailureKind::runtime_error},
             {"KeyError: 'model.layers.0.weight'", FailureKind::unclassified_exception},
             {"vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.", FailureKind::engine_dead},
         }) {
        INFO(c.line);
        auto f = classify_failure(std::string("(EngineCore pid=1) ERROR 09-05 10:57:48 [core.py:1] ") + c.line + "\n");
        REQUIRE(f);
        CHECK(f->kind == c.kind);
    }
}

TEST_CASE("failures: the root cause beats engine dead; a clean log is clean", "[failures]") {
    auto f = classify_failure(
        "(APIServer pid=1) ERROR 01-01 00:00:00 [x.py:1] EngineDeadError: EngineCore died\n"
        "(EngineCore pid=2) ERROR 01-01 00:00:00 [x.py:1] torch.OutOfMemoryError: CUDA out of memory\n");
    REQUIRE(f);
    CHECK(f->kind == FailureKind::out_of_memory);
    CHECK(f->lineno == 2);
    CHECK_FALSE(classify_failure("(APIServer pid=1) INFO:     Application startup complete.\n"));
}

TEST_CASE("failures: a bare assert is named by its assert line, a generic error by its frame", "[failures]") {
    auto a = classify_failure("Traceback (most recent call last):\n  assert x is not None\nAssertionError\n");
    REQUIRE(a);
    CHECK(a->kind == FailureKind::assertion);
    CHECK(a->detail == "assert x is not None");
    auto g = classify_failure(
        "Traceback (most recent call last):\n"
        "  File \"/usr/lib/python3/site-packages/tensorrt_llm/quant.py\", line 42, in update_quant_config\n"
        "    x = cfg['a']\n"
        "TypeError: 'NoneType' object is not subscriptable\n");
    REQUIRE(g);
    CHECK(g->kind == FailureKind::unclassified_exception);
    CHECK(g->detail == "'NoneType' object is not subscriptable (in update_quant_config, quant.py:42)");
    CHECK(g->summary() == "unclassified_exception during boot: " + g->detail);
}

TEST_CASE("failures: ignored tracebacks and errors the server survived are not failures", "[failures]") {
    std::string ignored =
        "Ignore import error when loading sglang.srt.multimodal: libavutil.so.59\n"
        "[start of torchcodec traceback]\n"
        "RuntimeError: Could not load libtorchcodec\n"
        "[end of torchcodec traceback]\n";
    CHECK_FALSE(classify_failure(ignored));
    // mutation: without the markers the same error is a failure
    CHECK(classify_failure(replace_all(ignored, "traceback]", "trace]")));

    std::string survived =
        "INFO:     Application startup complete.\n"
        "TimeoutError: timed out\n"
        "INFO:     127.0.0.1:1 - \"POST /v1/completions HTTP/1.1\" 200 OK\n";
    CHECK_FALSE(classify_failure(survived));
    std::string died = replace_all(survived, "\" 200 OK", "\" 500 Internal Server Error");
    auto f = classify_failure(died);
    REQUIRE(f);
    CHECK(f->phase == FailurePhase::serving);
    CHECK(f->lineno == 2);
}

TEST_CASE("failures: SGLang batches after an error show the server survived it", "[failures]") {
    // SGLang stamps its lines "[date time] " (and " TP0" under tensor parallelism); a batch
    // run after the error means the server went on working.
    std::string survived =
        "[2026-11-29 10:13:01] INFO:     Application startup complete.\n"
        "[2026-11-29 10:13:09] Scheduler hit an exception: Traceback (most recent call last):\n"
        "ValueError: The input (9120 tokens) is longer than the model's context length\n"
        "[2026-11-29 10:13:11 TP0] Prefill batch, #new-seq: 1, #new-token: 122, #running-req: 0\n";
    CHECK_FALSE(classify_failure(survived));
    CHECK_FALSE(classify_failure(replace_all(survived, "Prefill batch", "Decode batch")));
    // mutations: no batch after the error, or a word that only starts like one
    for (auto broken : {replace_all(survived, "Prefill batch", "Prefill stalled"),
                        replace_all(survived, "Prefill batch,", "Prefill batches,"),
                        replace_all(survived, "[2026-11-29 10:13:11 TP0] ", "[not a stamp] ")}) {
        auto f = classify_failure(broken);
        REQUIRE(f);
        CHECK(f->kind == parse::FailureKind::value_error);
        CHECK(f->phase == FailurePhase::serving);
        CHECK(f->lineno == 3);
    }
}

TEST_CASE("failures: SGLang and 0.29/0.30 start-up failures are named", "[failures][shared]") {
    REQUIRE_REFERENCE(root);
    auto m = classify_failure(util::read_file(root / "sglang-0.5/boot_fail_mamba_state.log"));
    REQUIRE(m);
    CHECK(m->kind == FailureKind::runtime_error);
    CHECK(m->detail.rfind("Not enough GPU memory for hybrid (mamba/linear-attention) state", 0) == 0);
    auto a = classify_failure(util::read_file(root / "sglang-0.5/boot_fail_mem_advice.log"));
    REQUIRE(a);
    CHECK(a->kind == FailureKind::value_error);
    CHECK(a->detail.find("--mem-fraction-static=0.88. Raise --mem-fraction-static above 0.790") != std::string::npos);
    CHECK_FALSE(classify_failure(util::read_file(root / "sglang-0.5/capped/boot.log")));
    CHECK_FALSE(classify_failure(util::read_file(root / "sglang-0.5/live/boot.log")));
}
