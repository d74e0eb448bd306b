#include "inferlint/parse/prom.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <cmath>

using namespace inferlint;

TEST_CASE("prom: samples keep every label, sorted, with escapes undone", "[prom]") {
    auto m = prom::parse_or_throw(
        "# HELP x help\n# TYPE x counter\n"
        "vllm:request_success_total{model_name=\"m\",finished_reason=\"stop\",engine=\"0\"} 7\n"
        "vllm:request_success_total{engine=\"1\",finished_reason=\"length\",model_name=\"m\"} 3.5\n"
        "weird{path=\"a\\\\b\",quote=\"say \\\"hi\\\"\",nl=\"x\\ny\"} 1 1700000000000\n",
        "t.prom");
    REQUIRE(m.size() == 3);
    CHECK(m.samples()[0].labels.front().first == "engine");
    CHECK(*m.total("vllm:request_success_total") == 10.5);
    CHECK(*m.total("vllm:request_success_total", {{"finished_reason", "stop"}}) == 7);
    CHECK_FALSE(m.total("vllm:request_success_total", {{"finished_reason", "abort"}}));
    const auto* w = m.select("weird").front();
    CHECK(*w->label("path") == "a\\b");
    CHECK(*w->label("quote") == "say \"hi\"");
    CHECK(*w->label("nl") == "x\ny");
}

TEST_CASE("prom: an absent series is absent, never 0", "[prom]") {
    auto m = prom::parse_or_throw("vllm:num_requests_running 0\n", "t");
    CHECK(m.total("vllm:num_preemptions_total") == std::nullopt);
    CHECK(m.single("vllm:num_preemptions_total") == std::nullopt);
    CHECK(*m.total("vllm:num_requests_running") == 0.0);
}

TEST_CASE("prom: NaN, +Inf, -Inf and exponents", "[prom]") {
    auto m = prom::parse_or_throw("a NaN\nb +Inf\nc -Inf\nd 1.5e-3\ne +inf\n", "t");
    CHECK(std::isnan(*m.single("a")));
    CHECK(std::isinf(*m.single("b")));
    CHECK(*m.single("c") < 0);
    CHECK(*m.single("d") == Approx(0.0015));
    CHECK(std::isinf(*m.single("e")));
}

TEST_CASE("prom: single() refuses an ambiguous series, info() returns labels", "[prom]") {
    auto m = prom::parse_or_throw(
        "g{engine=\"0\"} 0.5\ng{engine=\"1\"} 0.25\n"
        "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"43\"} 1\n",
        "t");
    CHECK_THROWS_WITH(m.single("g"), Catch::Contains("matches 2 series"));
    CHECK(*m.single("g", {{"engine", "1"}}) == 0.25);
    auto info = m.info("vllm:cache_config_info");
    REQUIRE(info);
    CHECK(info->at("num_gpu_blocks") == "43");
}

TEST_CASE("prom: malformed lines are located errors", "[prom]") {
    prom::Metrics m;
    prom::ParseError e;
    CHECK_FALSE(prom::parse("ok 1\nbroken{a=\"x} 1\n", m, e));
    CHECK(e.lineno == 2);
    CHECK_FALSE(prom::parse("a 1\nb\n", m, e));
    CHECK(e.lineno == 2);
    CHECK_FALSE(prom::parse("a one\n", m, e));
    CHECK_FALSE(prom::parse("a{b=\"1\" c=\"2\"} 1\n", m, e));
    CHECK_FALSE(prom::parse("9a 1\n", m, e));
    CHECK_THROWS_AS(prom::parse_or_throw("x{y=} 1\n", "f.prom"), InputError);
    CHECK_THROWS_WITH(prom::parse_or_throw("x{y=} 1\n", "f.prom"), Catch::StartsWith("f.prom: line 1:"));
}

TEST_CASE("prom: a parse that keeps only some names checks every line as the whole parse does", "[prom]") {
    const std::string text =
        "# HELP a help\n"
        "a{engine=\"0\",path=\"x\\\\y\"} 2.5\n"
        "b{engine=\"0\"} 1e3\n"
        "a{engine=\"1\"} -Inf\n"
        "c 7 1700000000000\n";
    const prom::NameFilter only = {"a", "absent"};
    auto m = prom::parse_or_throw(text, "t", &only);
    REQUIRE(m.size() == 2);
    CHECK(m.names() == std::vector<std::string>{"a"});
    auto whole = prom::parse_or_throw(text, "t");
    CHECK(m.samples()[0].labels == whole.samples()[0].labels);
    CHECK(*m.single("a", {{"engine", "0"}}) == 2.5);
    CHECK(std::isinf(*m.single("a", {{"engine", "1"}})));
    CHECK_FALSE(m.has("b"));
    // A malformed line of a name not kept is refused, with the same line and words.
    for (const std::string bad : {"b{engine=\"0} 1\n", "b{x=\"1\" y=\"2\"} 1\n", "b one\n", "b 1 2x\n", "9b 1\n"}) {
        prom::Metrics kept, all;
        prom::ParseError e_kept, e_all;
        CHECK_FALSE(prom::parse(text + bad, kept, e_kept, &only));
        CHECK_FALSE(prom::parse(text + bad, all, e_all));
        CHECK(e_kept.lineno == 6);
        CHECK(e_kept.lineno == e_all.lineno);
        CHECK(e_kept.what == e_all.what);
    }
}

TEST_CASE("prom: the recorded vLLM 0.28 exposition parses whole", "[prom][shared]") {
    REQUIRE_REFERENCE(root);
    auto text = inferlint::util::read_file(root / "vllm-0.28/live/raw_metrics.prom");
    auto m = prom::parse_or_throw(text, "raw_metrics.prom");
    CHECK(m.size() > 100);
    CHECK(m.has("vllm:num_requests_running"));
    CHECK(m.info("vllm:cache_config_info"));
}
