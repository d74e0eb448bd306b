#include "inferlint/parse/bootlog.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

#include <fstream>
#include <set>

using namespace inferlint;
using parse::BootFacts;
using parse::parse_boot_log;

namespace {
std::string bootlog_replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}
std::vector<std::string> unparsed_fields(const BootFacts& f) {
    std::vector<std::string> out;
    for (const auto& u : f.unparsed) out.push_back(u.field);
    return out;
}
}  // namespace

TEST_CASE("bootlog: vLLM eager hybrid boot (boot_eager.log)", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = parse::parse_boot_log_file(root / "vllm-0.28/boot_eager.log", nullptr);
    CHECK(f.engine == "vllm");
    CHECK(f.vllm_version == "0.28.0");
    CHECK(f.kv_pool_tokens == 31554);
    CHECK(f.max_concurrency == 1.93);
    CHECK(f.max_concurrency_request_len == 16384);
    CHECK(f.attention_block_size == 784);
    CHECK(f.mamba_page_padding_pct == 0.13);
    CHECK(f.available_kv_cache_gib == 2.51);
    CHECK(f.selected_backends == std::vector<std::string>{"FLASH_ATTN"});
    CHECK_FALSE(f.requested_backend);
    CHECK(f.cudagraphs == false);
    CHECK(f.speculative == false);
    CHECK(f.ready);
    REQUIRE(f.non_default_args);
    CHECK((*f.non_default_args)["max_num_seqs"] == 32);
    std::set<std::string> procs;
    for (const auto& [k, v] : f.processes) procs.insert(k);
    CHECK(procs == std::set<std::string>{"APIServer", "EngineCore"});
    CHECK(f.unparsed.empty());
    CHECK(f.conflicts.empty());
}

TEST_CASE("bootlog: CUDA graph memory and the spec-decode backend override", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts g = parse::parse_boot_log_file(root / "vllm-0.28/boot_cudagraphs.log", nullptr);
    CHECK(g.cudagraphs == true);
    CHECK(g.cudagraph_estimated_gib == 0.20);
    CHECK(g.cudagraph_actual_gib == 0.18);
    CHECK(g.kv_pool_tokens == 26093);

    BootFacts s = parse::parse_boot_log_file(root / "vllm-0.28/boot_spec_backend_override.log", nullptr);
    CHECK(s.requested_backend == "TRITON_ATTN");
    CHECK(s.selected_backends == std::vector<std::string>{"TRITON_ATTN"});
    CHECK(s.drafter_backends == std::vector<std::string>{"FLASHINFER"});
    CHECK(s.speculative == true);
    REQUIRE(s.cudagraph_mode_downgrade);
    CHECK(s.cudagraph_mode_downgrade->first == "FULL_AND_PIECEWISE");
    CHECK(s.cudagraph_mode_downgrade->second == "PIECEWISE");
    Json block = s.result_block();
    CHECK(block["backend_selected"] == "TRITON_ATTN");
    CHECK(block["drafter_backend"] == "FLASHINFER");
    CHECK(block["kv_pool_tokens"] == 19988);
    CHECK(block["unparsed_lines"] == 0);
    CHECK(s.compile_s == 67.24);
    CHECK(s.compiled_fresh == true);

    // the vision encoder names FLASH_ATTN; that is not the LLM's backend
    BootFacts t = parse::parse_boot_log_file(root / "vllm-0.28/boot_fp8_triton.log", nullptr);
    CHECK(t.requested_backend == "TRITON_ATTN");
    CHECK(t.selected_backends == std::vector<std::string>{"TRITON_ATTN"});
    CHECK(t.unparsed.empty());
}

TEST_CASE("bootlog: a failed boot has no pool and no default", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = parse::parse_boot_log_file(root / "vllm-0.28/boot_fail_accelerator.log", nullptr);
    CHECK_FALSE(f.ready);
    CHECK_FALSE(f.kv_pool_tokens);
    CHECK_FALSE(f.attention_block_size);
}

TEST_CASE("bootlog: a changed format is reported, not defaulted", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    std::string text = util::read_file(root / "vllm-0.28/boot_eager.log");
    BootFacts f = parse_boot_log(
        bootlog_replaced(text,
                         "GPU KV cache size: 31,554 tokens, Maximum concurrency for 16,384 tokens per request: 1.93x",
                         "GPU KV cache size: 31.5k tokens (1.93x concurrency)"),
        nullptr);
    CHECK_FALSE(f.kv_pool_tokens);
    REQUIRE(unparsed_fields(f) == std::vector<std::string>{"kv_pool"});
    CHECK(f.unparsed[0].line.find("31.5k") != std::string::npos);

    // absent is not unparsed
    std::string without;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (line.find("GPU KV cache size") == std::string::npos) without += line + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
    }
    BootFacts g = parse_boot_log(without, nullptr);
    CHECK_FALSE(g.kv_pool_tokens);
    CHECK(g.unparsed.empty());

    // a cut-off arguments line is unparsed
    BootFacts h = parse_boot_log(bootlog_replaced(text, "'max_num_seqs': 32}", "'max_num_seqs': 3"), nullptr);
    CHECK_FALSE(h.non_default_args);
    CHECK(unparsed_fields(h) == std::vector<std::string>{"non_default_args"});
}

TEST_CASE("bootlog: two boots in one file are a visible conflict", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    std::string text = util::read_file(root / "vllm-0.28/boot_pool_level_hi.log") +
                       util::read_file(root / "vllm-0.28/boot_pool_level_lo.log");
    BootFacts f = parse_boot_log(text, nullptr);
    CHECK(f.kv_pool_tokens == 12405);  // the last one wins
    std::set<long long> pools;
    for (const auto& [name, vals] : f.conflicts)
        if (name == "kv_pool")
            for (const auto& v : vals) pools.insert(v[0].get<long long>());
    CHECK(pools == std::set<long long>{13575, 12405});
}

TEST_CASE("bootlog: every vLLM 0.28 fixture parses cleanly", "[bootlog][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* name :
         {"boot_eager.log", "boot_cudagraphs.log", "boot_spec_backend_override.log", "boot_fail_accelerator.log",
          "boot_fp8_triton.log", "boot_pool_level_hi.log", "boot_pool_level_lo.log", "run_preempted_silently.log"}) {
        INFO(name);
        BootFacts f = parse::parse_boot_log_file(root / "vllm-0.28" / name, nullptr);
        CHECK(f.vllm_version == "0.28.0");
        CHECK(f.unparsed.empty());
    }
}

TEST_CASE("bootlog: SGLang capped start lowered its running limit", "[bootlog][sglang][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = parse::parse_boot_log_file(root / "sglang-0.5/capped/boot.log", nullptr);
    CHECK(f.engine == "sglang");
    CHECK(f.ready);
    CHECK(f.unparsed.empty());
    CHECK(f.kv_pool_tokens == 17675);
    CHECK(f.available_kv_cache_gib == 1.08);
    CHECK(f.page_size == 1);
    CHECK(f.model_load_gib == 17.65);
    CHECK(f.cudagraph_actual_gib == 1.74);
    CHECK(f.cudagraphs == true);
    CHECK(f.requested_running == 32);
    CHECK(f.running_cap == 1);
    CHECK(f.running_cap_reason == "mamba state cache");
    CHECK_FALSE(f.requested_backend);
    CHECK(f.selected_backends == std::vector<std::string>{"flashinfer"});
    CHECK_FALSE(f.version());
    // Its log prints no version: the note says so and how to learn it (issue 29).
    auto unknown = parse::untested_version(f);
    REQUIRE(unknown);
    CHECK(unknown->rfind("SGLang's log states no version (tested: 0.5.20)", 0) == 0);
    CHECK(unknown->find("/get_server_info") != std::string::npos);
    f.server_version = "0.5.20";
    CHECK_FALSE(parse::untested_version(f));
    f.server_version = "0.6.1";
    auto note = parse::untested_version(f);
    REQUIRE(note);
    CHECK(note->rfind("SGLang 0.6.1 is not a tested version", 0) == 0);

    BootFacts live = parse::parse_boot_log_file(root / "sglang-0.5/live/boot.log", nullptr);
    CHECK(live.kv_pool_tokens == 5930);
    CHECK(live.running_cap == 10);
    CHECK(live.requested_running == 10);
    BootFacts q = parse::parse_boot_log_file(root / "sglang-0.5/qwen3-8b/boot.log", nullptr);
    CHECK(q.kv_pool_tokens == 32096);
    CHECK(q.available_kv_cache_gib == 4.4);
    CHECK(q.running_cap == 32);
}

TEST_CASE("bootlog: TensorRT-LLM facts, settings and pauses", "[bootlog][trtllm][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = parse::parse_boot_log_file(root / "trtllm-1.3/qwen3-8b/boot.log", nullptr);
    CHECK(f.engine == "trtllm");
    CHECK(f.ready);
    CHECK(f.unparsed.empty());
    CHECK(f.conflicts.empty());
    CHECK(f.version() == "1.3.0rc29");
    CHECK_FALSE(parse::untested_version(f));
    // printed twice: a dry run, then the pool itself
    CHECK(f.kv_pool_tokens == 37760);
    CHECK(f.available_kv_cache_gib == 5.19);
    CHECK(f.page_size == 32);
    CHECK(f.running_cap == 32);
    CHECK(f.requested_running == 32);
    CHECK(f.model_load_gib == 15.31);
    CHECK(f.selected_backends == std::vector<std::string>{"TRTLLM"});
    CHECK(f.speculative == false);
    REQUIRE(f.server_args);
    CHECK((*f.server_args)["model"] == "/root/models/Qwen3-8B");
    CHECK((*f.server_args)["capacity_scheduler_policy"] == "GUARANTEED_NO_EVICT");
    CHECK(f.pauses == 0);
    CHECK(f.served_in_log == 41);

    // saved only up to the ready line: no request covered, so no pause count
    std::string text = util::read_file(root / "trtllm-1.3/qwen3-8b/boot.log");
    BootFacts start = parse_boot_log(text.substr(0, text.find("Application startup complete")), nullptr);
    CHECK_FALSE(start.pauses);
    CHECK(start.served_in_log == 0);

    BootFacts p = parse::parse_boot_log_file(root / "trtllm-1.3/pauses/boot.log", nullptr);
    CHECK(p.kv_pool_tokens == 20960);
    CHECK(p.pauses == 13);
    CHECK((*p.server_args)["capacity_scheduler_policy"] == "MAX_UTILIZATION");
}

TEST_CASE("bootlog: prefixes and colour codes read as bare lines", "[bootlog]") {
    std::string text =
        "\x1b[1;36m(EngineCore pid=3475)\x1b[0;0m INFO 09-05 23:33:11 [core.py:1] Setting attention block size to 528 "
        "tokens\n"
        "(APIServer pid=12) INFO 09-05 23:33:11.123 [api.py:2] GPU KV cache size: 1,234 tokens, Maximum concurrency "
        "for "
        "2,048 tokens per request: 0.60x\r\n"
        "INFO:     Application startup complete.\n";
    BootFacts f = parse_boot_log(text, nullptr);
    CHECK(f.attention_block_size == 528);
    CHECK(f.kv_pool_tokens == 1234);
    CHECK(f.max_concurrency_request_len == 2048);
    CHECK(f.max_concurrency == 0.60);
    CHECK(f.processes.at("EngineCore") == std::vector<long long>{3475});
    CHECK(f.processes.at("APIServer") == std::vector<long long>{12});
    CHECK(f.ready_lineno == 3);
    CHECK(f.lines == 3);
    CHECK(parse::strip_log_prefix("(EngineCore pid=1) ERROR 01-01 00:00:00 [x.py:1] boom") == "boom");
}

TEST_CASE("bootlog: the engine named is used only when the log says none", "[bootlog]") {
    BootFacts f = parse_boot_log("Setting attention block size to 64 tokens\n", &sglang());
    CHECK(f.engine == "sglang");
    BootFacts g = parse_boot_log("Setting attention block size to 64 tokens\n", nullptr);
    CHECK_FALSE(g.engine);
    CHECK(f.lines == 1);
}

TEST_CASE("bootlog: untested versions", "[bootlog]") {
    BootFacts f;
    f.vllm_version = "0.28.0";
    CHECK_FALSE(parse::untested_version(f));
    f.vllm_version = "0.30.1";
    CHECK_FALSE(parse::untested_version(f));
    f.vllm_version = std::nullopt;
    CHECK_FALSE(parse::untested_version(f));
    f.vllm_version = "0.31.0";
    auto note = parse::untested_version(f);
    REQUIRE(note);
    CHECK(note->find("0.31.0 is not a tested version") != std::string::npos);
}

TEST_CASE("bootlog: labels keep same-named logs apart", "[bootlog]") {
    using V = std::vector<std::string>;
    CHECK(parse::log_labels({"a.log", "b.log"}) == V{"a.log", "b.log"});
    CHECK(parse::log_labels({"run1/boot.log", "run2/boot.log"}) == V{"run1/boot.log", "run2/boot.log"});
    CHECK(parse::log_labels({"x/run/boot.log", "y/run/boot.log"}) == V{"x/run/boot.log", "y/run/boot.log"});
}

TEST_CASE("bootlog: bad input gives a result or a clear error, never a crash", "[bootlog]") {
    auto dir = testsupport::scratch_dir("bootlog");
    CHECK_THROWS_AS(parse::parse_boot_log_file(dir / "missing.log", nullptr), InputError);
    CHECK_THROWS_AS(parse::parse_boot_log_file(dir, nullptr), InputError);
    { std::ofstream(dir / "empty.log"); }
    CHECK_THROWS_AS(parse::parse_boot_log_file(dir / "empty.log", nullptr), InputError);
    {
        std::ofstream(dir / "junk.log", std::ios::binary) << std::string(
            "\x7f"
            "ELF\0\0\1\2",
            8);
    }
    CHECK_THROWS_AS(parse::parse_boot_log_file(dir / "junk.log", nullptr), InputError);
    std::filesystem::remove_all(dir);

    // 100,000 nested brackets in the arguments line: unparsed, no stack overflow
    std::string deep = "non-default args: {'a': " + std::string(100000, '[') + std::string(100000, ']') + "}\n";
    BootFacts f = parse_boot_log(deep, nullptr);
    CHECK(unparsed_fields(f) == std::vector<std::string>{"non_default_args"});
    CHECK(f.unparsed[0].line.size() <= 300);

    // a 10 MB line holding an anchor, and invalid UTF-8
    std::string huge = "Setting attention block size to " + std::string(10 << 20, '9') + " tokens\n\xff\xfe bad\n";
    BootFacts g = parse_boot_log(huge, nullptr);
    CHECK_FALSE(g.attention_block_size);
    CHECK(g.lines == 2);
    CHECK_NOTHROW(parse::to_json(g).dump(1, ' ', false, Json::error_handler_t::replace));

    // cut off mid-line
    BootFacts h = parse_boot_log("Available KV cache memory: 2.5", nullptr);
    CHECK(unparsed_fields(h) == std::vector<std::string>{"available_kv_cache_gib"});
}
