#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <cmath>
#include <string>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

// A snapshot of `text` taken at the given clocks.
Snapshot snap_at(const std::string& text, double t_wall, std::optional<long long> t_mono_ns = std::nullopt,
                 std::optional<double> latency_s = std::nullopt) {
    Snapshot s;
    s.url = "http://127.0.0.1:8000/metrics";
    s.text = text;
    s.t_wall = t_wall;
    s.t_mono_ns = t_mono_ns;
    s.latency_s = latency_s;
    return s;
}

std::string snap_counters(double preemptions, double created = 1000.0) {
    return "# TYPE vllm:num_preemptions_total counter\n"
           "vllm:num_preemptions_total{engine=\"0\"} " +
           std::to_string(preemptions) +
           "\n"
           "vllm:num_preemptions_created{engine=\"0\"} " +
           std::to_string(created) +
           "\n"
           "vllm:request_success_total{finished_reason=\"length\"} 5\n"
           "vllm:request_success_total{finished_reason=\"stop\"} 2\n";
}

// The one-line InputError loading the file gives; it names the file.
std::string snapshot_error_of(const fs::path& path) {
    try {
        load_snapshot(path);
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.starts_with(path.string() + ": "));
        CHECK(what.find('\n') == std::string::npos);
        return what;
    }
    FAIL("no InputError for " << path);
    return "";
}

std::string snapshot_error_of_text(const std::string& name, const std::string& content) {
    testsupport::TempDir tmp("snapshot");
    util::write_file(tmp.path / name, content);
    std::string what = snapshot_error_of(tmp.path / name);
    return what.substr((tmp.path / name).string().size() + 2);
}

}  // namespace

TEST_CASE("snapshot: save then load gives back every field", "[snapshot]") {
    testsupport::TempDir tmp("snapshot");
    Snapshot s = snap_at(snap_counters(3), 1795950955.5668626, 3949134979316LL, 0.019);
    const fs::path p = tmp.path / "made" / "here" / "before.snapshot.json";
    s.save(p);
    const std::string saved = util::read_file(p);
    CHECK(saved.back() == '\n');
    CHECK(nlohmann::json::parse(saved)["schema"] == kSnapshotSchema);

    Snapshot back = load_snapshot(p);
    CHECK(back.url == s.url);
    CHECK(back.text == s.text);
    CHECK(back.t_wall == s.t_wall);
    CHECK(back.t_mono_ns == s.t_mono_ns);
    CHECK(back.latency_s == s.latency_s);
    CHECK(back.source == p.string());
    CHECK(back.metrics().total("vllm:num_preemptions_total") == 3.0);
}

TEST_CASE("snapshot: absent clocks are saved as null and read back as absent", "[snapshot]") {
    testsupport::TempDir tmp("snapshot");
    Snapshot s = snap_at(snap_counters(0), std::nan(""));
    Json j = s.to_json();
    CHECK(j["t_wall"].is_null());
    CHECK(j["t_mono_ns"].is_null());
    CHECK(j["latency_s"].is_null());
    // a saved snapshot without t_wall is refused (only bare Prometheus text has no clock)
    s.save(tmp.path / "x.snapshot.json");
    CHECK(snapshot_error_of(tmp.path / "x.snapshot.json").ends_with(": snapshot has no 't_wall'"));
    s.t_wall = 12.5;
    s.save(tmp.path / "y.snapshot.json");
    Snapshot back = load_snapshot(tmp.path / "y.snapshot.json");
    CHECK(back.t_wall == 12.5);
    CHECK_FALSE(back.t_mono_ns);
    CHECK_FALSE(back.latency_s);
}

TEST_CASE("snapshot: the project's recorded pair says 22 preemptions and 3,400 tokens", "[snapshot]") {
    const fs::path run = testsupport::own_fixtures() / "vllm-sim" / "preempted";
    Snapshot before = load_snapshot(run / "before.snapshot.json");
    Snapshot after = load_snapshot(run / "after.snapshot.json");
    CHECK(before.url == "http://127.0.0.1:45107/metrics");
    CHECK(Deltas(before, after)("vllm:num_preemptions_total") == 22.0);
    CHECK(Deltas(before, after)("vllm:generation_tokens_total") == 3400.0);
    CHECK(Deltas(before, after)("vllm:request_success_total", "", {{"finished_reason", "length"}}) == 17.0);
    Span sp = span_s(before, after);
    CHECK(sp.seconds == Approx((3965746332444.0 - 3949134979316.0) / 1e9));
    CHECK(sp.uncertainty_s == Approx((0.01932778 + 0.031717702) / 2));
    CHECK(created_changes(before, after).empty());
}

TEST_CASE("snapshot: a bare Prometheus text file reads, with no clock and so no span", "[snapshot]") {
    testsupport::TempDir tmp("snapshot");
    util::write_file(tmp.path / "scrape.prom", snap_counters(4));
    Snapshot s = load_snapshot(tmp.path / "scrape.prom");
    CHECK(s.url == "file:scrape.prom");
    CHECK(std::isnan(s.t_wall));
    CHECK_FALSE(s.t_mono_ns);
    CHECK(s.metrics().total("vllm:num_preemptions_total") == 4.0);
    CHECK_THROWS_WITH(span_s(s, s), Catch::Contains("no clock"));
}

TEST_CASE("span_s: monotonic when both have it, else wall; the latencies' mean is the uncertainty", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(0), 100.0, 5'000'000'000LL, 0.02);
    Snapshot b = snap_at(snap_counters(0), 110.3, 15'250'000'000LL, 0.04);
    Span sp = span_s(a, b);
    CHECK(sp.seconds == Approx(10.25));
    CHECK(sp.uncertainty_s == Approx(0.03));
    b.t_mono_ns.reset();
    CHECK(span_s(a, b).seconds == Approx(10.3));
    a.latency_s.reset();
    CHECK(span_s(a, b).uncertainty_s == Approx(0.02));
}

TEST_CASE("span_s: clocks that disagree by over a second are refused", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(0), 100.0, 5'000'000'000LL);
    Snapshot b = snap_at(snap_counters(0), 112.0, 15'000'000'000LL);  // 10 s monotonic, 12 s wall
    CHECK_THROWS_WITH(span_s(a, b), Catch::Contains("disagree"));
    b.t_wall = 110.9;
    CHECK(span_s(a, b).seconds == Approx(10.0));
}

TEST_CASE("Deltas: after minus before, summed over the label sets asked for", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(2), 1.0);
    Snapshot b = snap_at(snap_counters(9), 2.0);
    CHECK(Deltas(a, b)("vllm:num_preemptions_total") == 7.0);
    CHECK(Deltas(a, b)("vllm:request_success_total") == 0.0);
    CHECK(Deltas(a, b)("vllm:request_success_total", "", {{"finished_reason", "stop"}}) == 0.0);
}

TEST_CASE("Deltas: a counter either snapshot lacks is unknown, never 0", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(2), 1.0);
    Snapshot b = snap_at(snap_counters(9), 2.0);
    CHECK(Deltas(a, b)("vllm:generation_tokens_total") == std::nullopt);
    Snapshot bare = snap_at("vllm:num_requests_running 0\n", 2.0);
    CHECK(Deltas(a, bare)("vllm:num_preemptions_total") == std::nullopt);
}

TEST_CASE("Deltas: with a witness present, a counter not yet written reads as 0", "[snapshot]") {
    // SGLang writes its retraction counter at the first retraction; the gauge is there from the start
    Snapshot a = snap_at("sglang:num_retracted_reqs 0\n", 1.0);
    Snapshot b = snap_at("sglang:num_retracted_reqs 0\nsglang:num_retracted_requests_total 3\n", 2.0);
    CHECK(Deltas(a, b)("sglang:num_retracted_requests_total", "sglang:num_retracted_reqs") == 3.0);
    CHECK(Deltas(a, b)("sglang:num_retracted_requests_total") == std::nullopt);
    Snapshot none = snap_at("sglang:other 1\n", 1.0);
    CHECK(Deltas(none, b)("sglang:num_retracted_requests_total", "sglang:num_retracted_reqs") == std::nullopt);
}

TEST_CASE("Deltas: a counter that went down is a restart, with its evidence; later reads are unknown", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(9), 1.0);
    Snapshot b = snap_at(snap_counters(2), 2.0);
    Deltas delta(a, b);
    CHECK_FALSE(delta.restart());
    CHECK(delta("vllm:num_preemptions_total") == std::nullopt);
    REQUIRE(delta.restart());
    CHECK(delta.restart()->message == "vllm:num_preemptions_total went down (9 -> 2); counters only reset on restart");
    CHECK(delta.restart()->evidence["counter"] == "vllm:num_preemptions_total");
    CHECK(delta.restart()->evidence["before"] == 9.0);
    CHECK(delta.restart()->evidence["after"] == 2.0);
    // A counter that rose is no figure either once the two are known to be two processes.
    CHECK(Deltas(a, b)("vllm:request_success_total").has_value());
    CHECK(delta("vllm:request_success_total") == std::nullopt);
}

TEST_CASE("Deltas: a moved _created stamp is a restart even when the counter rose", "[snapshot]") {
    Snapshot a = snap_at(snap_counters(2, 1000.0), 1.0);
    Snapshot b = snap_at(snap_counters(50, 1500.0), 2.0);
    auto moved = created_changes(a, b);
    REQUIRE(moved.size() == 1);
    CHECK(moved[0].name == "vllm:num_preemptions_created");
    CHECK(moved[0].before == 1000.0);
    CHECK(moved[0].after == 1500.0);
    Deltas delta(a, b);
    REQUIRE(delta.restart());
    CHECK(delta("vllm:request_success_total") == std::nullopt);
    CHECK(
        delta.restart()->message.starts_with("server restarted between snapshots (1 *_created stamps moved, e.g. "
                                             "vllm:num_preemptions_created: 1000.000 -> 1500.000)"));
    CHECK(delta.restart()->evidence["created_changed"] == 1);
    CHECK(delta.restart()->evidence["example"] == "vllm:num_preemptions_created");
}

TEST_CASE("snapshot: a missing or empty file is an InputError naming it", "[snapshot][badinput]") {
    testsupport::TempDir tmp("snapshot");
    CHECK(snapshot_error_of(tmp.path / "nope.snapshot.json").ends_with(": no such file"));
    CHECK(snapshot_error_of_text("empty.snapshot.json", "") == "empty file");
    CHECK(snapshot_error_of_text("blank.snapshot.json", " \n\t\n") == "empty file");
    CHECK(snapshot_error_of(tmp.path).ends_with(": is a folder, not a file"));
}

TEST_CASE("snapshot: truncated, binary or non-snapshot JSON is refused by name", "[snapshot][badinput]") {
    const std::string whole = snap_at(snap_counters(1), 5.0).to_json().dump();
    CHECK(snapshot_error_of_text("cut.snapshot.json", whole.substr(0, whole.size() / 2))
              .starts_with("not valid JSON (truncated?) at byte"));
    CHECK(snapshot_error_of_text("junk.bin", std::string("\x7f"
                                                         "ELF\0\0\0",
                                                         7)) == "binary data, not a snapshot or Prometheus text");
    CHECK(snapshot_error_of_text("series.jsonl", R"({"schema": "inferlint.series/1", "url": "u"})") ==
          R"(not an inferlint.snapshot/1 document (schema="inferlint.series/1"))");
    CHECK(snapshot_error_of_text("noschema.json", R"({"url": "u", "text": ""})") ==
          "not an inferlint.snapshot/1 document (schema=none)");
    // what does not open with '{' is read as Prometheus text, and fails as that
    CHECK(snapshot_error_of_text("list.json", "[1, 2]").starts_with("line 1: "));
}

TEST_CASE("snapshot: a snapshot document with fields of the wrong type is refused by name", "[snapshot][badinput]") {
    auto doc = [](const std::function<void(Json&)>& edit) {
        Json j = snap_at(snap_counters(1), 5.0, 7LL, 0.01).to_json();
        edit(j);
        return j.dump();
    };
    CHECK(snapshot_error_of_text("a.json", doc([](Json& j) { j.erase("url"); })) == "snapshot has no 'url' string");
    CHECK(snapshot_error_of_text("b.json", doc([](Json& j) { j["text"] = 3; })) == "snapshot has no 'text' string");
    CHECK(snapshot_error_of_text("c.json", doc([](Json& j) { j["t_wall"] = "noon"; })) ==
          "snapshot field 't_wall' is not a number");
    CHECK(snapshot_error_of_text("d.json", doc([](Json& j) { j["t_mono_ns"] = true; })) ==
          "snapshot field 't_mono_ns' is not a number");
}

TEST_CASE("snapshot: a broken exposition line is reported at load, naming the file and line", "[snapshot][badinput]") {
    const std::string bad = "vllm:ok 1\nvllm:broken{engine=\"0\" 1\n";
    CHECK(snapshot_error_of_text("bad.prom", bad).starts_with("line 2: "));
    Json j = snap_at(bad, 5.0).to_json();
    CHECK(snapshot_error_of_text("bad.snapshot.json", j.dump()).starts_with("line 2: "));
}
