// The project's own small boot logs (tests/fixtures/bootlog/), continued: starts that
// succeed, on each engine, and what T4, T5, T6, T11 and T12 read from their settings and
// memory lines.
#include "own_bootlog.hpp"

// The test cases too are in the helpers' namespace, apart from other files' in a unity batch.
namespace own_bootlog_test {

// ---- a healthy vLLM start

TEST_CASE("own boot logs: a healthy vLLM start passes T12, T5, T6, T22 and T17", "[bootlog][own]") {
    auto log = logs() / "vllm/healthy.log";
    auto c = check_log({log});
    CHECK(c.rc == 0);
    REQUIRE(c.results.size() == 5);  // T12, T5, T6, T22, T17
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
    CHECK(starts(t6["message"].get<std::string>(),
                 "nothing to check: the server was started without --attention-backend"));
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
    CHECK(
        t5["message"] ==
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
    CHECK(starts(t12[1]["evidence"]["unparsed"][0]["line"].get<std::string>(),
                 "GPU KV cache size: 51,680 tokens (3,230 blocks"));
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
    REQUIRE(c.results.size() == 5);  // T12, T5, T6, T22, T17
    CHECK(only(c.results, "T17")["message"] == "KV cache in torch.bfloat16, as asked (--kv-cache-dtype auto)");
    // A dense model (no mamba radix cache) with the radix cache on: no known bug, whatever the version.
    CHECK(only(c.results, "T22")["status"] == "pass");
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
    // T17 can't tell: this log has no KV quantization line, so exit 2 with every other pass.
    CHECK(c.rc == 2);
    REQUIRE(c.results.size() == 5);  // T12, T5, T6, T22, T17
    CHECK(only(c.results, "T17")["status"] == "unknown");
    CHECK(only(c.results, "T12")["status"] == "pass");
    Json t5 = only(c.results, "T5");
    CHECK(t5["status"] == "pass");
    CHECK(t5["message"] == "page size 32 tokens, as set");
    Json t6 = only(c.results, "T6");
    CHECK(t6["status"] == "pass");
    CHECK(contains(t6["message"].get<std::string>(),
                   "started without attn_backend, so TensorRT-LLM chose its own (TRTLLM)"));
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

}  // namespace own_bootlog_test
