#include "inferlint/run/judge.hpp"
#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include "support.hpp"

#include <string>

namespace fs = std::filesystem;
using namespace inferlint;
using inferlint::run::find_bench_result;
using inferlint::run::find_run_files;
using inferlint::run::name_matches;

namespace {

// A file in the run folder, with the text given (made with its folders).
fs::path run_file(const fs::path& dir, const std::string& name, const std::string& text = "x\n") {
    util::write_file(dir / name, text);
    return dir / name;
}

const std::string kBench = R"({"completed": 16, "failed": 0, "total_output_tokens": 3200, "duration": 12.5})";
const std::string kSnapshotDoc = R"({"schema": "inferlint.snapshot/1", "url": "u", "t_wall": 1, "text": ""})";

}  // namespace

TEST_CASE("run folder: the names xray writes are found by name", "[run_folder]") {
    const fs::path run = testsupport::own_fixtures() / "vllm-sim" / "preempted";
    auto f = find_run_files(run);
    CHECK(f.boot_log == run / "boot.log");
    CHECK(f.before == run / "before.snapshot.json");
    CHECK(f.after == run / "after.snapshot.json");
    CHECK(f.series == run / "run.series.jsonl");
    CHECK(f.bench == run / "bench.json");
    CHECK(f.load_log == run / "load.log");
}

TEST_CASE("run folder: an empty folder, or one that does not exist, has none of the files", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    for (const fs::path& dir : {tmp.path, tmp.path / "absent"}) {
        INFO(dir);
        auto f = find_run_files(dir);
        CHECK_FALSE(f.boot_log);
        CHECK_FALSE(f.before);
        CHECK_FALSE(f.after);
        CHECK_FALSE(f.series);
        CHECK_FALSE(f.bench);
        CHECK_FALSE(f.load_log);
    }
}

TEST_CASE("run folder: without the usual names, the first file by name matching each pattern", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    const fs::path& d = tmp.path;
    run_file(d, "server-boot-2.log");
    const fs::path boot = run_file(d, "server-boot-1.log");
    run_file(d, "boot.txt");  // not a .log
    const fs::path before = run_file(d, "a-before.json", kSnapshotDoc);
    run_file(d, "b-before.json", kSnapshotDoc);
    const fs::path after = run_file(d, "after-load.json", kSnapshotDoc);
    const fs::path series = run_file(d, "gpu0.series.jsonl");
    run_file(d, "load.txt");  // only load.log is the load tool's console output
    auto f = find_run_files(d);
    CHECK(f.boot_log == boot);
    CHECK(f.before == before);
    CHECK(f.after == after);
    CHECK(f.series == series);
    CHECK_FALSE(f.load_log);
}

TEST_CASE("run folder: the usual name wins over an earlier file that matches the pattern", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    run_file(tmp.path, "a-boot.log");
    const fs::path boot = run_file(tmp.path, "boot.log");
    run_file(tmp.path, "a-before.json");
    const fs::path before = run_file(tmp.path, "before.snapshot.json");
    run_file(tmp.path, "a.series.jsonl");
    const fs::path series = run_file(tmp.path, "run.series.jsonl");
    auto f = find_run_files(tmp.path);
    CHECK(f.boot_log == boot);
    CHECK(f.before == before);
    CHECK(f.series == series);
}

TEST_CASE("run folder: a folder or a hidden file with a matching name is passed over", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    fs::create_directories(tmp.path / "boot.log");    // a folder by the usual name
    fs::create_directories(tmp.path / "a-boot.log");  // and by the pattern
    run_file(tmp.path, ".old-boot.log");              // '*' does not match a leading dot
    const fs::path boot = run_file(tmp.path, "z-boot.log");
    fs::create_directories(tmp.path / "load.log");
    auto f = find_run_files(tmp.path);
    CHECK(f.boot_log == boot);
    CHECK_FALSE(f.load_log);
}

TEST_CASE("find_bench_result: bench.json, else bench.jsonl, taken by name without reading", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    const fs::path jsonl = run_file(tmp.path, "bench.jsonl", "not even JSON");
    run_file(tmp.path, "a-result.json", kBench);
    CHECK(find_bench_result(tmp.path) == jsonl);
    const fs::path json = run_file(tmp.path, "bench.json", "{}");
    CHECK(find_bench_result(tmp.path) == json);
}

TEST_CASE("find_bench_result: another file is taken only when it reads as a result with both counts", "[run_folder]") {
    testsupport::TempDir tmp("runfolder");
    run_file(tmp.path, "a-before.snapshot.json", kBench);      // a snapshot's name: never read
    run_file(tmp.path, "b.series.jsonl", kBench);              // a recording's name: never read
    run_file(tmp.path, "results.json", kBench);                // inferlint's own output: never read
    run_file(tmp.path, "c-config.json", R"({"model": "m"})");  // not a load tool's result
    run_file(tmp.path, "d-snap.json", kSnapshotDoc);           // an inferlint file under another name
    run_file(tmp.path, "e-partial.json", R"({"duration": 3.0, "completed": 4})");  // no token count
    run_file(tmp.path, "f-broken.json", "{\"completed\": 1");                      // truncated
    CHECK(find_bench_result(tmp.path) == std::nullopt);
    const fs::path sglang = run_file(tmp.path, "g-sglang.jsonl", kBench + "\n" + kBench + "\n");
    run_file(tmp.path, "h-later.json", kBench);
    CHECK(find_bench_result(tmp.path) == sglang);
    CHECK(find_run_files(tmp.path).bench == sglang);
}

TEST_CASE("name_matches: '*' matches any run of characters, the rest matches itself", "[run_folder]") {
    CHECK(name_matches("boot.log", "*boot*.log"));
    CHECK(name_matches("vllm-boot-2.log", "*boot*.log"));
    CHECK(name_matches("x.series.jsonl", "*.series.jsonl"));
    CHECK(name_matches("abc", "abc"));
    CHECK(name_matches("", "*"));
    CHECK(name_matches("anything", "*"));
    CHECK(name_matches("aXbXc", "a*b*c"));
    CHECK(name_matches("abab.log", "*ab.log"));  // needs the backtrack past the first "ab"
    CHECK_FALSE(name_matches("boot.log.gz", "*boot*.log"));
    CHECK_FALSE(name_matches("boot.txt", "*boot*.log"));
    CHECK_FALSE(name_matches("abc", "ab"));
    CHECK_FALSE(name_matches("ab", "abc"));
    CHECK_FALSE(name_matches("", "a"));
    CHECK_FALSE(name_matches("Boot.log", "boot.log"));  // case counts
}

TEST_CASE("name_matches: a leading '*' does not match a leading dot, as glob", "[run_folder]") {
    CHECK_FALSE(name_matches(".boot.log", "*boot*.log"));
    CHECK_FALSE(name_matches(".x.json", "*.json"));
    CHECK(name_matches(".x.json", ".*.json"));
    CHECK(name_matches("a.boot.log", "*boot*.log"));
}

TEST_CASE("live record: a fleet's replicas and window round-trip, and a bad one is refused naming the file",
          "[run_folder][live]") {
    const fs::path dir = testsupport::scratch_dir("live-fleet");
    run::LiveRecord rec;
    rec.requested = 8;
    rec.after_missing = "connection refused";
    rec.fleet = run::FleetRecord{.replicas = {{"127.0.0.1:8001", "http://127.0.0.1:8001", "127.0.0.1_8001"},
                                              {"127.0.0.1:8002", "http://127.0.0.1:8002", "127.0.0.1_8002"}},
                                 .start_s = 1700000000.5,
                                 .end_s = 1700000012.25,
                                 .step_s = 0.25};
    run::write_live_record(dir, rec);
    auto back = run::read_live_record(dir);
    REQUIRE(back);
    REQUIRE(back->fleet);
    CHECK(back->requested == 8);
    CHECK(back->after_missing == "connection refused");
    REQUIRE(back->fleet->replicas.size() == 2);
    CHECK(back->fleet->replicas[1].folder == "127.0.0.1_8002");
    CHECK(back->fleet->start_s == 1700000000.5);
    CHECK(back->fleet->end_s == 1700000012.25);
    CHECK(back->fleet->step_s == 0.25);
    // A folder that leaves the run's, a window that ends before it starts, no replicas: one
    // line naming live.json, never a fleet read from elsewhere.
    for (const std::string fleet :
         {R"({"replicas": [{"name": "a", "url": "http://a", "folder": "../etc"}], "start": 1, "end": 2, "step": 1})",
          R"({"replicas": [{"name": "a", "url": "http://a", "folder": "a"}], "start": 5, "end": 2, "step": 1})",
          R"({"replicas": [], "start": 1, "end": 2, "step": 1})",
          R"({"replicas": [{"name": "a", "folder": "a"}], "start": 1, "end": 2, "step": 1})",
          R"({"replicas": [{"name": "a", "url": "http://a", "folder": "a"}], "start": 1, "end": 2, "step": 0})"}) {
        util::write_file(dir / "live.json",
                         R"({"schema": "inferlint.live/1", "verdicts": [], "fleet": )" + fleet + "}");
        INFO(fleet);
        try {
            run::read_live_record(dir);
            FAIL("a bad fleet record was read");
        } catch (const InputError& e) {
            CHECK_THAT(e.what(), Catch::Matchers::Contains((dir / "live.json").string()));
            CHECK_THAT(e.what(), Catch::Matchers::Contains("\"fleet\""));
        }
    }
}
