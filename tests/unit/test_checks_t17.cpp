// T17 on recorded boot logs and on mutations of them made in a TempDir: the KV cache
// dtype against the one asked (and the config.json that explains it), and the
// configuration diff across starts.
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t17_realized_config.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/model_config.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

parse::BootFacts t17_facts(const fs::path& log) { return parse::parse_boot_log_file(log, nullptr); }

// The log with one text replaced (it must be there), written in `dir`.
fs::path t17_mutated(const fs::path& log, const fs::path& dir, const std::string& from, const std::string& to) {
    std::string text = util::read_file(log);
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    fs::path out = dir / log.filename();
    util::write_file(out, text);
    return out;
}

const std::string kFp8Flag = "'kv_cache_dtype': 'fp8', ";

fs::path t17_write_config(const fs::path& dir, const std::string& text) {
    fs::create_directories(dir);
    util::write_file(dir / "config.json", text);
    return dir / "config.json";
}

const std::string kFp8Scheme =
    R"({"architectures": ["Qwen3ForCausalLM"], "quantization_config": {"quant_method": "compressed-tensors",)"
    R"( "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false}}})";

CheckResult t17_diff(const std::vector<parse::BootFacts>& starts, const std::vector<std::string>& labels) {
    std::vector<const parse::BootFacts*> ptrs;
    for (const auto& f : starts) ptrs.push_back(&f);
    return checks::check_realized_config(ptrs, labels);
}

}  // namespace

TEST_CASE("T17: the recorded FP8 start asked for FP8 with --kv-cache-dtype, a pass", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = t17_facts(root / "vllm-0.28/boot_fp8_triton.log");
    CHECK(f.realized.kv_cache_dtype == "fp8");
    auto r = checks::check_kv_dtype_as_asked(f, nullptr);
    CHECK(r.tripwire == TripwireId::T17);
    CHECK(r.status == Status::pass);
    CHECK(r.message == "KV cache in fp8, as asked (--kv-cache-dtype fp8)");
    CHECK(r.evidence["asked"] == "fp8");
    CHECK(r.evidence["realized"] == "fp8");
}

TEST_CASE("T17: the same FP8 start without the flag warns, and names the cause it can read", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("t17");
    auto log = t17_mutated(root / "vllm-0.28/boot_fp8_triton.log", tmp.path, kFp8Flag, "");
    auto f = t17_facts(log);
    auto no_config = checks::check_kv_dtype_as_asked(f, nullptr);
    CHECK(no_config.status == Status::warn);
    CHECK(no_config.evidence["asked"] == "auto");
    CHECK(no_config.evidence["realized"] == "fp8");
    CHECK(no_config.message.find("stored the KV cache in fp8 though --kv-cache-dtype was auto") != std::string::npos);
    CHECK(no_config.message.find("give --model-config PATH") != std::string::npos);

    SECTION("a config.json with an 8-bit kv_cache_scheme is named as the cause") {
        auto path = t17_write_config(tmp.path / "model", kFp8Scheme);
        auto config = run::read_model_config(tmp.path / "model");  // the folder: its config.json
        CHECK(config.kv_cache_dtype == "fp8");
        CHECK(config.quant_method == "compressed-tensors");
        auto r = checks::check_kv_dtype_as_asked(f, &config);
        CHECK(r.status == Status::warn);
        CHECK(r.message.find("the checkpoint asked for it: " + path.string() +
                             "'s quantization_config (compressed-tensors) has kv_cache_scheme") != std::string::npos);
        CHECK(r.evidence["model_config"]["kv_cache_dtype"] == "fp8");
    }
    SECTION("a config.json without the block leaves the cause unknown, still a warning") {
        auto path = t17_write_config(tmp.path / "plain", R"({"architectures": ["Qwen3ForCausalLM"]})");
        auto config = run::read_model_config(path);
        CHECK_FALSE(config.has_quantization);
        auto r = checks::check_kv_dtype_as_asked(f, &config);
        CHECK(r.status == Status::warn);
        CHECK(r.message.find("cause unknown: " + path.string() + " has no quantization_config") != std::string::npos);
        auto no_scheme = parse::parse_model_config(R"({"quantization_config": {"quant_method": "gptq"}})", "c.json");
        auto r2 = checks::check_kv_dtype_as_asked(f, &no_scheme);
        CHECK(r2.status == Status::warn);
        CHECK(r2.message.find("cause unknown: c.json's quantization_config has no kv_cache_scheme") !=
              std::string::npos);
    }
    SECTION("a config.json that is not JSON: a one-line InputError when named, a stated problem when found") {
        auto path = t17_write_config(tmp.path / "broken", "{\"quantization_config\": ");
        CHECK_THROWS_AS(run::read_model_config(path), InputError);
        auto parsed = parse::parse_model_config(util::read_file(path), path.string());
        REQUIRE(parsed.problem);
        auto r = checks::check_kv_dtype_as_asked(f, &parsed);
        CHECK(r.status == Status::warn);
        CHECK(r.message.find("cause not read: " + path.string() + " is not JSON") != std::string::npos);
    }
}

TEST_CASE("T17: a normal vLLM 0.28 start and SGLang's logged dtype pass", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto v = checks::check_kv_dtype_as_asked(t17_facts(root / "vllm-0.28/boot_cudagraphs.log"), nullptr);
    CHECK(v.status == Status::pass);
    CHECK(v.message == "KV cache in torch.bfloat16, as asked (--kv-cache-dtype auto)");
    auto s = t17_facts(root / "sglang-0.5/qwen3-8b/boot.log");
    CHECK(s.realized.kv_cache_dtype == "torch.bfloat16");
    CHECK(checks::check_kv_dtype_as_asked(s, nullptr).status == Status::pass);
}

TEST_CASE("T17: SGLang's KV dtype line changed to fp8 warns", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("t17");
    auto log = t17_mutated(root / "sglang-0.5/qwen3-8b/boot.log", tmp.path, "dtype: torch.bfloat16,",
                           "dtype: torch.float8_e4m3fn,");
    auto r = checks::check_kv_dtype_as_asked(t17_facts(log), nullptr);
    CHECK(r.status == Status::warn);
    CHECK(r.evidence["realized"] == "torch.float8_e4m3fn");
}

TEST_CASE("T17: TensorRT-LLM's checkpoint KV quantization is read from the config.json", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = t17_facts(root / "trtllm-1.3/qwen3-8b/boot.log");
    CHECK(f.realized.kv_cache_dtype == "auto");
    CHECK(f.realized.kv_dtype_from_checkpoint);
    // kv_cache_config.dtype auto asks for the checkpoint's quantization, and the log says it was
    // used: as asked. The log never names it, and the message says what would.
    auto as_asked = checks::check_kv_dtype_as_asked(f, nullptr);
    CHECK(as_asked.status == Status::pass);
    CHECK(as_asked.message.find("--model-config") != std::string::npos);
    auto unasked = f;  // a log that states no KV dtype setting at all
    unasked.asked.kv_cache_dtype.reset();
    CHECK(checks::check_kv_dtype_as_asked(unasked, nullptr).status == Status::unknown);
    auto plain = parse::parse_model_config(R"({"architectures": ["Qwen3ForCausalLM"]})", "config.json");
    CHECK(checks::check_kv_dtype_as_asked(f, &plain).status == Status::pass);
    auto fp8 = parse::parse_model_config(kFp8Scheme, "config.json");
    auto r = checks::check_kv_dtype_as_asked(f, &fp8);
    CHECK(r.status == Status::warn);
    CHECK(r.message.find("the checkpoint asked for it") != std::string::npos);
}

TEST_CASE("T17: a start that died before its KV cache is can't tell", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto r = checks::check_kv_dtype_as_asked(t17_facts(root / "vllm-0.28/boot_fail_accelerator.log"), nullptr);
    CHECK(r.status == Status::unknown);
}

TEST_CASE("T17: two SGLang starts with the same flags ran the same configuration", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    std::vector<parse::BootFacts> starts{t17_facts(root / "sglang-0.5/qwen3-8b/boot.log"),
                                         t17_facts(root / "sglang-0.5/qwen3-8b-start2/boot.log")};
    auto r = t17_diff(starts, {"a", "b"});
    CHECK(r.status == Status::pass);
    CHECK(r.evidence["differ"].empty());
    const Json& kv = r.evidence["fields"]["kv_capacity_tokens"];
    CHECK(kv["realized"] == Json::array({32096, 32096}));
    CHECK(r.evidence["fields"]["kv_cache_dtype"]["asked"] == Json::array({"auto", "auto"}));
    CHECK(r.evidence["fields"]["max_running_requests"]["realized"] == Json::array({32, 32}));
    REQUIRE(r.evidence["fields"].size() == 18);

    SECTION("one start's KV line changed flips it to a warning naming the unasked fields") {
        testsupport::TempDir tmp("t17");
        auto log = t17_mutated(root / "sglang-0.5/qwen3-8b-start2/boot.log", tmp.path,
                               "dtype: torch.bfloat16, #tokens: 32096", "dtype: torch.float8_e4m3fn, #tokens: 64192");
        log = t17_mutated(log, tmp.path, "max_total_num_tokens=32096", "max_total_num_tokens=64192");
        starts[1] = t17_facts(log);
        auto w = t17_diff(starts, {"a", "b"});
        CHECK(w.status == Status::warn);
        CHECK(w.evidence["differ"] == Json::array({"kv_cache_dtype", "kv_capacity_tokens"}));
        CHECK(w.evidence["fields"]["kv_cache_dtype"]["realized"] ==
              Json::array({"torch.bfloat16", "torch.float8_e4m3fn"}));
        CHECK(w.message.find("The command lines agree on kv_cache_dtype, kv_capacity_tokens") != std::string::npos);
    }
    SECTION("a flag changed in one start's server_args is a difference as asked") {
        testsupport::TempDir tmp("t17");
        auto log = t17_mutated(root / "sglang-0.5/qwen3-8b-start2/boot.log", tmp.path, "'disable_radix_cache': False",
                               "'disable_radix_cache': True");
        starts[1] = t17_facts(log);
        auto w = t17_diff(starts, {"a", "b"});
        CHECK(w.status == Status::warn);
        CHECK(w.evidence["differ"] == Json::array({"prefix_caching"}));
        CHECK(w.evidence["fields"]["prefix_caching"]["asked"] == Json::array({true, false}));
    }
}

TEST_CASE("T17: vLLM's CUDA graphs against eager, as asked and as run", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    std::vector<parse::BootFacts> starts{t17_facts(root / "vllm-0.28/boot_cudagraphs.log"),
                                         t17_facts(root / "vllm-0.28/boot_eager.log")};
    auto r = t17_diff(starts, {"graphs", "eager"});
    CHECK(r.status == Status::warn);
    const Json& g = r.evidence["fields"]["cuda_graphs"];
    CHECK(g["asked"] == Json::array({nullptr, "eager"}));
    CHECK(g["realized"] == Json::array({"FULL_AND_PIECEWISE", "eager"}));
    CHECK(r.evidence["fields"]["compile"]["realized"] == Json::array({"VLLM_COMPILE", "NONE"}));
    CHECK(r.evidence["fields"]["engine_version"]["realized"] == Json::array({"0.28.0", "0.28.0"}));
}

TEST_CASE("T17: the FP8 start against itself with the flag removed differs in kv_cache_dtype only", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("t17");
    auto log = t17_mutated(root / "vllm-0.28/boot_fp8_triton.log", tmp.path, kFp8Flag, "");
    std::vector<parse::BootFacts> same{t17_facts(root / "vllm-0.28/boot_fp8_triton.log"),
                                       t17_facts(root / "vllm-0.28/boot_fp8_triton.log")};
    CHECK(t17_diff(same, {"a", "b"}).status == Status::pass);
    std::vector<parse::BootFacts> starts{t17_facts(root / "vllm-0.28/boot_fp8_triton.log"), t17_facts(log)};
    auto r = t17_diff(starts, {"asked", "unasked"});
    CHECK(r.status == Status::warn);
    CHECK(r.evidence["differ"] == Json::array({"kv_cache_dtype"}));
    CHECK(r.evidence["fields"]["kv_cache_dtype"]["asked"] == Json::array({"fp8", "auto"}));
    CHECK(r.evidence["fields"]["gpu_memory_utilization"]["realized"] == Json::array({0.93, 0.93}));
    CHECK(r.evidence["fields"]["quantization"]["realized"] ==
          Json::array({"compressed-tensors", "compressed-tensors"}));
}

TEST_CASE("T17: starts that never came up are left out; fewer than two is can't tell", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    std::vector<parse::BootFacts> starts{t17_facts(root / "vllm-0.28/boot_cudagraphs.log"),
                                         t17_facts(root / "vllm-0.28/boot_fail_accelerator.log")};
    auto r = t17_diff(starts, {"up", "died"});
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["not_compared"] == Json::array({"died"}));
}

TEST_CASE("T17: the suite gives T17 after the reference's verdicts, with the start's model config", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    testsupport::TempDir tmp("t17");
    auto log = t17_mutated(root / "vllm-0.28/boot_fp8_triton.log", tmp.path, kFp8Flag, "");
    auto a = run::read_boot_start(log, "unasked", nullptr);
    auto b = run::read_boot_start(root / "vllm-0.28/boot_fp8_triton.log", "asked", nullptr);
    REQUIRE(a);
    REQUIRE(b);
    CHECK_FALSE(a->model_config);  // /models/... is not on this machine
    a->model_config = parse::parse_model_config(kFp8Scheme, "config.json");
    auto results = checks::check_boots({*a, *b}, checks::UnparsedLines::report);
    REQUIRE(results.size() >= 3);
    auto n = results.size();
    CHECK(results[n - 3].tripwire == TripwireId::T17);
    CHECK(results[n - 3].status == Status::warn);
    CHECK(results[n - 3].message.rfind("unasked: ", 0) == 0);
    CHECK(results[n - 2].status == Status::pass);
    CHECK(results[n - 1].status == Status::warn);
    for (std::size_t i = 0; i + 3 < n; ++i) CHECK(results[i].tripwire != TripwireId::T17);
}

TEST_CASE("T17: the boot-facts document keeps the Python tool's keys", "[T17][shared]") {
    REQUIRE_REFERENCE(root);
    auto f = t17_facts(root / "vllm-0.28/boot_fp8_triton.log");
    Json j = to_json(f);
    CHECK_FALSE(j.contains("realized"));
    CHECK(j["unparsed"].empty());
    CHECK(j["conflicts"].empty());
    CHECK(f.realized.engine_config["kv_cache_dtype"] == "fp8");
}
