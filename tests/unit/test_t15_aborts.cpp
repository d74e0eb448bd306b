// T15 with aborted requests set aside, and T20's second server-side witness, the HTTP
// layer's error answers: synthetic snapshots (one change flips each verdict), the recorded
// snapshots in ../shared/reference ([shared]), and the simulator end to end under xray with
// T20's trap (--sim-abort-every 4) on and off. Only processes these tests start are signalled.
#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"

#include "xray_sandbox.hpp"

using namespace xraytest;
using Catch::Matchers::Contains;
using inferlint::checks::check_client_server_agree;
using inferlint::checks::check_failed_requests;

namespace t15aborts {

// vLLM's counters: finished requests by reason, generated tokens, and (when `http` is not
// empty) the API server's http_requests_total lines.
Snapshot vllm(double stop, double abort, double tokens, const std::string& http = "") {
    std::string text = "# TYPE vllm:request_success_total counter\n";
    text += fmt::format("vllm:request_success_total{{finished_reason=\"stop\"}} {}\n", stop);
    text += fmt::format("vllm:request_success_total{{finished_reason=\"abort\"}} {}\n", abort);
    text += fmt::format("vllm:generation_tokens_total {}\n", tokens);
    text += http;
    return snapshot_from_text(text, "synthetic.prom");
}

std::string http_line(const std::string& handler, const std::string& status, double n) {
    return fmt::format("http_requests_total{{handler=\"{}\",method=\"POST\",status=\"{}\"}} {}\n", handler, status, n);
}

BenchResult client(long long completed, long long failed, long long tokens) {
    BenchResult b;
    b.path = "bench.json";
    b.completed = completed;
    b.failed = failed;
    b.output_tokens = tokens;
    b.num_prompts = completed + failed;
    return b;
}

Json pick(const Json& list, const std::string& id) {
    for (const auto& r : list)
        if (r["tripwire"] == id) return r;
    return nullptr;
}

}  // namespace t15aborts

using namespace t15aborts;

TEST_CASE("T15: the requests vLLM finished as aborted are set aside, as the load tool counts them failed", "[T15]") {
    const Snapshot before = vllm(10, 0, 1000);
    const Snapshot after = vllm(16, 2, 1600);
    CheckResult r = check_client_server_agree(client(6, 2, 600), before, after);
    INFO(r.message);
    CHECK(r.status == Status::pass);
    CHECK_THAT(r.message, Contains("client and server agree: 6 requests"));
    CHECK_THAT(r.message, Contains("the server's 2 aborted or errored requests set aside"));
    CHECK_THAT(r.message, Contains("finished_reason=\"abort\""));
    CHECK(r.evidence["server_finished"] == 8.0);
    CHECK(r.evidence["server_set_aside"] == 2.0);
    CHECK(r.evidence["server_finished_normally"] == 6.0);
    CHECK(r.evidence["extra_requests"] == 0);

    // One change: the same two counted as finished normally. Nothing to set aside, and the
    // server finished two more than the client completed.
    CheckResult f = check_client_server_agree(client(6, 2, 600), before, vllm(18, 0, 1600));
    INFO(f.message);
    CHECK(f.status == Status::fail);
    CHECK_THAT(f.message, Contains("the server finished 2 more requests than the load tool sent"));
    CHECK_FALSE(f.evidence.contains("server_set_aside"));

    // Tokens an aborted request made before it stopped are within what it may explain.
    CHECK(check_client_server_agree(client(6, 2, 600), before, vllm(16, 2, 1750)).status == Status::pass);
    // Beyond that, the tokens' difference still warns, and says what was set aside.
    CheckResult w = check_client_server_agree(client(6, 2, 600), before, vllm(16, 2, 2000));
    CHECK(w.status == Status::warn);
    CHECK_THAT(w.message, Contains("set aside"));
}

TEST_CASE("T15: with no aborts the evidence keeps the reference's keys; SGLang counts its aborts apart", "[T15]") {
    CheckResult r = check_client_server_agree(client(6, 0, 600), vllm(10, 0, 1000), vllm(16, 0, 1600));
    CHECK(r.status == Status::pass);
    CHECK(r.message == "client and server agree: 6 requests, 600 output tokens");
    for (const char* k : {"server_set_aside", "server_set_aside_counters", "server_finished_normally"})
        CHECK_FALSE(r.evidence.contains(k));

    // SGLang: num_requests_total is T15's counter, num_aborted_requests_total another.
    auto sglang = [](double done, double aborted, double tokens) {
        return snapshot_from_text(fmt::format("sglang:num_requests_total {}\nsglang:num_aborted_requests_total {}\n"
                                              "sglang:generation_tokens_total {}\nsglang:num_running_reqs 0\n",
                                              done, aborted, tokens),
                                  "sglang.prom");
    };
    CheckResult s = check_client_server_agree(client(6, 2, 600), sglang(10, 0, 1000), sglang(16, 2, 1600));
    INFO(s.message);
    CHECK(s.status == Status::pass);
    CHECK_FALSE(s.evidence.contains("server_set_aside"));
}

TEST_CASE("T20: the HTTP layer's 4xx and 5xx answers on the generation handlers are server-side failures", "[T20]") {
    const std::string ok10 = http_line("/v1/completions", "2xx", 10);
    const Snapshot before = vllm(10, 0, 1000, ok10);
    // 6 answered, 2 with a 500; a 4xx on /tokenize is not a generation request.
    const Snapshot after = vllm(16, 0, 1600,
                                http_line("/v1/completions", "2xx", 16) + http_line("/v1/completions", "5xx", 2) +
                                    http_line("/tokenize", "4xx", 1));
    CheckResult f = check_failed_requests(nullptr, &before, &after);
    INFO(f.message);
    CHECK(f.status == Status::fail);
    CHECK_THAT(f.message, Contains("it answered 2 of 8 generation requests with an HTTP error (2 /v1/completions 5xx"));
    CHECK(f.evidence["server_http_errors"] == 2.0);
    CHECK(f.evidence["server_http_answers"] == 8.0);
    CHECK(f.evidence["server_http_other_errors"] == 1.0);
    CHECK(f.evidence["failed_share"] == 0.25);
    // With the client's failed count beside it, the server's answers are named in the message.
    const BenchResult b = client(6, 2, 600);
    CheckResult fc = check_failed_requests(&b, &before, &after);
    CHECK(fc.status == Status::fail);
    CHECK_THAT(fc.message, Contains("2 of 8 requests did not complete"));
    CHECK_THAT(fc.message, Contains("with an HTTP error"));

    // One change: the two answered 200. None failed, by both of the server's counters.
    const Snapshot clean =
        vllm(16, 0, 1600, http_line("/v1/completions", "2xx", 18) + http_line("/tokenize", "4xx", 1));
    CheckResult p = check_failed_requests(nullptr, &before, &clean);
    INFO(p.message);
    CHECK(p.status == Status::pass);
    CHECK_THAT(p.message, Contains("answered no generation request with an HTTP error"));
    CHECK(p.evidence["server_http_errors"] == 0.0);

    // The counter in one snapshot only: not read, never 0.
    const Snapshot bare = vllm(16, 0, 1600);
    CheckResult half = check_failed_requests(nullptr, &before, &bare);
    CHECK(half.evidence["server_http_errors"].is_null());
    // A counter that went down: the server restarted; Can't tell.
    const Snapshot reset = vllm(16, 0, 1600, http_line("/v1/completions", "2xx", 3));
    CheckResult u = check_failed_requests(nullptr, &before, &reset);
    INFO(u.message);
    CHECK(u.status == Status::unknown);
    CHECK_THAT(u.message, Contains("went down between the snapshots"));

    // SGLang's counter gives the exact code.
    auto sglang = [](const std::string& lines) {
        return snapshot_from_text("sglang:num_requests_total 5\nsglang:num_running_reqs 0\n" + lines, "sglang.prom");
    };
    const std::string ok =
        "sglang:http_responses_total{endpoint=\"/generate\",method=\"POST\",status_code=\"200\"} 5\n";
    const Snapshot sg_before = sglang(ok);
    const Snapshot sg_after =
        sglang(ok + "sglang:http_responses_total{endpoint=\"/generate\",method=\"POST\",status_code=\"503\"} 3\n");
    CheckResult sg = check_failed_requests(nullptr, &sg_before, &sg_after);
    INFO(sg.message);
    CHECK(sg.status == Status::fail);
    CHECK_THAT(sg.message, Contains("3 /generate 503"));
}

TEST_CASE("T20: the HTTP answers in the recorded snapshots of vLLM, SGLang and TensorRT-LLM", "[T20][shared]") {
    REQUIRE_REFERENCE(root);
    auto t20 = [&](const std::string& run) {
        const Snapshot before = load_snapshot(root / run / "before.snapshot.json");
        const Snapshot after = load_snapshot(root / run / "after.snapshot.json");
        return check_failed_requests(nullptr, &before, &after);
    };
    // vLLM 0.28 under xray: 32 answered on /v1/completions, all 2xx; the one 4xx was /tokenize.
    CheckResult v = t20(std::string("vllm-0.28/xray"));
    INFO(v.message);
    CHECK(v.status == Status::pass);
    CHECK(v.evidence["server_http_errors"] == 0.0);
    CHECK(v.evidence["server_http_answers"] == 32.0);
    CHECK(v.evidence["server_http_other_errors"] == 1.0);
    // SGLang 0.5: sglang:http_responses_total, 29 answers (200) in the window, no error.
    CheckResult s = t20(std::string("sglang-0.5/qwen3-8b"));
    INFO(s.message);
    CHECK(s.evidence["server_http_errors"] == 0.0);
    CHECK(s.evidence["server_http_answers"] == 29.0);
    // TensorRT-LLM 1.3 exports no HTTP counter: not read.
    CheckResult t = t20(std::string("trtllm-1.3/qwen3-8b"));
    INFO(t.message);
    CHECK(t.evidence["server_http_errors"].is_null());
}

TEST_CASE("xray traps: with aborted requests T15 sets them aside and T20 counts the server's 500s",
          "[sim][xray][T15][T20]") {
    for (const bool trap : {false, true}) {
        Sandbox sb(trap ? "t15-aborts-on" : "t15-aborts-off");
        const int port = free_port();
        xray::Plan plan;
        plan.out = sb.out();
        plan.serve = serve_cmd(sb, port, std::string("--sim-time-scale 20") + (trap ? " --sim-abort-every 4" : ""));
        plan.load = bench_cmd(sb, port, 8, 4, 64, 96);
        plan.interval_s = 0.05;
        Ran ran = run_xray(plan);
        INFO(ran.text());
        const Json t15 = pick(ran.results["results"], "T15");
        const Json t20 = pick(ran.results["results"], "T20");
        REQUIRE(t15.is_object());
        REQUIRE(t20.is_object());
        INFO(t15.dump());
        CHECK(t15["status"] == "pass");
        if (trap) {
            CHECK(t15["evidence"]["server_set_aside"].get<double>() >= 1.0);
            CHECK_THAT(t15["message"].get<std::string>(), Contains("set aside"));
            CHECK(t20["status"] == "fail");
            CHECK(t20["evidence"]["server_http_errors"].get<double>() >= 1.0);
            CHECK(t20["evidence"]["server_http_by_answer"].contains("/v1/completions 5xx"));
            CHECK_THAT(t20["message"].get<std::string>(), Contains("with an HTTP error"));
        } else {
            CHECK_FALSE(t15["evidence"].contains("server_set_aside"));
            CHECK(t20["status"] == "pass");
            CHECK(t20["evidence"]["server_http_errors"] == 0.0);
        }
        // `report` on the folder judges it the same way.
        auto rep = testsupport::run_cli({"report", sb.out().string(), "--json"},
                                        "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ");
        INFO(rep.err);
        const Json judged = Json::parse(rep.out);
        CHECK(pick(judged, "T15") == t15);
        CHECK(pick(judged, "T20") == t20);
        require_all_gone(sb.out() / "boot.log");
    }
}
