// SGLang's priority-scheduling gauges (issue 29): the total series, not its sum with the
// per-priority ones.
#include "inferlint/parse/prom.hpp"

#include <catch2/catch.hpp>

using namespace inferlint;

TEST_CASE("prom: SGLang's running gauge with priorities is its total series", "[prom][field]") {
    const auto m = prom::parse_or_throw(
        "sglang:num_running_reqs{priority=\"\",tp_rank=\"0\"} 12.0\n"
        "sglang:num_running_reqs{priority=\"0\",tp_rank=\"0\"} 5.0\n"
        "sglang:num_running_reqs{priority=\"1\",tp_rank=\"0\"} 7.0\n"
        "sglang:num_running_reqs{priority=\"\",tp_rank=\"1\"} 10.0\n"
        "sglang:num_running_reqs{priority=\"1\",tp_rank=\"1\"} 10.0\n",
        "metrics");
    CHECK(m.total("sglang:num_running_reqs", {}) == Approx(22.0));
    // Without a total series every series counts, as before.
    const auto plain = prom::parse_or_throw(
        "sglang:num_queue_reqs{priority=\"0\"} 3.0\nsglang:num_queue_reqs{priority=\"1\"} 4.0\n", "metrics");
    CHECK(plain.total("sglang:num_queue_reqs", {}) == Approx(7.0));
}
