// Every real load-tool file in ../shared/loadtools read, and each figure its FACTS.json
// says the file states (completed, failed, incomplete, output tokens, TTFT mean and p99)
// compared with what the reader read: equal where stated, nullopt where FACTS says the
// file does not state it. Latencies FACTS gives in seconds are compared in ms.
#include "inferlint/parse/load_result.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <cstdlib>
#include <iostream>

using namespace inferlint;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

#define REQUIRE_LOADTOOLS(var)                                                           \
    const fs::path var = testsupport::loadtools_dir();                                   \
    if (!fs::is_directory(var))                                                          \
    FAIL("needs " << var.string()                                                        \
                  << ", which is absent: ctest skips the [shared] test cases there; by " \
                     "hand, leave them out with ~[shared]")

bool lt_close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

std::optional<double> lt_fact_value(const json& figures, const char* key) {
    if (!figures.contains(key) || figures[key].is_null()) return std::nullopt;
    const json& v = figures[key]["value"];
    if (v.is_number()) return v.get<double>();
    return std::nullopt;
}

template <typename T>
void lt_check_count(const char* what, const json& figures, const char* key, const std::optional<T>& read) {
    INFO(what);
    auto want = lt_fact_value(figures, key);
    if (!want) {
        CHECK_FALSE(read.has_value());
        return;
    }
    REQUIRE(read.has_value());
    CHECK(lt_close(static_cast<double>(*read), *want));
}

// FACTS ttft: {mean: {value}, p99: {value}, unit: "s" | "ms"} or null.
void lt_check_ttft(const json& figures, const LatencyStats& ttft) {
    if (!figures.contains("ttft") || figures["ttft"].is_null()) {
        CHECK_FALSE(ttft.p99.has_value());
        CHECK_FALSE(ttft.mean.has_value());
        return;
    }
    const json& t = figures["ttft"];
    const double to_ms = t.value("unit", "ms") == "s" ? 1000.0 : 1.0;
    for (auto [name, read] : {std::pair{"p99", ttft.p99}, std::pair{"mean", ttft.mean}}) {
        INFO("ttft " << name);
        if (!t.contains(name) || t[name].is_null()) continue;
        REQUIRE(read.has_value());
        CHECK(lt_close(*read, t[name]["value"].get<double>() * to_ms));
    }
}

void lt_check_figures(const json& figures, const LoadResult& r) {
    // A file of per-request records states no totals: they are counted from the records.
    if (!lt_fact_value(figures, "completed_requests") && !r.requests.empty()) {
        long long ok = 0;
        for (const auto& q : r.requests) ok += !q.error;
        CHECK(r.completed == ok);
        CHECK(r.metric_notes.back().find("per-request records") != std::string::npos);
        return;
    }
    lt_check_count("completed", figures, "completed_requests", r.completed);
    lt_check_count("failed", figures, "failed_requests", r.failed);
    lt_check_count("output tokens", figures, "total_output_tokens", r.output_tokens);
    auto inc = lt_fact_value(figures, "incomplete_or_cancelled_requests");
    if (inc) CHECK(lt_close(static_cast<double>(r.incomplete.value_or(0) + r.cancelled.value_or(0)), *inc));
    lt_check_ttft(figures, r.ttft_ms);
}

struct LtRow {
    std::string file, tool;
    LoadResult r;
};

// Reads each file FACTS.json describes and checks it; the rows read, for the table.
std::vector<LtRow> lt_check_folder(const fs::path& folder) {
    std::vector<LtRow> rows;
    const json facts = json::parse(util::read_file(folder / "FACTS.json"));
    for (const auto& [name, entry] : facts["files"].items()) {
        const fs::path file = folder / name;
        INFO(file.string());
        if (name.ends_with(".csv") || name.ends_with(".txt")) continue;
        if (name.find("prometheus_metrics") != std::string::npos) {  // the server's side, refused alone
            CHECK_THROWS_WITH(load_load_result(file), Catch::Contains("prometheus"));
            continue;
        }
        LoadResult r = load_load_result(file);
        if (entry.contains("figures")) {
            lt_check_figures(entry["figures"], r);
        } else if (entry.contains("benchmarks")) {
            for (const json& b : entry["benchmarks"]) {
                const std::size_t i = b["index"].get<std::size_t>();
                INFO("benchmark " << i);
                const LoadResult& part = r.stages.empty() ? r : r.stages.at(i);
                lt_check_figures(b["figures"], part);
            }
        } else if (entry.contains("lines")) {  // JSON lines: the last run is the one read
            lt_check_figures(entry["lines"].back()["figures"], r);
        }
        rows.push_back({name, r.tool, r});
    }
    return rows;
}

std::string lt_opt(const std::optional<long long>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

TEST_CASE("load tools: every real file reads the figures its FACTS.json states", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    int files = 0;
    const bool table = std::getenv("INFERLINT_LOADTOOLS_TABLE") != nullptr;
    for (const auto& tool : fs::directory_iterator(root)) {
        if (!tool.is_directory()) continue;
        for (const auto& c : fs::directory_iterator(tool.path())) {
            if (!fs::exists(c.path() / "FACTS.json")) continue;
            for (const LtRow& row : lt_check_folder(c.path())) {
                ++files;
                if (!table) continue;
                const auto& r = row.r;
                std::cout << fs::relative(c.path(), root).string() << "/" << row.file << " | " << row.tool << " | "
                          << lt_opt(r.completed) << " | " << lt_opt(r.failed) << " | " << lt_opt(r.output_tokens)
                          << " | " << (r.ttft_ms.p99 ? std::to_string(*r.ttft_ms.p99) : "-") << "\n";
            }
        }
    }
    CHECK(files >= 90);
}

TEST_CASE("load tools: an inference-perf report folder of 7 stages reads as stages", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    LoadResult r = load_load_result(root / "inference-perf" / "kubecon-na-2025_vllm+eagle");
    CHECK(r.tool == "inference-perf");
    REQUIRE(r.stages.size() == 7);
    CHECK(r.stages[0].completed == 60);
    REQUIRE(r.completed.has_value());  // the summary's
    long long sum = 0;
    for (const auto& s : r.stages) sum += s.completed.value_or(0);
    CHECK(*r.completed == sum);
    CHECK_FALSE(r.output_tokens.has_value());  // it states none: never 0
    REQUIRE(r.stages[0].ttft_ms.p99.has_value());
    CHECK(*r.stages[0].ttft_ms.p99 == Approx(57.0335989).epsilon(1e-6));  // seconds in the file
}

TEST_CASE("load tools: AIPerf's records, the client and the server's token counts", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    LoadResult jsonl = load_load_result(root / "aiperf" / "examples-artifacts-run1" / "profile_export.jsonl");
    CHECK(jsonl.tool == "aiperf");
    CHECK(jsonl.requests.size() == 100);
    std::size_t errors = 0, chunked = 0;
    for (const auto& q : jsonl.requests) {
        errors += q.error.has_value();
        chunked += q.stream_chunks.has_value();
    }
    CHECK(errors == 11);
    CHECK(chunked > 0);
    LoadResult folder = load_load_result(root / "aiperf" / "examples-artifacts-run1");
    CHECK(folder.requests.size() == 100);
    CHECK(folder.cancelled == 11);
    LoadResult bare = load_load_result(root / "aiperf" / "audit-baseline-chat_bare" / "profile_export_aiperf.json");
    CHECK(bare.output_counting == TokenCounting::client_tokenizer);
    CHECK(bare.server_output_tokens == 35219);
    CHECK(bare.output_tokens == 35277);
    CHECK(bare.concurrency == 4.0);
}

TEST_CASE("load tools: GuideLLM's two layouts, rates and stream iterations", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    LoadResult v2 =
        load_load_result(root / "guidellm" / "llm-d-benchmark-fixture-report-v2" / "guidellm_report_v2.json");
    CHECK(v2.tool == "guidellm");
    CHECK(v2.tool_version == "0.8.0.dev18");
    REQUIRE(v2.stages.size() == 2);
    CHECK(v2.completed == 4);
    CHECK(v2.output_tokens == 32);
    CHECK(v2.stages[0].request_rate == 2.0);
    CHECK(v2.stages[1].request_rate == 4.0);
    CHECK(v2.stages[0].stream_chunks == 22);
    CHECK(v2.output_counting == TokenCounting::server_usage);
    LoadResult v03 =
        load_load_result(root / "guidellm" / "guidellm-unit-assets-benchmarks-stripped" / "benchmarks_stripped.json");
    CHECK(v03.requests.size() == 1);
    CHECK(v03.requests[0].output_tokens == 128);
    REQUIRE(v03.e2e_ms.mean.has_value());
    CHECK(*v03.e2e_ms.mean == Approx(644.4743664));  // request_latency is seconds in GuideLLM
}

TEST_CASE("load tools: GuideLLM's YAML form reads as its JSON form", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    const fs::path dir = root / "guidellm" / "guidellm-unit-assets-benchmarks-stripped";
    LoadResult json = load_load_result(dir / "benchmarks_stripped.json");
    LoadResult yaml = load_load_result(dir / "benchmarks_stripped.yaml");
    CHECK(yaml.tool == "guidellm");
    CHECK(yaml.completed == json.completed);
    CHECK(yaml.output_tokens == json.output_tokens);
    CHECK(yaml.ttft_ms.p99 == json.ttft_ms.p99);
    REQUIRE(yaml.requests.size() == 1);
    CHECK(yaml.requests[0].first_token_s == json.requests[0].first_token_s);
    LoadResult ip = load_load_result(root / "inference-perf" / "llm-d-benchmark-fixture-lifecycle" /
                                     "inference_perf_lifecycle.yaml");
    CHECK(ip.tool == "inference-perf");
    CHECK(ip.input_tokens == 601);
    CHECK(ip.duration_s == 2.48);
}

TEST_CASE("load tools: LLMPerf's ITL includes TTFT and is not read as TPOT", "[loadresult][shared]") {
    REQUIRE_LOADTOOLS(root);
    LoadResult s = load_load_result(root / "llmperf" / "ray-llmperf-leaderboard_summary" / "groq_70b.json");
    CHECK(s.tool == "llmperf");
    CHECK_FALSE(s.tpot_ms.mean.has_value());
    REQUIRE(s.norm_tpot_ms.mean.has_value());
    CHECK(*s.norm_tpot_ms.mean == Approx(5.384122478));
    CHECK(s.concurrency == 5.0);
    LoadResult each = load_load_result(root / "llmperf" / "ray-llmperf-leaderboard_individual" / "groq_70b.json");
    CHECK(each.requests.size() == 150);
    CHECK(each.requests[0].output_tokens == 150);
}
