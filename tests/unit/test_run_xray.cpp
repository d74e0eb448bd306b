// xray end to end on the simulator: whole runs with the simulator's ground truth as the
// answer key, and servers and loads that fail. Every server runs on 127.0.0.1 at a free
// port; only processes these tests start are ever signalled.
#include "xray_sandbox.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/report/svgchart.hpp"

#include <map>

using namespace xraytest;
using Catch::Matchers::Contains;

TEST_CASE("xray on the simulator: a run set up to preempt fails T1 and T8, matching the ground truth", "[xray][sim]") {
    Sandbox sb("full");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    // 65 blocks of 16 (64 usable) for 16 requests of 64 + 200 tokens: the pool, not
    // --max-num-seqs, caps the running requests, and requests are preempted.
    plan.serve = serve_cmd(sb, port,
                           "--num-gpu-blocks 65 --block-size 16 --max-model-len 1024 --max-num-seqs 16 "
                           "--sim-time-scale 4");
    plan.load = bench_cmd(sb, port, 16, 16, 64, 200);
    plan.interval_s = 0.01;
    Json truth, truth_before;  // the simulator's own account, before the load and after it
    auto r = run_xray(plan, [&](xray::Stage s) {
        const std::string state = fmt::format("http://127.0.0.1:{}/sim/state", port);
        if (s == xray::Stage::load) truth_before = Json::parse(util::get_text(state));
        if (s == xray::Stage::checks) truth = Json::parse(util::get_text(state));
    });
    INFO(r.text());
    REQUIRE(truth.is_object());
    REQUIRE(truth_before.is_object());
    const fs::path out = sb.out();
    for (const char* f : {"boot.log", "before.snapshot.json", "after.snapshot.json", "run.series.jsonl", "load.log",
                          "bench.json", "report.html", "results.json"})
        CHECK(fs::is_regular_file(out / f));
    CHECK(r.outcome.problem.empty());
    CHECK(r.outcome.load_exit == 0);
    CHECK(r.outcome.completed);

    REQUIRE(r.find("T1"));
    CHECK(r.find("T1")->status == Status::fail);
    CHECK(truth["preemptions"].get<int>() > 0);
    CHECK(truth_before["preemptions"] == 0);  // the probe's nine requests fit
    CHECK(r.find("T1")->evidence["preemptions"] == truth["preemptions"].get<double>());
    REQUIRE(r.find("T8"));
    CHECK(r.find("T8")->status == Status::fail);
    CHECK(r.find("T8")->evidence["requested"] == 16);
    // The recording samples every 10 ms and can miss a peak that lasted less (under a
    // sanitizer it does): the evidence is the recording's own peak, never above the truth.
    const double peak = r.find("T8")->evidence["peak_running"].get<double>();
    CHECK(peak == read_series(out / "run.series.jsonl").peak_running().value());
    CHECK(peak <= truth["peak_running"].get<double>());
    CHECK(peak >= 4);
    CHECK(truth["peak_running"].get<int>() < 16);
    REQUIRE(r.find("T14"));
    CHECK(r.find("T14")->status == Status::pass);
    CHECK(r.find("T14")->evidence["inferred_usable_blocks"] == truth["usable_blocks"]);
    CHECK(truth["usable_blocks"] == 64);
    REQUIRE(r.find("T10"));
    const double generated = truth["generation_tokens"].get<double>() - truth_before["generation_tokens"].get<double>();
    CHECK(r.find("T10")->evidence["tokens"] == generated);
    CHECK(generated == 17 * 200);  // the untimed test request's included
    // T15: the client's 16 and its test request are the server's 17.
    REQUIRE(r.find("T15"));
    CHECK(r.find("T15")->status == Status::pass);
    CHECK(r.find("T15")->evidence["extra_requests"] == 1);
    CHECK(r.find("T15")->evidence["expected_extra_requests"] == 1);
    REQUIRE(r.find("T7"));
    REQUIRE(r.find("T12"));
    REQUIRE(r.find("T2"));
    CHECK(r.find("T7")->status == Status::pass);
    CHECK(r.find("T12")->status == Status::pass);
    CHECK(r.find("T2")->status == Status::pass);  // the stop's: nothing of the server left
    CHECK(r.exit == 1);

    CHECK_THAT(r.text(), Contains("== engine: vLLM (from the --serve command)"));
    CHECK_THAT(r.text(), Contains("== load: " + util::shell_join(r.outcome.load_argv)));
    CHECK_THAT(r.text(), Contains("Serving Benchmark Result"));  // the load's own output, shown
    CHECK_THAT(r.text(), Contains("== stop the server"));
    CHECK_THAT(util::read_file(out / "load.log"), Contains("Initial test run completed."));
    CHECK_THAT(util::read_file(out / "report.html"), Contains("T15"));
    CHECK(r.results["completed"] == true);
    CHECK(r.results["exit_status"] == 1);
    CHECK(r.results["versions"]["engine"] == "vllm");
    CHECK(r.results["versions"]["server"] == "0.30.0");
    CHECK(r.results["plan"]["serve"] == *plan.serve);
    CHECK(r.results["results"].size() == r.outcome.results.size());
    // Each verdict is computed once, on the path `report` takes: the page shows what the
    // terminal and results.json gave, with the same message (T10 as report words it, without
    // the `rate` command's timer comparison).
    const std::string page = util::read_file(out / "report.html");
    std::map<std::string, std::string> last;
    for (const auto& res : r.results["results"]) last[res["tripwire"]] = res["message"];
    CHECK(last.size() >= 10);
    for (const auto& [id, message] : last) {
        INFO(id << ": " << message);
        CHECK_THAT(page, Contains(report::svg::escape_html(message)));
    }
    CHECK_THAT(last["T10"], Contains(" tokens/s over "));
    CHECK_THAT(last["T10"], !Contains("an integer-second timer would say"));
    require_all_gone(out / "boot.log");
}

TEST_CASE("xray on the simulator: a configuration with room for the load passes", "[xray][sim]") {
    Sandbox sb("room");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--num-gpu-blocks 401 --max-model-len 2048 --sim-time-scale 2");
    plan.load = bench_cmd(sb, port, 24, 8, 100, 96);
    plan.load.insert(plan.load.end(), {"--dataset-name", "random"});
    plan.interval_s = 0.01;
    auto r = run_xray(plan);
    INFO(r.text());
    for (const auto& res : r.outcome.results) {
        INFO(res.tripwire << ": " << res.message);
        CHECK(res.status != Status::fail);
        CHECK(res.status != Status::unknown);
    }
    REQUIRE(r.find("T8"));
    REQUIRE(r.find("T15"));
    // The load's random dataset reaches T16; the simulator's cache served none of its prompt.
    REQUIRE(r.find("T16"));
    CHECK(r.find("T16")->status == Status::pass);
    CHECK(r.find("T16")->evidence["unique_prompts"] == "--dataset-name random");
    CHECK(r.find("T16")->evidence["hit_tokens"] == 0.0);
    CHECK(r.find("T16")->evidence["queried_tokens"] == 2500.0);
    CHECK(r.find("T8")->evidence["peak_running"] == 8);
    CHECK(r.find("T15")->status == Status::pass);
    CHECK(r.exit == 0);
    CHECK(r.results["exit_status"] == 0);
    CHECK(r.results["completed"] == true);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: other traffic during the load fails T15", "[xray][sim]") {
    Sandbox sb("traffic");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 2");
    plan.load = bench_cmd(sb, port, 8, 4, 16, 64);
    plan.probe = false;
    std::thread other;
    int answered = 0;
    auto r = run_xray(plan, [&](xray::Stage s) {
        if (s != xray::Stage::load) return;
        // A second client, once the benchmark runs several requests at once (its test
        // request runs alone): three requests of its own.
        other = std::thread([&] {
            const std::string base = fmt::format("http://127.0.0.1:{}", port);
            try {
                auto t0 = std::chrono::steady_clock::now();
                while (since(t0) < 20 && Json::parse(util::get_text(base + "/sim/state"))["running"] < 2)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                for (int i = 0; i < 3; ++i)
                    answered += util::http_post_json(base + "/v1/completions",
                                                     R"({"model": "sim/Qwen3-8B", "prompt": "a b c", "max_tokens": 4})")
                                    .status == 200;
            } catch (const std::exception&) {}
        });
    });
    if (other.joinable()) other.join();
    INFO(r.text());
    REQUIRE(answered == 3);
    REQUIRE(r.find("T15"));
    CHECK(r.find("T15")->status == Status::fail);
    CHECK_THAT(r.find("T15")->message, Contains("the server finished 3 more requests than the load tool sent"));
    CHECK(r.exit == 1);
}

TEST_CASE("xray on the simulator: a server that fails during start", "[xray][sim]") {
    Sandbox sb("bootfail");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-fail-boot oom");
    plan.load = {"true"};
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.problem == "the server exited with code 1 before it was ready");
    REQUIRE(r.find("T12"));
    CHECK(r.find("T12")->status == Status::fail);
    CHECK(r.find("T12")->evidence["kind"] == "out_of_memory");
    CHECK_FALSE(r.outcome.load_exit);  // the load never ran
    CHECK(r.outcome.report);           // the boot log alone still makes a report
    CHECK(fs::is_regular_file(sb.out() / "report.html"));
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    CHECK(r.results["problem"] == r.outcome.problem);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a server that crashes on its first request fails T7", "[xray][sim]") {
    Sandbox sb("crash");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-crash-on-first-request --sim-dead-linger-s 0.2 --sim-time-scale 10");
    plan.load = bench_cmd(sb, port, 4, 2, 8, 8);
    auto r = run_xray(plan);
    INFO(r.text());
    REQUIRE(r.find("T7"));
    CHECK(r.find("T7")->status == Status::fail);
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a server that dies mid-load", "[xray][sim]") {
    Sandbox sb("dies");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    // Killed once it has answered 8 scrapes: after xray's first reading and the before
    // snapshot, a few readings into the load, however slow the machine.
    plan.serve = serve_cmd(sb, port, "--sim-die-after-scrapes 8 --sim-time-scale 1");
    plan.load = bench_cmd(sb, port, 64, 4, 16, 400);
    plan.probe = false;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_THAT(r.outcome.problem, Contains("the server stopped answering during the load"));
    CHECK(fs::is_regular_file(sb.out() / "run.series.jsonl"));
    CHECK(fs::is_regular_file(sb.out() / "before.snapshot.json"));
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: a load command that fails still stops the server", "[xray][sim]") {
    Sandbox sb("loadfail");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    plan.serve = serve_cmd(sb, port, "--sim-time-scale 10");
    plan.load = {"/bin/sh", "-c", "echo the load broke; exit 3"};
    plan.probe = false;
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK(r.outcome.load_exit == 3);
    CHECK_THAT(r.text(), Contains("the load broke"));
    CHECK_THAT(r.text(), Contains("the load command exited with code 3"));
    CHECK_THAT(util::read_file(sb.out() / "load.log"), Contains("the load broke"));
    REQUIRE(r.find("T2"));
    CHECK(r.find("T2")->status == Status::pass);
    CHECK(r.exit == 1);
    CHECK(r.results["completed"] == false);
    CHECK(r.results["load_exit"] == 3);
    require_all_gone(sb.out() / "boot.log");
}

TEST_CASE("xray on the simulator: quotes and spaces in --serve reach the server as one argument each", "[xray][sim]") {
    Sandbox sb("quotes");
    const int port = free_port();
    xray::Plan plan;
    plan.out = sb.out();
    // The program's folder has a space; so has the model's served name.
    plan.serve = serve_cmd(sb, port, "--served-model-name 'my model' --sim-time-scale 20");
    plan.load = bench_cmd(sb, port, 2, 2, 8, 8, "my model");
    auto r = run_xray(plan);
    INFO(r.text());
    CHECK_THAT(util::read_file(sb.out() / "boot.log"), Contains("'served_model_name': ['my model']"));
    REQUIRE(r.find("T7"));
    CHECK(r.find("T7")->status == Status::pass);
    CHECK(r.find("T7")->evidence["model"] == "my model");
    CHECK(r.outcome.load_exit == 0);
    require_all_gone(sb.out() / "boot.log");
}
