// T1 and T10 on the reference's recorded snapshots, with the numbers its tests pin.
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <fstream>

using namespace inferlint;

namespace {

Snapshot snap(const std::string& prom, double t_wall, long long mono_ns, double latency = 0.01) {
    Snapshot s;
    s.url = "http://x/metrics";
    s.text = prom;
    s.t_wall = t_wall;
    s.t_mono_ns = mono_ns;
    s.latency_s = latency;
    return s;
}

}  // namespace

TEST_CASE("T1: 60 preemptions between the recorded vLLM 0.28 snapshots", "[T1][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* ext : {".prom", ".snapshot.json"}) {
        auto b = load_snapshot(root / (std::string("vllm-0.28/metrics/preempted_before") + ext));
        auto a = load_snapshot(root / (std::string("vllm-0.28/metrics/preempted_after") + ext));
        auto r = checks::check_no_preemption(b, a);
        CHECK(r.status == Status::fail);
        CHECK(r.evidence["preemptions"].get<double>() == 60.0);
        CHECK(r.message == "60 preemptions during the run");
    }
}

TEST_CASE("T1: a restart is caught from moved _created stamps", "[T1][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_snapshot(root / "vllm-0.28/metrics/restart_before.prom");
    auto a = load_snapshot(root / "vllm-0.28/metrics/restart_after.prom");
    auto r = checks::check_no_preemption(b, a);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["restarted"] == true);
    CHECK(r.message.find("server restarted") != std::string::npos);
}

TEST_CASE("T1: restart detected even when counters rose past their old values", "[T1]") {
    auto b = snap("vllm:num_preemptions_total 5\nvllm:num_preemptions_created 1000.5\n", 1, 1);
    auto a = snap("vllm:num_preemptions_total 9\nvllm:num_preemptions_created 2000.25\n", 2, 2);
    auto r = checks::check_no_preemption(b, a);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["created_changed"] == 1);
    CHECK(r.evidence["example"] == "vllm:num_preemptions_created");
}

TEST_CASE("T1: a counter that went down is a restart", "[T1]") {
    auto b = snap("vllm:num_preemptions_total 5\n", 1, 1);
    auto a = snap("vllm:num_preemptions_total 2\n", 2, 2);
    auto r = checks::check_no_preemption(b, a);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["counter"] == "vllm:num_preemptions_total");
}

TEST_CASE("T1: an absent counter is unknown, never 0", "[T1]") {
    auto b = snap("vllm:num_requests_running 0\n", 1, 1);
    auto a = snap("vllm:num_requests_running 0\n", 2, 2);
    auto r = checks::check_no_preemption(b, a);
    CHECK(r.status == Status::unknown);
    CHECK_FALSE(r.evidence.contains("preemptions"));
}

TEST_CASE("T1: SGLang's retraction counter appears at the first retraction", "[T1][sglang]") {
    auto b = snap("sglang:num_retracted_reqs 0\nsglang:num_running_reqs 0\n", 1, 1);
    auto a = snap("sglang:num_retracted_reqs 0\nsglang:num_retracted_requests_total 3\n", 2, 2);
    auto r = checks::check_no_preemption(b, a);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["preemptions"].get<double>() == 3);
    CHECK(r.message == "3 retractions during the run (SGLang logs a warning for each)");
    auto quiet = checks::check_no_preemption(b, b);
    CHECK(quiet.status == Status::pass);
    CHECK(quiet.message == "no retractions");
}

TEST_CASE("T1: TensorRT-LLM pauses come from the log, else the recording", "[T1][trtllm]") {
    auto b = snap("trtllm_num_requests_running 0\n", 1, 1);
    checks::PauseEvidence p;
    p.have_log = true;
    p.logged_pauses = 4;
    p.served_in_log = 32;
    auto r = checks::check_no_preemption(b, b, p);
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["preemptions"] == 4);
    checks::PauseEvidence none;
    CHECK(checks::check_no_preemption(b, b, none).status == Status::unknown);
    checks::PauseEvidence rec;
    rec.paused_readings = 10;
    rec.paused_nonzero = 2;
    rec.paused_max = 3;
    auto fr = checks::check_no_preemption(b, b, rec);
    CHECK(fr.status == Status::fail);
    CHECK(fr.evidence["readings_with_paused"] == 2);
    rec.paused_nonzero = 0;
    CHECK(checks::check_no_preemption(b, b, rec).status == Status::unknown);
    rec.scheduler_policy = "GUARANTEED_NO_EVICT";
    CHECK(checks::check_no_preemption(b, b, rec).status == Status::pass);
}

TEST_CASE("T10: 32,000 tokens over 93.720 s for the recorded vLLM 0.28 live run", "[T10][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_snapshot(root / "vllm-0.28/live/before.snapshot.json");
    auto a = load_snapshot(root / "vllm-0.28/live/after.snapshot.json");
    checks::Measured m;
    auto r = checks::precise_rate(b, a, "", &m);
    REQUIRE(r.status == Status::pass);
    CHECK(r.evidence["tokens"].get<double>() == 32000.0);
    CHECK(r.evidence["span_s"].get<double>() == Approx(93.720).margin(0.0005));
    CHECK(r.message.find("over 93.720s") != std::string::npos);
    // The typed figures are the evidence's, value for value.
    REQUIRE(m.output_rate_per_s);
    CHECK(*m.output_rate_per_s == r.evidence["rate_per_s"].get<double>());
    CHECK(*m.span_s == r.evidence["span_s"].get<double>());
    CHECK(*m.integer_second_error == r.evidence["integer_second_error"].get<double>());
    auto t = checks::with_timer_comparison(r, m);
    CHECK(t.message.find("an integer-second timer would say") != std::string::npos);
    CHECK(checks::with_timer_comparison(r, checks::Measured{}).message == r.message);
}

TEST_CASE("T10: bare Prometheus text has no clock, so no rate", "[T10][shared]") {
    REQUIRE_REFERENCE(root);
    auto b = load_snapshot(root / "vllm-0.28/metrics/preempted_before.prom");
    auto a = load_snapshot(root / "vllm-0.28/metrics/preempted_after.prom");
    auto r = checks::precise_rate(b, a);
    CHECK(r.status == Status::unknown);
    CHECK(r.message.find("no clock") != std::string::npos);
}

TEST_CASE("T10: monotonic and wall clocks that disagree are refused", "[T10]") {
    auto b = snap("vllm:generation_tokens_total 0\n", 1000.0, 0);
    auto a = snap("vllm:generation_tokens_total 100\n", 1010.0, 5'000'000'000);
    auto r = checks::precise_rate(b, a);
    CHECK(r.status == Status::unknown);
    CHECK(r.message.find("disagree") != std::string::npos);
    auto ok = snap("vllm:generation_tokens_total 100\n", 1010.2, 10'000'000'000);
    auto r2 = checks::precise_rate(b, ok);
    CHECK(r2.status == Status::pass);
    CHECK(r2.evidence["rate_per_s"].get<double>() == Approx(10.0));
    CHECK(r2.evidence["integer_second_span_s"] == 10);
}

TEST_CASE("snapshot: bad files are one-line errors naming the file", "[snapshot]") {
    auto dir = testsupport::scratch_dir("snap-bad");
    auto write = [&](const std::string& name, const std::string& body) {
        std::ofstream(dir / name, std::ios::binary) << body;
        return dir / name;
    };
    CHECK_THROWS_WITH(load_snapshot(dir / "missing.json"), Catch::Contains("missing.json: no such file"));
    CHECK_THROWS_WITH(load_snapshot(dir), Catch::Contains("is a folder"));
    CHECK_THROWS_WITH(load_snapshot(write("empty.json", "")), Catch::Contains("empty"));
    CHECK_THROWS_WITH(load_snapshot(write("bin.json", std::string("\x7f"
                                                                  "ELF\0\0\x01",
                                                                  7))),
                      Catch::Contains("binary"));
    CHECK_THROWS_WITH(load_snapshot(write("trunc.json", "{\"schema\": \"inferlint.snapshot/1\", \"url\": \"x\", \"te")),
                      Catch::Contains("trunc.json: not valid JSON"));
    CHECK_THROWS_WITH(load_snapshot(write("schema.json", "{\"schema\": \"other/2\", \"url\": \"x\", \"text\": \"\"}")),
                      Catch::Contains("not an inferlint.snapshot/1 document"));
    CHECK_THROWS_WITH(
        load_snapshot(
            write("types.json",
                  "{\"schema\": \"inferlint.snapshot/1\", \"url\": \"x\", \"t_wall\": \"now\", \"text\": \"a 1\"}")),
        Catch::Contains("'t_wall' is not a number"));
    CHECK_THROWS_WITH(load_snapshot(write("label.prom", "ok 1\nbad{a=\"1} 2\n")),
                      Catch::Contains("label.prom: line 2"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("snapshot: save then load keeps clocks and text", "[snapshot]") {
    auto s = snap("vllm:generation_tokens_total 12\n", 1700000000.25, 123456789, 0.004);
    auto path = testsupport::scratch_dir("snap-rt") / "sub" / "s.snapshot.json";
    s.save(path);
    auto back = load_snapshot(path);
    CHECK(back.t_wall == s.t_wall);
    CHECK(*back.t_mono_ns == 123456789);
    CHECK(*back.latency_s == 0.004);
    CHECK(back.text == s.text);
    CHECK(*back.metrics().total("vllm:generation_tokens_total") == 12);
    std::filesystem::remove_all(path.parent_path().parent_path());
}
