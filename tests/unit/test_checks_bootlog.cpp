#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
using parse::BootFacts;

namespace {
BootFacts facts_of(const std::filesystem::path& p) { return parse::parse_boot_log_file(p, nullptr); }
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("T4/T11: two pools from one configuration, 12,405 vs 13,575 tokens", "[checks_bootlog][T4][T11][shared]") {
    REQUIRE_REFERENCE(root);
    std::vector<BootFacts> f{facts_of(root / "vllm-0.28/boot_pool_level_hi.log"),
                             facts_of(root / "vllm-0.28/boot_pool_level_lo.log")};
    std::vector<std::string> names{"hi", "lo"};
    auto t4 = checks::check_same_pool(f, names);
    REQUIRE(t4.size() == 1);
    CHECK(t4[0].status == Status::warn);
    CHECK(t4[0].evidence["pools"] == Json{{"hi", 13575}, {"lo", 12405}});
    CHECK(t4[0].evidence["levels"] == Json::array({12405, 13575}));
    CHECK(t4[0].message.find("12,405 to 13,575 tokens (9.43% apart)") != std::string::npos);

    auto t11 = checks::check_kv_memory_stable(f, names);
    REQUIRE(t11.size() == 1);
    CHECK(t11[0].status == Status::warn);
    CHECK(t11[0].message ==
          "same flags, KV cache memory varied: 1.44 to 1.59 GiB (weights and non-torch memory 18.85 to 18.99 GiB; 1 "
          "of 2 starts compiled the model from scratch)");

    // mutation: the same pool on both starts passes
    f[1].kv_pool_tokens = 13575;
    f[1].available_kv_cache_gib = f[0].available_kv_cache_gib;
    CHECK(checks::check_same_pool(f, names)[0].status == Status::pass);
    CHECK(checks::check_kv_memory_stable(f, names)[0].status == Status::pass);
    // a start without a pool line cannot be compared
    f[1].kv_pool_tokens = std::nullopt;
    CHECK(checks::check_same_pool(f, names)[0].status == Status::unknown);
}

TEST_CASE("T4: different flags or a failed start are not compared", "[checks_bootlog][T4][shared]") {
    REQUIRE_REFERENCE(root);
    std::vector<BootFacts> f{facts_of(root / "vllm-0.28/boot_eager.log"),
                             facts_of(root / "vllm-0.28/boot_pool_level_lo.log"),
                             facts_of(root / "vllm-0.28/boot_fail_accelerator.log")};
    CHECK(checks::check_same_pool(f, {"a", "b", "c"}).empty());
    auto g = checks::group_starts(f, {"a", "b", "c"});
    CHECK(g.groups.empty());
    CHECK(g.not_compared == std::vector<std::string>{"c"});
}

TEST_CASE("T4: SGLang starts differing only in the random seed are compared", "[checks_bootlog][T4][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts a = facts_of(root / "sglang-0.5/capped/boot.log");
    BootFacts b = a;
    (*b.server_args)["random_seed"] = 1234;
    auto t4 = checks::check_same_pool({a, b}, {"a", "b"});
    REQUIRE(t4.size() == 1);
    CHECK(t4[0].status == Status::pass);
    (*b.server_args)["max_running_requests"] = 16;  // a real difference
    CHECK(checks::check_same_pool({a, b}, {"a", "b"}).empty());
}

TEST_CASE("T5: block size forced to 784 on the eager hybrid boot", "[checks_bootlog][T5][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = facts_of(root / "vllm-0.28/boot_eager.log");
    auto r = checks::check_block_size(f);
    CHECK(r.status == Status::warn);
    CHECK(r.evidence["block_size"] == 784);
    CHECK(r.evidence["pool_blocks"].get<double>() == Approx(31554.0 / 784));
    CHECK(r.message.find("forced to 784 tokens (requested 16)") != std::string::npos);
    // mutation: asking for 784 makes it a pass
    f.asked.block_size = 784;  // as the parser reads a --block-size 784 from the non-default args
    CHECK(checks::check_block_size(f).status == Status::pass);

    BootFacts s = facts_of(root / "sglang-0.5/capped/boot.log");
    auto p = checks::check_block_size(s);
    CHECK(p.status == Status::pass);
    CHECK(p.message == "page size 1 token, as set");
    BootFacts failed = facts_of(root / "vllm-0.28/boot_fail_accelerator.log");
    CHECK(checks::check_block_size(failed).status == Status::unknown);
}

TEST_CASE("T6: the drafter ignored the requested backend", "[checks_bootlog][T6][shared]") {
    REQUIRE_REFERENCE(root);
    BootFacts f = facts_of(root / "vllm-0.28/boot_spec_backend_override.log");
    auto r = checks::check_backend_honoured(f);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["drafter"] == Json::array({"FLASHINFER"}));
    CHECK(r.message.find("the draft model (speculative decoding) picked FLASHINFER") != std::string::npos);
    // mutation: a drafter on the requested backend passes
    f.drafter_backends = {"TRITON_ATTN"};
    CHECK(checks::check_backend_honoured(f).status == Status::pass);
    f.selected_backends = {"FLASH_ATTN"};
    CHECK(checks::check_backend_honoured(f).status == Status::fail);

    BootFacts s = facts_of(root / "sglang-0.5/capped/boot.log");
    auto n = checks::check_backend_honoured(s);
    CHECK(n.status == Status::pass);
    CHECK(n.message.find("SGLang chose its own (flashinfer)") != std::string::npos);
    BootFacts none;
    CHECK(checks::check_backend_honoured(none).status == Status::unknown);
}

TEST_CASE("T7/T12: serving-phase crash and boot failures", "[checks_bootlog][T7][T12][shared]") {
    REQUIRE_REFERENCE(root);
    auto serving = checks::check_boot_failure(
        parse::classify_failure(util::read_file(root / "vllm-0.28/boot_spec_backend_override.log")));
    CHECK(serving.tripwire == "T7");
    CHECK(serving.status == Status::fail);
    CHECK(serving.evidence["phase"] == "serving");
    auto boot = checks::check_boot_failure(
        parse::classify_failure(util::read_file(root / "vllm-0.28/boot_fail_accelerator.log")));
    CHECK(boot.tripwire == "T12");
    CHECK(boot.evidence["kind"] == "accelerator_error");
    struct Case {
        const char* file;
        const char* message;
    };
    for (const Case& c : std::initializer_list<Case>{
             {"vllm-0.29/boot_fail_uva_wsl.log", "runtime_error during boot: UVA is not available"},
             {"vllm-0.30/boot_fail_cccl_headers.log",
              "jit_toolchain during boot: CUDA compiler and CUDA toolkit headers are incompatible"},
             {"vllm-0.30/boot_fail_link_cudart.log",
              "jit_toolchain during boot: cannot find -lcudart: No such file or directory"},
             {"vllm-0.30/boot_fail_ptx_version.log",
              "jit_toolchain during boot: Unsupported .version 9.4; current version is '9.0'"},
             {"trtllm-1.3/boot_fail_no_cuda_home.log", "assertion during boot: assert cuda_home is not None"},
             {"trtllm-1.3/boot_fail_compressed_tensors_w4a16.log",
              "unclassified_exception during boot: 'NoneType' object is not subscriptable (in "
              "update_quant_config_from_compressed_tensors, quant_config_utils.py:81)"},
         }) {
        INFO(c.file);
        auto r = checks::check_boot_failure(parse::classify_failure(util::read_file(root / c.file)));
        CHECK(r.tripwire == "T12");
        CHECK(r.message == c.message);
    }
    auto ok = checks::check_boot_failure(std::nullopt);
    CHECK((ok.tripwire == "T12" && ok.status == Status::pass));
}

TEST_CASE("T12: recognised lines in an unknown format are a Can't tell", "[checks_bootlog][T12][shared]") {
    REQUIRE_REFERENCE(root);
    std::string text = util::read_file(root / "vllm-0.28/boot_eager.log");
    BootFacts f = parse::parse_boot_log(
        replaced(text, "Available KV cache memory: 2.51 GiB", "Available KV cache memory: lots"), nullptr);
    auto r = checks::check_unparsed(f);
    REQUIRE(r);
    CHECK(r->status == Status::unknown);
    CHECK(r->evidence["unparsed"][0]["field"] == "available_kv_cache_gib");
    CHECK_FALSE(checks::check_unparsed(parse::parse_boot_log(text, nullptr)));
}
