// T18 on TensorRT-LLM's speculative-decoding gauge (issue 29): newer releases export
// trtllm_spec_decode_acceptance_length, read as the tokens a step emits.
#include "inferlint/checks/t18_chunks_not_tokens.hpp"

#include "support.hpp"

#include <fmt/format.h>

using namespace inferlint;

TEST_CASE("T18 reads TensorRT-LLM's acceptance length", "[T18][field]") {
    auto trt = [](double n, double t, double accept) {
        return snapshot_from_text(fmt::format("trtllm_request_success_total {}\ntrtllm_generation_tokens_total {}\n"
                                              "trtllm_spec_decode_acceptance_length {}\n",
                                              n, t, accept),
                                  "trt.prom");
    };
    BenchResult chunks;
    chunks.path = "bench.json";
    chunks.completed = 32;
    chunks.output_tokens = 12800;  // 32,000 tokens at 2.5 tokens per step, counted per chunk
    chunks.failed = 0;
    auto r = checks::check_chunks_not_tokens(&chunks, trt(0, 0, 0), trt(32, 32000, 2.5));
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["spec_accept_length"] == 2.5);
    CHECK(r.message.find("(the mean accept length the server reports)") != std::string::npos);
}
