// T22 on recorded boot logs (the reference's fixtures and ../shared/field), on made-up logs
// of this project (tests/fixtures/t22) and on mutations that flip the verdict with one change.
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t22_known_engine_bug.hpp"
#include "inferlint/core/catalog.hpp"
#include "inferlint/core/known_bugs.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

using namespace inferlint;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

CheckResult t22_of(const fs::path& log) {
    return checks::check_known_engine_bug(parse::parse_boot_log_file(log, nullptr));
}

// The log with one text replaced (it must be there), written in `dir`.
fs::path t22_mutated(const fs::path& log, const fs::path& dir, const std::string& from, const std::string& to) {
    std::string text = util::read_file(log);
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    fs::path out = dir / log.filename();
    util::write_file(out, text);
    return out;
}

}  // namespace

TEST_CASE("T22: versions compare by their numbers", "[T22]") {
    CHECK(compare_versions("0.28.0", "0.30") < 0);
    CHECK(compare_versions("0.30", "0.30.0") == 0);
    CHECK(compare_versions("0.5.20", "0.5.3") > 0);
    CHECK(compare_versions("v0.32.1", "0.32.0") > 0);
    CHECK(compare_versions("0.19dev", "0.19") == 0);
    CHECK(compare_versions("1.2.0rc5", "1.2.0") == 0);
    const KnownBug& sglang_row = known_engine_bugs().back();
    CHECK(version_in_range(sglang_row, "0.5.20"));
    CHECK_FALSE(version_in_range(sglang_row, "0.5.21"));
    CHECK_FALSE(version_in_range(sglang_row, "0.5.2"));
    CHECK(bug_versions_text(sglang_row) == "SGLang 0.5.20");
}

TEST_CASE("T22: explain lists every row of the table", "[T22][catalog]") {
    const Tripwire* t = lookup_tripwire("known-engine-bug");
    REQUIRE(t);
    CHECK(t->key == TripwireId::T22);
    for (const auto& bug : known_engine_bugs()) {
        CHECK_THAT(std::string(t->what), Contains(std::string(bug.effect)));
        CHECK_THAT(std::string(t->what), Contains(std::string(bug.fix)));
        CHECK_THAT(std::string(t->what), Contains(std::string(bug.source)));
    }
    CHECK_THAT(std::string(t->what), Contains("(1) vLLM before 0.30"));
    // explain prints them.
    CHECK_THAT(explain_text(*t, nullptr, 100), Contains("SGLang 0.5.20, a hybrid model with the prefix"));
    CHECK_THAT(std::string(t->what), Contains("vLLM before 0.32.0"));
}

TEST_CASE("T22: vLLM 0.28 with MTP on a hybrid model warns; one change flips it", "[T22][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path log = root / "vllm-0.28" / "boot_spec_backend_override.log";
    CheckResult r = t22_of(log);
    CHECK(r.tripwire == TripwireId::T22);
    CHECK(r.status == Status::warn);
    CHECK_THAT(r.message, Contains("vLLM 0.28.0 with MTP speculative decoding on a hybrid"));
    CHECK_THAT(r.message, Contains("29 of 385 replies"));
    CHECK_THAT(r.message, Contains("upgrade to vLLM 0.30"));
    CHECK(r.evidence["matched"] == Json::array({"vllm-mtp-hybrid-v1"}));
    CHECK(r.evidence["speculative_method"] == "mtp");
    CHECK(r.evidence["hybrid_model"] == true);

    testsupport::TempDir dir("t22");
    // Another speculative method: no row.
    CHECK(t22_of(t22_mutated(log, dir.path, "'method': 'mtp'", "'method': 'eagle3'")).status == Status::pass);
    // n-gram on the same hybrid start: the n-gram row.
    CheckResult ngram = t22_of(t22_mutated(log, dir.path, "'method': 'mtp'", "'method': 'ngram'"));
    CHECK(ngram.status == Status::warn);
    CHECK(ngram.evidence["matched"] == Json::array({"vllm-ngram-hybrid"}));
    // 0.30 and later: MTP is affected only with the V1 runner forced. vLLM logs "Using V2 Model
    // Runner" where it runs V2 (its default from 0.29): a complete start without that line ran V1.
    fs::path v30 = t22_mutated(log, dir.path, "engine (v0.28.0)", "engine (v0.30.0)");
    CheckResult forced = t22_of(v30);
    CHECK(forced.status == Status::warn);
    CHECK(forced.evidence["matched"] == Json::array({"vllm-mtp-hybrid-v1-forced"}));
    CHECK(forced.evidence["v1_model_runner"] == true);
    testsupport::TempDir v2dir("t22-v2");
    const std::string anchor = "(EngineCore pid=3475) INFO 09-05 23:28:45 [cuda.py:426] Using AttentionBackendEnum";
    CheckResult v2 = t22_of(t22_mutated(v30, v2dir.path, anchor,
                                        "(EngineCore pid=3475) INFO 09-05 23:28:45 [gpu_worker.py:441] Using V2 Model "
                                        "Runner\n" +
                                            anchor));
    CHECK(v2.status == Status::pass);
    CHECK(v2.evidence["v1_model_runner"] == false);
    // The same line on 0.28, where V2 was opt-in: the row before 0.30 needs V1, so it passes too.
    testsupport::TempDir v28dir("t22-v28");
    CheckResult v28 = t22_of(t22_mutated(log, v28dir.path, anchor,
                                         "(EngineCore pid=3475) INFO 09-05 23:28:45 [gpu_worker.py:441] Using V2 "
                                         "Model Runner\n" +
                                             anchor));
    CHECK(v28.status == Status::pass);
    // A part of a 0.30 log (no ready line) that does not say the runner: Can't tell.
    testsupport::TempDir partdir("t22-part");
    std::string text = util::read_file(v30);
    text = text.substr(0, text.find("Application startup complete"));
    text = text.substr(0, text.rfind('\n') + 1);
    util::write_file(partdir.path / "part.log", text);
    CheckResult part = t22_of(partdir.path / "part.log");
    CHECK(part.status == Status::unknown);
    CHECK_THAT(part.message, Contains("the log does not say the model runner"));
    CHECK(part.evidence["undecided"] == Json::array({"vllm-mtp-hybrid-v1-forced"}));
}

TEST_CASE("T22: vLLM starts without speculative decoding pass", "[T22][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* f : {"vllm-0.30/live/boot.log", "vllm-0.29/live/boot.log", "vllm-0.28/boot_fp8_triton.log"}) {
        INFO(f);
        CheckResult r = t22_of(root / f);
        CHECK(r.status == Status::pass);
        CHECK_THAT(r.message, Contains("no known bug for vLLM 0."));
    }
}

TEST_CASE("T22: SGLang's hybrid start with the radix cache on: the version decides", "[T22][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path log = root / "sglang-0.5" / "capped" / "boot.log";
    parse::BootFacts facts = parse::parse_boot_log_file(log, nullptr);
    // SGLang's log does not print its version: Can't tell, never a pass.
    CheckResult unsure = checks::check_known_engine_bug(facts);
    CHECK(unsure.status == Status::unknown);
    CHECK_THAT(unsure.message, Contains("has a known bug in SGLang 0.5.20, and the log does not say the version"));
    CHECK(unsure.evidence["hybrid_model"] == true);
    CHECK(unsure.evidence["prefix_cache"] == true);
    // The version the server reports over HTTP (xray) decides it.
    facts.server_version = "0.5.20";
    CheckResult hit = checks::check_known_engine_bug(facts);
    CHECK(hit.status == Status::warn);
    CHECK_THAT(hit.message, Contains("SGLang 0.5.20 with a hybrid model with the prefix (radix) cache on"));
    CHECK_THAT(hit.message, Contains("--disable-radix-cache"));
    facts.server_version = "0.5.21";
    CHECK(checks::check_known_engine_bug(facts).status == Status::pass);
    // The radix cache off: no row can match, whatever the version.
    testsupport::TempDir dir("t22");
    CHECK(t22_of(t22_mutated(log, dir.path, "'disable_radix_cache': False", "'disable_radix_cache': True")).status ==
          Status::pass);
    // A dense model (no mamba radix cache) with the radix cache on passes too.
    CHECK(t22_of(root / "sglang-0.5" / "qwen3-8b" / "boot.log").status == Status::pass);
}

TEST_CASE("T22: a made-up vLLM 0.31 start with n-gram on a hybrid model warns; 0.32.0 passes", "[T22]") {
    const fs::path log = testsupport::own_fixtures() / "t22" / "vllm-0.31-ngram-hybrid.log";
    CheckResult r = t22_of(log);
    CHECK(r.status == Status::warn);
    CHECK_THAT(r.message, Contains("vLLM 0.31.0 with n-gram speculative decoding on a hybrid model"));
    CHECK_THAT(r.message, Contains("18.2"));
    testsupport::TempDir dir("t22");
    CHECK(t22_of(t22_mutated(log, dir.path, "engine (v0.31.0)", "engine (v0.32.0)")).status == Status::pass);
    // Without the mamba lines the start may or may not be hybrid until it says it is ready.
    fs::path dense = t22_mutated(log, dir.path, "Padding mamba page size", "Padding something else");
    dense = t22_mutated(dense, dir.path, "Setting attention block size to 832", "Setting nothing");
    CHECK(t22_of(dense).status == Status::pass);  // ready without them: not hybrid
    fs::path cut = t22_mutated(dense, dir.path, "Application startup complete.", "");
    CheckResult unsure = t22_of(cut);
    CHECK(unsure.status == Status::unknown);
    CHECK_THAT(unsure.message, Contains("whether the model is hybrid"));
}

TEST_CASE("T22: the field's logs: a verdict on each, never a pass without an engine", "[T22][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path field = testsupport::reference_dir().parent_path() / "field";
    REQUIRE(fs::is_directory(field));
    int seen = 0;
    for (const auto& e : fs::directory_iterator(field)) {
        if (e.path().extension() != ".log") continue;
        parse::BootFacts facts = parse::parse_boot_log_file(e.path(), nullptr);
        CheckResult r = checks::check_known_engine_bug(facts);
        INFO(e.path().filename().string() << ": " << r.message);
        ++seen;
        if (!facts.engine) CHECK(r.status == Status::unknown);
        if (facts.engine == "trtllm") CHECK(r.status == Status::pass);
        CHECK(r.status != Status::fail);
    }
    CHECK(seen >= 15);
}

TEST_CASE("T22: check_boots gives it per start, after the reference's verdicts and before T17", "[T22][shared]") {
    REQUIRE_REFERENCE(root);
    checks::BootStart b{
        .label = "boot.log",
        .facts = parse::parse_boot_log_file(root / "vllm-0.28" / "boot_spec_backend_override.log", nullptr)};
    auto results = checks::check_boots({b}, checks::UnparsedLines::ignore);
    REQUIRE(results.size() >= 2);
    CHECK(results.back().tripwire == TripwireId::T17);
    CHECK(results[results.size() - 2].tripwire == TripwireId::T22);
    CHECK(results[results.size() - 2].status == Status::warn);
}
