// T19 on made-up recordings (tests/fixtures/t19) and one-change mutations of them; the
// nvidia-smi readers on garbage, a hang and a failure; the recorder with a fake nvidia-smi.
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/parse/gpu_record.hpp"
#include "inferlint/run/gpu_record.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "../support.hpp"

#include <sstream>

using namespace inferlint;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string t19_fixture() { return util::read_file(testsupport::own_fixtures() / "t19" / "tenant.gpu.jsonl"); }

parse::GpuRecording t19_rec(const std::string& text) {
    auto rec = parse::parse_gpu_recording(text);
    REQUIRE(rec);
    return *rec;
}

std::string t19_replace_all(std::string text, const std::string& from, const std::string& to) {
    REQUIRE(text.find(from) != std::string::npos);
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

util::CommandOutput t19_ok(std::string out) {
    return {.outcome = util::CommandOutput::Outcome::exited, .exit_code = 0, .out = std::move(out), .why = ""};
}

}  // namespace

TEST_CASE("T19: nvidia-smi's memory and process queries read; garbage is no reading", "[T19]") {
    auto gpus = parse::parse_gpu_memory("0, GPU-1f2e, 812\n1, GPU-3c4d, [N/A]\n");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 2);
    CHECK((*gpus)[0].used_mib == 812);
    CHECK_FALSE((*gpus)[1].used_mib);
    CHECK_FALSE(parse::parse_gpu_memory(""));
    CHECK_FALSE(parse::parse_gpu_memory("0\n"));
    CHECK_FALSE(parse::parse_gpu_memory("NVIDIA-SMI has failed because it couldn't communicate with the driver"));
    auto apps = parse::parse_compute_apps("3475, VLLM::EngineCore, 70000, GPU-1f2e\n9001, a, b, 512, GPU-3c4d\n");
    REQUIRE(apps);
    REQUIRE(apps->size() == 2);
    CHECK((*apps)[1].name == "a, b");
    CHECK((*apps)[1].used_mib == 512);
    CHECK(parse::parse_compute_apps("")->empty());
    CHECK(parse::parse_compute_apps("No running processes found\n")->empty());
    CHECK_FALSE(parse::parse_compute_apps("3475, python, lots, GPU-1\n"));
    CHECK_FALSE(
        parse::parse_compute_apps("\x7f"
                                  "ELF\x02\x01garbage"));
}

TEST_CASE("T19: a tenant that arrives during the run fails, named with its pid, name and MiB", "[T19]") {
    const std::string text = t19_fixture();
    CheckResult r = checks::check_gpu_shared(t19_rec(text), {});
    CHECK(r.tripwire == TripwireId::T19);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("process 9001 (/usr/bin/python3) held 51200 MiB on GPU 0"));
    CHECK(r.evidence["other_processes"][0]["pid"] == 9001);
    // One change each: the tenant on the GPU the server does not use (its memory with it) passes.
    std::string elsewhere =
        t19_replace_all(text, R"("used_mib":51200,"gpu_uuid":"GPU-aaaa")", R"("used_mib":51200,"gpu_uuid":"GPU-bbbb")");
    elsewhere = t19_replace_all(elsewhere, R"("used_mib":121700},{"index":1,"uuid":"GPU-bbbb","used_mib":3})",
                                R"("used_mib":70500},{"index":1,"uuid":"GPU-bbbb","used_mib":51203})");
    CHECK(checks::check_gpu_shared(t19_rec(elsewhere), {}).status == Status::pass);
    // The same pid in the server's tree (a child the boot log names) passes.
    CHECK(checks::check_gpu_shared(t19_rec(text), {9001}).status == Status::pass);
}

TEST_CASE("T19: with the processes hidden (a container), the growth outside the server fails", "[T19]") {
    // nvidia-smi in a container lists no process, but the card's memory still moves.
    std::string text = t19_replace_all(
        t19_fixture(), R"(,{"pid":9001,"name":"/usr/bin/python3","used_mib":51200,"gpu_uuid":"GPU-aaaa"})", "");
    CheckResult r = checks::check_gpu_shared(t19_rec(text), {});
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Contains("memory used outside the server on GPU 0 grew by 51200 MiB (500 to 51700 MiB)"));
    // Growth under the threshold passes.
    CHECK(checks::check_gpu_shared(t19_rec(t19_replace_all(text, "121700", "71000")), {}).status == Status::pass);
}

TEST_CASE("T19: no reading, one reading, failed readings and a cut recording: Can't tell, never a pass", "[T19]") {
    std::string text = t19_fixture();
    // Cut mid-line after the first reading: the rest is skipped and counted.
    auto cut = parse::parse_gpu_recording(text.substr(0, text.find("\"t_s\":5.0") + 5));
    REQUIRE(cut);
    CHECK(cut->skipped_lines == 1);
    CheckResult one = checks::check_gpu_shared(*cut, {});
    CHECK(one.status == Status::unknown);
    CHECK_THAT(one.message, Contains("nvidia-smi gave 1 reading of the GPUs"));
    parse::GpuRecording failed{
        .interval_s = 5.0,
        .samples = {{.t_s = 0, .error = "timed out after 5 s"}, {.t_s = 5, .error = "timed out after 5 s"}}};
    CheckResult hung = checks::check_gpu_shared(failed, {});
    CHECK(hung.status == Status::unknown);
    CHECK_THAT(hung.message, Contains("(timed out after 5 s)"));
    CHECK_FALSE(parse::parse_gpu_recording("not a recording\n"));
}

TEST_CASE("T19: the recorder writes a reading at each end; a hanging or babbling nvidia-smi is said", "[T19]") {
    const std::string mem = "0, GPU-aaaa, 500\n";
    std::atomic<bool> stop{true};  // stopped at once: the first reading and the last
    std::ostringstream out;
    run::CommandRunner fine = [&](const std::vector<std::string>& argv) {
        return argv[1].starts_with("--query-gpu") ? t19_ok(mem) : t19_ok("");
    };
    long long now = 0;
    run::WatchClock clock{.mono_ns = [&] { return now += 1'000'000'000; },
                          .sleep_until = [](long long, const auto&) {}};
    run::record_gpus(
        out, {}, stop, fine, "nvidia-smi", [] { return std::vector<long long>{42}; }, clock);
    auto rec = parse::parse_gpu_recording(out.str());
    REQUIRE(rec);
    REQUIRE(rec->samples.size() == 1);
    CHECK(rec->samples[0].server_pids == std::vector<long long>{42});

    run::CommandRunner hang = [](const std::vector<std::string>&) {
        return util::CommandOutput{.outcome = util::CommandOutput::Outcome::timed_out,
                                   .exit_code = -1,
                                   .out = "",
                                   .why = "nvidia-smi did not answer within 5 s"};
    };
    CHECK(run::read_gpu_sample(hang, "nvidia-smi").error == "nvidia-smi did not answer within 5 s");
    run::CommandRunner babble = [](const std::vector<std::string>&) { return t19_ok("Segmentation fault\n"); };
    CHECK(run::read_gpu_sample(babble, "nvidia-smi").error.has_value());
}

TEST_CASE("T19: report reads gpu.jsonl from the run folder; one that is not a recording is refused", "[T19]") {
    testsupport::TempDir dir("t19");
    util::write_file(dir.path / "gpu.jsonl", t19_fixture());
    auto loaded = run::load_run({.gpu = dir.path / "gpu.jsonl"}, nullptr);
    REQUIRE(loaded);
    REQUIRE(loaded->evidence.gpu);
    auto verdicts = checks::check_run(loaded->evidence);
    REQUIRE(verdicts.result(TripwireId::T19));
    CHECK(verdicts.result(TripwireId::T19)->status == Status::fail);
    util::write_file(dir.path / "gpu.jsonl", "{\"t_s\": 0}\n");
    CHECK_THROWS_AS(run::load_run({.gpu = dir.path / "gpu.jsonl"}, nullptr), InputError);
    // Without the recording, no T19 at all: the report's "Not here" says what it needs.
    CHECK_FALSE(checks::check_run(checks::RunEvidence{}).result(TripwireId::T19));
}
