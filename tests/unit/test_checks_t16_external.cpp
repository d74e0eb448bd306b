// T16 with vLLM's external prefix cache (issue 29): hits served through a KV connector or
// CPU offloading are counted in vllm:external_prefix_cache_{queries,hits}, and count.
#include "inferlint/checks/t16_prefix_cache.hpp"

#include "support.hpp"

#include <fmt/format.h>

using namespace inferlint;

namespace {

Snapshot t16_vllm(double queries, double hits, double ext_queries, double ext_hits) {
    return snapshot_from_text(fmt::format("vllm:prefix_cache_queries_total{{model_name=\"m\"}} {}\n"
                                          "vllm:prefix_cache_hits_total{{model_name=\"m\"}} {}\n"
                                          "vllm:external_prefix_cache_queries_total{{model_name=\"m\"}} {}\n"
                                          "vllm:external_prefix_cache_hits_total{{model_name=\"m\"}} {}\n",
                                          queries, hits, ext_queries, ext_hits),
                              "metrics.prom");
}

}  // namespace

TEST_CASE("T16: vLLM's external prefix-cache hits count with its own", "[T16][field]") {
    const auto before = t16_vllm(0, 0, 0, 0);
    // 50 local hits alone would pass (0.5%); 4,000 more from the connector make it 40.5%.
    const auto r = checks::check_prefix_cache(before, t16_vllm(10000, 50, 9950, 4000));
    CHECK(r.status == Status::warn);
    CHECK(r.message.starts_with("4,050 of 10,000 prompt tokens came from the prefix cache (40.5%)"));
    CHECK(r.evidence["external_hits"] == 4000.0);
    CHECK(r.evidence["external_queries"] == 9950.0);
    CHECK(r.evidence["local_hits"] == 50.0);
    // Without the external counters: as before, no such evidence.
    const auto plain = snapshot_from_text(
        "vllm:prefix_cache_queries_total{model_name=\"m\"} 0\nvllm:prefix_cache_hits_total{model_name=\"m\"} 0\n",
        "before.prom");
    const auto plain_after = snapshot_from_text(
        "vllm:prefix_cache_queries_total{model_name=\"m\"} 10000\nvllm:prefix_cache_hits_total{model_name=\"m\"} 50\n",
        "after.prom");
    const auto p = checks::check_prefix_cache(plain, plain_after);
    CHECK(p.status == Status::pass);
    CHECK_FALSE(p.evidence.contains("external_hits"));
}
