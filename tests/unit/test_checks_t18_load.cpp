// T18 and T15 with what the load tool's own file says (LoadResult): how it counted its
// tokens, and its stream chunks beside them. Counters are written out here (SGLang's names),
// so these run without ../shared.
#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/checks/t18_chunks_not_tokens.hpp"

#include "support.hpp"

#include <fmt/format.h>

using namespace inferlint;
using inferlint::checks::check_chunks_not_tokens;
using inferlint::checks::check_client_server_agree;

namespace {

Snapshot t18l_counters(double finished, double tokens, std::optional<double> accept_length) {
    std::string text = fmt::format(
        "sglang:num_requests_total {}\nsglang:generation_tokens_total {}\nsglang:token_usage 0\n", finished, tokens);
    if (accept_length) text += fmt::format("sglang:spec_accept_length{{tp_rank=\"0\"}} {}\n", *accept_length);
    return snapshot_from_text(text, "sg.prom");
}

// 48 requests of 256 tokens at 2.5 tokens per step: 48 first tokens + 4,896 steps.
constexpr long long kT18lTokens = 12288;
constexpr long long kT18lChunks = 48 + (kT18lTokens - 48) * 2 / 5;

BenchResult t18l_client(long long completed, long long tokens, TokenCounting how,
                        std::optional<long long> chunks = {}) {
    LoadResult load;
    load.path = "load.json";
    load.tool = "my-harness";
    load.completed = completed;
    load.failed = 0;
    load.output_tokens = tokens;
    load.output_counting = how;
    load.stream_chunks = chunks;
    return bench_from_load(load);
}

}  // namespace

TEST_CASE("T18: a harness that says it counted chunks fails under speculative decoding", "[T18][loadresult]") {
    auto before = t18l_counters(0, 0, 2.5), after = t18l_counters(48, kT18lTokens, 2.5);
    auto bench = t18l_client(48, kT18lChunks, TokenCounting::stream_chunks, kT18lChunks);
    auto r = check_chunks_not_tokens(&bench, before, after);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Catch::Contains("counted one token per stream chunk"));
    CHECK(r.evidence["token_counting"] == "stream_chunks");
}

TEST_CASE("T18: a file that says it counted by tokenizer is not a chunk counter", "[T18][loadresult]") {
    auto before = t18l_counters(0, 0, 2.5), after = t18l_counters(48, kT18lTokens, 2.5);
    auto bench = t18l_client(48, kT18lChunks, TokenCounting::client_tokenizer);
    auto r = check_chunks_not_tokens(&bench, before, after);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Catch::Contains("not a chunk counter"));
    auto t15 = check_client_server_agree(bench, before, after, 0, &r);
    CHECK(t15.status == Status::warn);
    CHECK_THAT(t15.message, !Catch::Contains("stream chunks"));
}

TEST_CASE("T18: tokens over the file's own stream chunks, agreeing with the server, pass", "[T18][loadresult]") {
    auto before = t18l_counters(0, 0, 2.5), after = t18l_counters(48, kT18lTokens, 2.5);
    auto bench = t18l_client(48, kT18lTokens, TokenCounting::unknown, kT18lChunks);
    auto r = check_chunks_not_tokens(&bench, before, after);
    CHECK(r.status == Status::pass);
    CHECK_THAT(r.message, Catch::Contains("stream chunks"));
    CHECK(r.evidence["client_stream_chunks"] == kT18lChunks);
}

TEST_CASE("T18: without the server's speculation counters, the file's own account decides", "[T18][loadresult]") {
    auto before = t18l_counters(0, 0, std::nullopt), after = t18l_counters(48, kT18lTokens, std::nullopt);
    auto chunks = t18l_client(48, kT18lChunks, TokenCounting::stream_chunks, kT18lChunks);
    CHECK(check_chunks_not_tokens(&chunks, before, after).status == Status::fail);
    // vLLM's client read the acceptance length from the server: it stands in for the counters.
    BenchResult vllm = t18l_client(48, kT18lChunks, TokenCounting::unknown);
    vllm.load->spec_accept_length = 2.5;
    auto r = check_chunks_not_tokens(&vllm, before, after);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["tokens_per_step_from"] == "result file (spec_decode_acceptance_length)");
    BenchResult plain = t18l_client(48, kT18lChunks, TokenCounting::unknown);
    CHECK(check_chunks_not_tokens(&plain, before, after).status == Status::unknown);
}

TEST_CASE("T18: zero completed requests are Can't tell, never a pass", "[T18][loadresult][badinput]") {
    auto before = t18l_counters(0, 0, 2.5), after = t18l_counters(0, 0, 2.5);
    auto bench = t18l_client(0, 0, TokenCounting::server_usage);
    auto r = check_chunks_not_tokens(&bench, before, after);
    CHECK(r.status == Status::unknown);
    CHECK_THAT(r.message, Catch::Contains("completed no requests"));
}
