// Prometheus's HTTP API answers (parse/prom_api) and the moments --at takes
// (util::parse_moment), on answers written here as Prometheus 2.42 writes them.
#include "support.hpp"

#include "inferlint/parse/prom.hpp"
#include "inferlint/parse/prom_api.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/error.hpp"

#include <cmath>

using namespace inferlint;
using Catch::Matchers::Contains;

namespace {

const char* kPromApiVector = R"({"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"__name__":"vllm:num_preemptions_total","instance":"127.0.0.1:8001","job":"vllm","model_name":"Q\"x\\y"},
  "value":[1764624000.25,"7"]},
 {"metric":{"__name__":"vllm:gpu_cache_usage_perc","instance":"127.0.0.1:8001","job":"vllm"},"value":[1764624000.25,"NaN"]},
 {"metric":{"__name__":"vllm:e2e_request_latency_seconds_bucket","instance":"127.0.0.1:8001","job":"vllm","le":"+Inf"},
  "value":[1764624000.25,"1e3"]}]}})";

std::string prom_api_error_of(const std::string& body) {
    try {
        (void)parse::parse_prom_answer(body, "http://127.0.0.1:9090 (query up)");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("prom_api: an instant vector gives its series, labels and values", "[prom_api]") {
    auto a = parse::parse_prom_answer(kPromApiVector, "src");
    REQUIRE(a.result_type == "vector");
    REQUIRE(a.series.size() == 3);
    CHECK(a.series[0].name() == "vllm:num_preemptions_total");
    CHECK(a.series[0].labels.at("model_name") == "Q\"x\\y");
    CHECK(a.series[0].samples.at(0).t == 1764624000.25);
    CHECK(a.series[0].samples.at(0).value == 7);
    CHECK(std::isnan(a.series[1].samples.at(0).value));
    CHECK(a.series[2].samples.at(0).value == 1000);
}

TEST_CASE("prom_api: the exposition made from the series reads back, job and instance dropped", "[prom_api]") {
    auto a = parse::parse_prom_answer(kPromApiVector, "src");
    const std::string text =
        parse::exposition_text(a.series, {"job", "instance"}, {{"vllm:num_preemptions_total", "counter"}});
    CHECK_THAT(text, Contains("# TYPE vllm:num_preemptions_total counter\n"));
    CHECK_THAT(text, Contains("vllm:num_preemptions_total{model_name=\"Q\\\"x\\\\y\"} 7\n"));
    CHECK_THAT(text, Contains("vllm:gpu_cache_usage_perc NaN\n"));
    CHECK(text.find("instance") == std::string::npos);
    auto m = prom::parse_or_throw(text, "made");
    CHECK(m.size() == 3);
}

TEST_CASE("prom_api: a range answer keeps every sample in time order, and its warnings", "[prom_api]") {
    auto a = parse::parse_prom_answer(
        R"({"status":"success","warnings":["partial data"],"data":{"resultType":"matrix","result":[)"
        R"({"metric":{"__name__":"vllm:num_requests_running"},"values":[[10,"1"],[10.25,"2"],[10.5,"+Inf"]]}]}})",
        "src");
    REQUIRE(a.series.size() == 1);
    CHECK(a.series[0].samples.size() == 3);
    CHECK(std::isinf(a.series[0].samples[2].value));
    CHECK(a.warnings == std::vector<std::string>{"partial data"});
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                                 R"({"metric":{},"values":[[11,"1"],[10,"2"]]}]}})"),
               Contains("not in time order"));
}

TEST_CASE("prom_api: error answers and what is not an answer are one line naming the source", "[prom_api]") {
    auto bad =
        prom_api_error_of(R"({"status":"error","errorType":"bad_data","error":"1:2: parse error: unexpected '!'"})");
    CHECK_THAT(bad,
               Contains("http://127.0.0.1:9090 (query up): Prometheus refused the query (bad_data): 1:2: parse error"));
    CHECK_THAT(prom_api_error_of("<html>login</html>"), Contains("not an answer of Prometheus's HTTP API"));
    CHECK_THAT(prom_api_error_of(""), Contains("not an answer"));
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"scalar","result":[1,"1"]}})"),
               Contains("gave a scalar, not series"));
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"vector","result":[)"
                                 R"({"metric":{"__name__":"x"},"value":[1,"twelve"]}]}})"),
               Contains("not a number: 'twelve'"));
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"vector","result":[)"
                                 R"({"metric":{"__name__":"x"},"value":[1,5]}]}})"),
               Contains("not a string"));
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"vector","result":[)"
                                 R"({"metric":{"a b":"x"},"value":[1,"5"]}]}})"),
               Contains("label name"));
    CHECK_THAT(prom_api_error_of(R"({"status":"success","data":{"resultType":"vector"}})"), Contains("data.result"));
    CHECK(prom_api_error_of(R"({"status":"success","data":{"resultType":"vector","result":[]}})").empty());
    for (const auto& s : {prom_api_error_of("{\"status\":\"error\",\"error\":\"" + std::string(5000, 'x') + "\"}")})
        CHECK(s.size() < 500);  // one line, not the whole answer
}

TEST_CASE("parse_moment: Unix seconds and RFC 3339, anything else one line", "[prom_api]") {
    CHECK(util::parse_moment("1764624000", "--at") == 1764624000.0);
    CHECK(util::parse_moment("1764624000.25", "--at") == 1764624000.25);
    CHECK(util::parse_moment("2025-12-01T21:20:00Z", "--at") == 1764624000.0);
    CHECK(util::parse_moment("2025-12-01T22:20:00+01:00", "--at") == 1764624000.0);
    CHECK(util::parse_moment("2025-12-01 21:20:00.5Z", "--at") == 1764624000.5);
    CHECK(util::parse_moment("1970-01-01T00:00:00Z", "--at") == 0.0);
    for (const char* bad : {"", "yesterday", "2026-12-01", "2026-12-01T21:20:00", "2026-13-01T00:00:00Z", "-5", "nan",
                            "1e999", "2026-12-01T21:20:00Zjunk"}) {
        INFO(bad);
        try {
            util::parse_moment(bad, "--at");
            FAIL("accepted");
        } catch (const InputError& e) {
            CHECK_THAT(std::string(e.what()), Contains("--at: '"));
        }
    }
}

TEST_CASE("prom_api: /api/v1/series label sets, /api/v1/targets and durations", "[prom_api][fleet]") {
    std::vector<std::string> warnings;
    auto sets = parse::parse_prom_label_sets(
        R"({"status":"success","data":[{"__name__":"vllm:num_requests_running","instance":"127.0.0.1:8001","job":"vllm"},
            {"__name__":"vllm:num_requests_running","pod":"vllm-1","job":"vllm"}],"warnings":["partial response"]})",
        "P (series)", warnings);
    REQUIRE(sets.size() == 2);
    CHECK(sets[1].at("pod") == "vllm-1");
    CHECK(warnings == std::vector<std::string>{"partial response"});
    CHECK_THROWS_WITH(parse::parse_prom_label_sets(R"({"status":"success","data":{"x":1}})", "P (series)", warnings),
                      Contains("P (series): the answer's data is not a list"));
    CHECK_THROWS_WITH(parse::parse_prom_label_sets(R"({"status":"success","data":[{"0bad":"x"}]})", "P", warnings),
                      Contains("label name"));
    CHECK_THROWS_WITH(parse::parse_prom_label_sets(R"({"status":"error","errorType":"bad_data","error":"parse error"})",
                                                   "P", warnings),
                      Contains("Prometheus refused the query (bad_data): parse error"));

    auto targets = parse::parse_prom_targets(
        R"({"status":"success","data":{"activeTargets":[
            {"labels":{"instance":"127.0.0.1:8001","job":"vllm"},"scrapeInterval":"250ms","health":"up"},
            {"labels":{"instance":"127.0.0.1:8002","job":"vllm"},"scrapeInterval":"1m30s","health":"down"},
            {"labels":{"instance":"127.0.0.1:8003","job":"vllm"},"health":"unknown"}],"droppedTargets":[]}})",
        "P (targets)");
    REQUIRE(targets.size() == 3);
    CHECK(*targets[0].scrape_interval_s == Approx(0.25));
    CHECK(*targets[1].scrape_interval_s == Approx(90));
    CHECK(targets[1].health == "down");
    CHECK_FALSE(targets[2].scrape_interval_s);
    CHECK_THROWS_WITH(parse::parse_prom_targets(R"({"status":"success","data":{}})", "P (targets)"),
                      Contains("no data.activeTargets"));

    CHECK(*parse::parse_prom_duration("15s") == 15);
    CHECK(*parse::parse_prom_duration("1h2m") == 3720);
    CHECK(*parse::parse_prom_duration("5ms") == Approx(0.005));
    for (const char* bad : {"", "15", "s", "1x", "-1s", "0s", "1.5s"}) CHECK_FALSE(parse::parse_prom_duration(bad));
}
