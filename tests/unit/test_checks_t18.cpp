// T18 on the recorded speculative-decoding run (vLLM 0.28, two-token drafts) with load
// tool results made here: one that counted a token per stream chunk, one that counted
// tokens; and on counters written out for the other engines.
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/checks/t18_chunks_not_tokens.hpp"
#include "inferlint/parse/loadlog.hpp"

#include "support.hpp"

#include <fmt/format.h>

#include <fstream>

using namespace inferlint;
using inferlint::checks::check_chunks_not_tokens;
using inferlint::checks::check_client_server_agree;
namespace fs = std::filesystem;

namespace {

BenchResult t18_client(long long completed, long long tokens) {
    BenchResult b;
    b.path = "bench.json";
    b.completed = completed;
    b.output_tokens = tokens;
    b.failed = 0;
    return b;
}

// The recorded run: 48 requests, 12,288 tokens, 4,808 drafts, 7,457 accepted.
struct SpecRun {
    Snapshot before, after;
};

SpecRun spec_run(const fs::path& root) {
    const fs::path dir = root / "vllm-0.28/metrics";
    return {load_snapshot(dir / "preempted_before.prom"), load_snapshot(dir / "preempted_after.prom")};
}

// A streaming client that counts one token per chunk sees, per request, the first token
// (from the prefill) and then one chunk per verified step: one per draft.
constexpr long long kChunks = 48 + 4808;

// The snapshot with every speculative-decoding series dropped.
Snapshot without_spec(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    text =
        testsupport::each_line(text, [](std::string& line) { return line.find("spec_decode") == std::string::npos; });
    return snapshot_from_text(text, path.filename().string());
}

Snapshot sglang_counters(double finished, double tokens, std::optional<double> accept_length) {
    std::string text = fmt::format(
        "sglang:num_requests_total {}\nsglang:generation_tokens_total {}\nsglang:token_usage 0\n", finished, tokens);
    if (accept_length) {
        text += fmt::format("sglang:spec_accept_length{{tp_rank=\"0\"}} {}\n", *accept_length);
        text += fmt::format("sglang:spec_accept_length{{tp_rank=\"1\"}} {}\n", *accept_length);
    }
    return snapshot_from_text(text, "sg.prom");
}

}  // namespace

TEST_CASE("T18: the recorded run's speculative-decoding counters give 2.55 tokens per step", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* form : {".prom", ".snapshot.json"}) {
        INFO(form);
        const fs::path dir = root / "vllm-0.28/metrics";
        auto before = load_snapshot(dir / (std::string("preempted_before") + form));
        auto after = load_snapshot(dir / (std::string("preempted_after") + form));
        Json ev = Json::object();
        Deltas delta(before, after);
        auto tps = checks::tokens_per_step(before, after, delta, ev);
        CHECK_FALSE(delta.restart());
        REQUIRE(tps);
        CHECK(*tps == Approx(1.0 + 7457.0 / 4808.0));
        CHECK(ev["spec_drafts"] == 4808.0);
        CHECK(ev["spec_accepted_tokens"] == 7457.0);
        auto r = check_chunks_not_tokens(nullptr, before, after);
        CHECK(r.evidence["server_output_tokens"] == 12288.0);
        CHECK(r.evidence["server_finished"] == 48.0);
    }
}

TEST_CASE("T18: a client that counted stream chunks on the speculative run fails, T15 names it", "[T18][T15][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = spec_run(root);
    auto chunks = t18_client(48, kChunks);
    auto r = check_chunks_not_tokens(&chunks, run.before, run.after);
    CHECK(r.tripwire == TripwireId::T18);
    CHECK(r.status == Status::fail);
    CHECK(r.message ==
          "the load tool counted 4,856 output tokens and the server generated 12,288, 2.53x as many: the 2.55 "
          "tokens per step of speculative decoding (7,457 accepted draft tokens over 4,808 drafts), so the load "
          "tool counted stream chunks, not tokens, and its output throughput is low by the same factor");
    CHECK(r.evidence["ratio"].get<double>() == Approx(12288.0 / 4856.0));
    CHECK(r.evidence["expected_chunks"].get<double>() == Approx(12288.0 / (1.0 + 7457.0 / 4808.0)));
    CHECK(r.evidence["tokens_per_step"].get<double>() == Approx(1.0 + 7457.0 / 4808.0));

    // T15 alone warns about the tokens; with T18's verdict it names the cause.
    auto plain = check_client_server_agree(chunks, run.before, run.after);
    CHECK(plain.status == Status::warn);
    CHECK(plain.message ==
          "requests agree, but the server generated 12,288 output tokens and the load tool counted 4,856");
    CHECK_FALSE(plain.evidence.contains("cause"));
    auto named = check_client_server_agree(chunks, run.before, run.after, 0, &r);
    CHECK(named.status == Status::warn);
    CHECK(named.message == plain.message + ": it counted stream chunks, not tokens (T18)");
    CHECK(named.evidence["cause"] == "T18");

    // The same count, tokens / tokens-per-step exactly, and 10% either side still fail.
    for (long long n : {4817LL, 4400LL, 5290LL}) {
        auto c = t18_client(48, n);
        INFO(n);
        CHECK(check_chunks_not_tokens(&c, run.before, run.after).status == Status::fail);
    }
}

TEST_CASE("T18: a client that counted the tokens passes on the speculative run", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = spec_run(root);
    auto tokens = t18_client(48, 12288);
    auto r = check_chunks_not_tokens(&tokens, run.before, run.after);
    CHECK(r.status == Status::pass);
    CHECK(r.message ==
          "the load tool's 12,288 output tokens agree with the server's 12,288, at 2.55 tokens per step "
          "of speculative decoding: it counted tokens, not stream chunks");
    // T15 passes too, and a passing T18 changes nothing of it.
    auto t15 = check_client_server_agree(tokens, run.before, run.after);
    auto t15_hinted = check_client_server_agree(tokens, run.before, run.after, 0, &r);
    CHECK(t15.status == Status::pass);
    CHECK(t15_hinted.message == t15.message);
    CHECK(t15_hinted.evidence == t15.evidence);
}

TEST_CASE("T18: short of the server by another factor is not chunk counting", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = spec_run(root);
    auto short_tenth = t18_client(48, 11000);
    auto r = check_chunks_not_tokens(&short_tenth, run.before, run.after);
    CHECK(r.status == Status::unknown);
    CHECK(r.message ==
          "the load tool counted 11,000 output tokens and the server generated 12,288, which is not the "
          "2.55 tokens per step a count of stream chunks would show; T15 has the disagreement");
    auto too_few = t18_client(48, 4000);  // beyond 10% below the chunks
    CHECK(check_chunks_not_tokens(&too_few, run.before, run.after).status == Status::unknown);
    auto more = t18_client(48, 13000);
    CHECK(check_chunks_not_tokens(&more, run.before, run.after).status == Status::unknown);
}

TEST_CASE("T18: without the result, the speculative counters or agreeing requests it cannot tell", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = spec_run(root);
    auto r = check_chunks_not_tokens(nullptr, run.before, run.after);
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "no result file from the load tool to compare with the server");
    CHECK(r.evidence["result_file"].is_null());
    CHECK(r.evidence["client_output_tokens"].is_null());

    // The same snapshots without their spec_decode series: the chunk count is no longer
    // explained, and never read as one token per step.
    const fs::path dir = root / "vllm-0.28/metrics";
    auto before = without_spec(dir / "preempted_before.prom");
    auto after = without_spec(dir / "preempted_after.prom");
    auto chunks = t18_client(48, kChunks);
    r = check_chunks_not_tokens(&chunks, before, after);
    CHECK(r.status == Status::unknown);
    CHECK(r.message ==
          "the load tool counted 4,856 output tokens and the server generated 12,288, and the server "
          "exports no speculative-decoding counters to tell chunks from tokens");
    CHECK(r.evidence["spec_drafts"].is_null());
    CHECK(r.evidence["tokens_per_step"].is_null());
    // Only the accepted-token counter gone: still no ratio to trust.
    auto after_no_accepted = snapshot_from_text(after.text + "vllm:spec_decode_num_drafts_total 15953\n", "after.prom");
    auto before_drafts = snapshot_from_text(before.text + "vllm:spec_decode_num_drafts_total 11145\n", "before.prom");
    r = check_chunks_not_tokens(&chunks, before_drafts, after_no_accepted);
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["spec_drafts"] == 4808.0);
    CHECK(r.evidence["spec_accepted_tokens"].is_null());

    // One more finished request than the client sent: the tokens are not compared (T15 fails).
    auto fewer = t18_client(47, kChunks);
    r = check_chunks_not_tokens(&fewer, run.before, run.after);
    CHECK(r.status == Status::unknown);
    CHECK(r.message == "the client's and the server's requests disagree (T15), so their tokens cannot be compared");
    // ... unless the client's output said it left one out.
    CHECK(check_chunks_not_tokens(&fewer, run.before, run.after, 1).status == Status::fail);

    BenchResult no_counts;
    no_counts.path = "other.json";
    no_counts.completed = 48;
    CHECK(check_chunks_not_tokens(&no_counts, run.before, run.after).status == Status::unknown);
}

TEST_CASE("T18: a restart between the snapshots is not decided", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    const fs::path dir = root / "vllm-0.28/metrics";
    auto before = load_snapshot(dir / "restart_before.prom");
    auto after = load_snapshot(dir / "restart_after.prom");
    auto c = t18_client(440, 37000);
    auto r = check_chunks_not_tokens(&c, before, after);
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["restarted"] == true);
    CHECK(r.message.starts_with("server restarted between snapshots"));
}

TEST_CASE("T18 passes on every recorded run whose client counts the reference checked", "[T18][shared]") {
    REQUIRE_REFERENCE(root);
    int compared = 0;
    for (const char* run :
         {"vllm-0.28/xray", "vllm-0.29/live", "vllm-0.30/live", "vllm-0.30/capped", "sglang-0.5/live",
          "sglang-0.5/qwen3-8b-own-client", "trtllm-1.3/qwen3-8b", "trtllm-1.3/qwen3-8b-own-client"}) {
        INFO(run);
        const fs::path dir = root / run;
        const fs::path bench = fs::exists(dir / "bench.json") ? dir / "bench.json" : dir / "bench.jsonl";
        auto result = load_bench_result(bench);
        long long untimed = fs::exists(dir / "load.log") ? untimed_requests_in(dir / "load.log") : 0;
        auto r = check_chunks_not_tokens(&result, load_snapshot(dir / "before.snapshot.json"),
                                         load_snapshot(dir / "after.snapshot.json"), untimed);
        CHECK(r.status == Status::pass);
        CHECK(r.message.starts_with("the load tool's "));
        ++compared;
    }
    CHECK(compared == 8);
    // SGLang exports its accept-length gauge at 0 without speculative decoding: one token per step.
    const fs::path sg = root / "sglang-0.5/live";
    auto result = load_bench_result(sg / "bench.json");
    auto r = check_chunks_not_tokens(&result, load_snapshot(sg / "before.snapshot.json"),
                                     load_snapshot(sg / "after.snapshot.json"));
    CHECK(r.evidence["spec_accept_length"] == 0.0);
    CHECK(r.evidence["tokens_per_step"] == 1.0);
    CHECK(r.message.ends_with(", one token per step (no speculative decoding)"));
}

TEST_CASE("T18 reads SGLang's accept length and knows TensorRT-LLM exports nothing", "[T18]") {
    auto before = sglang_counters(10, 1000, 2.5);
    // 32 requests of 1,000 tokens at 2.5 tokens per step: 12,800 chunks.
    auto chunks = t18_client(32, 12800);
    auto r = check_chunks_not_tokens(&chunks, before, sglang_counters(42, 33000, 2.5));
    CHECK(r.status == Status::fail);
    CHECK(r.message.find("(the mean accept length the server reports)") != std::string::npos);
    CHECK(r.evidence["spec_accept_length"] == 2.5);
    // Without speculation (0.0) the same shortfall is not chunk counting.
    r = check_chunks_not_tokens(&chunks, before, sglang_counters(42, 33000, 0.0));
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["tokens_per_step"] == 1.0);
    // Without the gauge, it cannot tell.
    r = check_chunks_not_tokens(&chunks, before, sglang_counters(42, 33000, std::nullopt));
    CHECK(r.status == Status::unknown);
    CHECK(r.evidence["spec_accept_length"].is_null());
    auto tokens = t18_client(32, 32000);
    CHECK(check_chunks_not_tokens(&tokens, before, sglang_counters(42, 33000, 2.5)).status == Status::pass);

    auto trt = [](double n, double t) {
        return snapshot_from_text(
            fmt::format("trtllm_request_success_total {}\ntrtllm_generation_tokens_total {}\n", n, t), "trt.prom");
    };
    r = check_chunks_not_tokens(&chunks, trt(0, 0), trt(32, 32000));
    CHECK(r.status == Status::unknown);
    CHECK(r.message.ends_with("the server exports no speculative-decoding counters to tell chunks from tokens"));
    CHECK(check_chunks_not_tokens(&tokens, trt(0, 0), trt(32, 32000)).status == Status::pass);
}

TEST_CASE("suite: T18 after the load's verdicts, T15 naming it, only where it has something to say",
          "[T18][suite][shared]") {
    REQUIRE_REFERENCE(root);
    auto run = spec_run(root);
    checks::RunEvidence ev;
    ev.before = run.before;
    ev.after = run.after;
    ev.bench = t18_client(48, kChunks);
    auto v = checks::check_run(ev);
    REQUIRE_FALSE(v.results.empty());
    CHECK(v.result(TripwireId::T18)->status == Status::fail);
    const CheckResult* t15 = v.result(TripwireId::T15);
    REQUIRE(t15);
    CHECK(t15->evidence["cause"] == "T18");
    std::vector<TripwireId> order;
    for (const auto& r : v.results) order.push_back(r.tripwire);
    CHECK(order == std::vector<TripwireId>{TripwireId::T15, TripwireId::T1, TripwireId::T10, TripwireId::T16,
                                           TripwireId::T18, TripwireId::T20});

    // No result, but the server speculated: T18 says it cannot tell; T15 does not run.
    ev.bench.reset();
    auto counts = checks::check_client_counts(ev);
    CHECK_FALSE(counts.t15);
    REQUIRE(counts.t18);
    CHECK(counts.t18->status == Status::unknown);
    // No result and no speculation: neither.
    const fs::path dir = root / "vllm-0.28/metrics";
    ev.before = without_spec(dir / "preempted_before.prom");
    ev.after = without_spec(dir / "preempted_after.prom");
    counts = checks::check_client_counts(ev);
    CHECK_FALSE(counts.t15);
    CHECK_FALSE(counts.t18);
}
