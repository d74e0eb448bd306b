#include "support.hpp"
#include "inferlint/core/catalog.hpp"
#include "inferlint/core/result.hpp"

#include "inferlint/core/catalog.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path report_scratch(const std::string& name) {
    auto dir = testsupport::scratch_dir("cli-report") / name;
    fs::create_directories(dir);
    return dir;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::size_t lines_in(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The (tripwire, status) of each finding on a page, sorted.
std::multiset<std::pair<std::string, std::string>> page_verdicts(const std::string& html) {
    const std::string li = "<li class=\"finding ", tw = "<span class=\"tw\">";
    std::multiset<std::pair<std::string, std::string>> out;
    for (auto at = html.find(li); at != std::string::npos; at = html.find(li, at + 1)) {
        auto status_end = html.find('"', at + li.size());
        auto tw_at = html.find(tw, at);
        if (status_end == std::string::npos || tw_at == std::string::npos) break;
        auto tw_end = html.find('<', tw_at + tw.size());
        out.insert({html.substr(tw_at + tw.size(), tw_end - tw_at - tw.size()),
                    html.substr(at + li.size(), status_end - at - li.size())});
    }
    return out;
}

// T1-T15, the codes the Python tool's golden outputs know.
bool is_reference_code(const std::string& code) {
    auto id = inferlint::tripwire_id(code);
    return id && static_cast<int>(*id) <= 15;
}

// The report's terminal text without the verdict lines of tripwires past T15 and without
// the summary line that counts them.
std::string without_added(const std::string& text) {
    static const std::regex verdict(R"(^\[ ?(T[0-9]+)\] )");
    static const std::regex summary(R"(^[0-9]+ checks \(.* -> )");
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, verdict) && !is_reference_code(m[1].str())) continue;
        if (std::regex_search(line, summary)) continue;
        out += line + "\n";
    }
    return out;
}

// The summary line's counts for every verdict the report gave ("10 checks (9 pass, 1 warn)").
std::string counts_line(const json& results) {
    std::vector<inferlint::CheckResult> rs;
    for (const auto& x : results) {
        inferlint::CheckResult r;
        const std::string st = x["status"].get<std::string>();
        for (auto s : {inferlint::Status::pass, inferlint::Status::warn, inferlint::Status::fail,
                       inferlint::Status::unknown, inferlint::Status::not_applicable})
            if (inferlint::status_value(s) == st) r.status = s;
        rs.push_back(r);
    }
    return inferlint::counts_summary(rs) + " -> ";
}

}  // namespace

TEST_CASE("report: every golden case gives the Python tool's verdicts, evidence and lines", "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    auto golden = testsupport::reference_golden();
    REQUIRE(golden);
    int cases = 0;
    for (const auto& entry : fs::directory_iterator(*golden)) {
        std::string stem = entry.path().stem().string();
        if (stem.rfind("report__", 0) != 0) continue;
        json c = json::parse(inferlint::util::read_file(entry.path()));
        if (c.contains("mutations")) continue;
        INFO(stem);
        fs::path tmp = report_scratch("golden");
        std::vector<std::string> args;
        for (std::string a : c["argv"]) {
            if (auto at = a.find("{TMP}"); at != std::string::npos) a.replace(at, 5, tmp.string());
            args.push_back(a);
        }
        // run where the Python tool ran, in the fixtures folder, so paths in evidence agree
        const std::string in_root = "cd " + testsupport::shell_quote(root.string()) + " && " + testsupport::kGoldenEnv;
        // the terminal's lines, as the Python tool printed them
        auto text = testsupport::run_cli(args, in_root);
        CHECK(text.rc == c["text_exit"].get<int>());
        std::string want = c["text"].get<std::string>();
        std::string got = text.out;
        for (auto at = got.find(tmp.string()); at != std::string::npos; at = got.find(tmp.string()))
            got.replace(at, tmp.string().size(), "{TMP}");
        // This project's tripwires add their verdicts (and count them in the summary line)
        // after the reference's fifteen; everything else is the reference's, unchanged.
        CHECK(without_added(got) == without_added(want));
        // --json: verdicts and evidence
        args.push_back("--json");
        auto r = testsupport::run_cli(args, in_root);
        CHECK(r.rc == c["exit"].get<int>());
        json all = json::parse(r.out);
        json ours = json::array();
        for (const auto& x : all)
            if (is_reference_code(x["tripwire"].get<std::string>())) ours.push_back(x);
        CHECK(has(got, counts_line(all)));
        json ref = c["json"];
        REQUIRE(ours.size() == ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) {
            CHECK(ours[i]["tripwire"] == ref[i]["tripwire"]);
            CHECK(ours[i]["status"] == ref[i]["status"]);
            CHECK(testsupport::json_differ(ours[i]["evidence"], ref[i]["evidence"]) == "");
        }
        // the page shows the same verdicts as the terminal
        std::string html = inferlint::util::read_file(tmp / "report.html");
        std::multiset<std::pair<std::string, std::string>> want_verdicts;
        for (const auto& x : all)
            want_verdicts.emplace(x["tripwire"].get<std::string>(), x["status"].get<std::string>());
        CHECK(page_verdicts(html) == want_verdicts);
        ++cases;
    }
    CHECK(cases == 16);
}

TEST_CASE("report: a run folder is read by name and gets its page", "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    fs::path folder = report_scratch("run");
    fs::copy(root / "sglang-0.5/qwen3-8b", folder, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(folder))
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    auto r = testsupport::run_cli({"report", folder.string(), "--tripwires", "all"});
    CHECK(r.rc == 0);
    REQUIRE(fs::is_regular_file(folder / "report.html"));
    // the result file was found: T15 ran, and the concurrency came from it
    CHECK(has(r.out, "[T15] PASS  client and server agree: 32 requests"));
    CHECK(has(r.out, "requested 32 concurrent"));
    CHECK(has(r.out, "What limited this run:\n  - The KV cache was too small for the load."));
    std::string tail = "-> " + (folder / "report.html").string() + "\n";
    CHECK(r.out.size() > tail.size());
    CHECK(r.out.substr(r.out.size() - tail.size()) == tail);
    std::string made = inferlint::util::read_file(folder / "report.html");
    CHECK(has(made, "boot.log, before.snapshot.json, after.snapshot.json, run.series.jsonl, bench.json"));
    CHECK(has(made, "29 of them fit."));
    CHECK(has(made, "11 passed; 1 does not apply to SGLang</summary>"));  // T16, T17, T18, T20 and T22 among them
    CHECK(has(r.out, "[T18] PASS  the load tool's 32,000 output tokens agree with the server's 32,000"));
}

TEST_CASE("report: files named on the command line, and the output folder made", "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    fs::path live = root / "vllm-0.28/live";
    fs::path out = report_scratch("named") / "runs" / "today" / "r.html";
    auto r = testsupport::run_cli({"report", "-o", out.string(), "--boot-log", (live / "boot.log").string(), "--before",
                                   (live / "before.snapshot.json").string(), "--after",
                                   (live / "after.snapshot.json").string(), "--series",
                                   (live / "run.series.jsonl").string(), "--requested", "32", "--tripwires", "all"});
    CHECK(r.rc == 0);
    CHECK(has(r.out, "12 checks (8 pass, 2 warn, 2 tripwire-failed)"));  // T16, T17, T20 and T22 pass
    REQUIRE(fs::is_regular_file(out));
    CHECK(fs::file_size(out) > 50'000);
    CHECK(
        has(inferlint::util::read_file(out), "boot.log, before.snapshot.json, after.snapshot.json, run.series.jsonl"));
    // a boot log alone: the page says what it could not check
    fs::path only = report_scratch("only") / "r.html";
    auto b = testsupport::run_cli(
        {"report", "-o", only.string(), "--boot-log", (live / "boot.log").string(), "--tripwires", "all"});
    CHECK(b.rc == 0);
    std::string html = inferlint::util::read_file(only);
    CHECK(has(html, fmt::format("5 of {}. Not here: T1, T10 and T16 (need before and after readings)",
                                inferlint::tripwires().size())));
    CHECK_FALSE(has(html, "<figure class=\"chart\" id=\"fig-requests\""));
}

TEST_CASE("report: bad input gets one line naming it, and exit 2", "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    auto none = testsupport::run_cli({"report"});
    CHECK(none.rc == 2);
    CHECK(has(none.err, "give a run folder, or -o"));
    fs::path tmp = report_scratch("bad");
    auto missing = testsupport::run_cli({"report", (tmp / "nope").string()});
    CHECK(missing.rc == 2);
    CHECK(has(missing.err, "is not a folder"));
    auto file = testsupport::run_cli({"report", (root / "vllm-0.28/live/boot.log").string()});
    CHECK(file.rc == 2);
    CHECK(has(file.err, "is not a folder"));
    auto empty = testsupport::run_cli({"report", tmp.string()});
    CHECK(empty.rc == 2);
    CHECK(has(empty.err, "no run files in"));
    CHECK(has(empty.err, "boot.log"));
    CHECK_FALSE(fs::exists(tmp / "report.html"));

    fs::path garbage = report_scratch("garbage");
    inferlint::util::write_file(garbage / "before.snapshot.json", "this is not json\n");
    fs::copy_file(root / "vllm-0.28/live/after.snapshot.json", garbage / "after.snapshot.json");
    auto g = testsupport::run_cli({"report", garbage.string()});
    CHECK(g.rc == 2);
    CHECK(has(g.err, "before.snapshot.json"));
    CHECK(lines_in(g.err) == 1);

    fs::path binary = report_scratch("binary");
    inferlint::util::write_file(binary / "boot.log", std::string("\x7f"
                                                                 "ELF\0\0\0\x01",
                                                                 8));
    auto bin = testsupport::run_cli({"report", binary.string()});
    CHECK(bin.rc == 2);
    CHECK(has(bin.err, "boot.log"));
    CHECK(lines_in(bin.err) == 1);

    fs::path live = root / "vllm-0.28/live";
    fs::path bench = report_scratch("bench") / "bench.json";
    inferlint::util::write_file(bench, "{\"completed\": ");
    auto truncated = testsupport::run_cli({"report", "-o", (bench.parent_path() / "r.html").string(), "--before",
                                           (live / "before.snapshot.json").string(), "--after",
                                           (live / "after.snapshot.json").string(), "--bench-result", bench.string()});
    CHECK(truncated.rc == 2);
    CHECK(has(truncated.err, "bench.json"));
    CHECK(lines_in(truncated.err) == 1);
}

TEST_CASE("report: files from different engines are refused", "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    fs::path out = report_scratch("mixed") / "r.html";
    auto snaps = testsupport::run_cli({"report", "-o", out.string(), "--before",
                                       (root / "vllm-0.28/live/before.snapshot.json").string(), "--after",
                                       (root / "sglang-0.5/live/after.snapshot.json").string()});
    CHECK(snaps.rc == 2);
    CHECK(has(snaps.err, "vLLM"));
    CHECK(has(snaps.err, "SGLang"));
    auto series = testsupport::run_cli({"report", "-o", out.string(), "--before",
                                        (root / "vllm-0.28/live/before.snapshot.json").string(), "--after",
                                        (root / "vllm-0.28/live/after.snapshot.json").string(), "--series",
                                        (root / "sglang-0.5/live/run.series.jsonl").string()});
    CHECK(series.rc == 2);
    CHECK(has(series.err, "run.series.jsonl"));
    auto named =
        testsupport::run_cli({"report", (root / "vllm-0.28/live").string(), "-o", out.string(), "--engine", "sglang"});
    CHECK(named.rc == 2);
    CHECK(has(named.err, "--engine sglang"));
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("report: in a real browser nothing from a log executes and the script runs clean",
          "[report][cli][browser][shared]") {
    REQUIRE_REFERENCE(root);
    // Run by the browser shard only where Chromium is installed (tests/shard.sh).
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) FAIL("chromium is not installed");
    fs::path dir = report_scratch("browser");
    std::string log = inferlint::util::read_file(root / "vllm-0.28/live/boot.log");
    const std::string model = "/models/Qwen3.8-27B-W4A16-AutoRound'";
    for (auto at = log.find(model); at != std::string::npos; at = log.find(model))
        log.replace(at, model.size(),
                    "/models/<script>document.title=\"pwned\"</script>\"><img src=x onerror=alert(1)>'");
    inferlint::util::write_file(dir / "boot.log", log);
    for (const char* f : {"before.snapshot.json", "after.snapshot.json", "run.series.jsonl"})
        fs::copy_file(root / "vllm-0.28/live" / f, dir / f);
    auto r = testsupport::run_cli({"report", dir.string(), "--requested", "32", "--title", "<b>bold</b>"});
    REQUIRE(r.rc == 0);
    fs::path profile = report_scratch("profile");
    fs::path dom = dir / "dom.html", errs = dir / "chromium.log";
    std::string cmd =
        "timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run "
        "--disable-background-networking --disable-component-update --disable-sync "
        "--host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 --user-data-dir=" +
        testsupport::shell_quote(profile.string()) + " --virtual-time-budget=3000 --dump-dom " +
        testsupport::shell_quote("file://" + (dir / "report.html").string()) + " >" +
        testsupport::shell_quote(dom.string()) + " 2>" + testsupport::shell_quote(errs.string());
    int rc = std::system(cmd.c_str());
    REQUIRE(rc == 0);
    std::string page = inferlint::util::read_file(dom);
    std::string console = inferlint::util::read_file(errs, inferlint::util::AllowEmpty::yes);
    CHECK(has(page, "data-js=\"ready\""));  // report.js ran to its end
    CHECK_FALSE(has(page, "<img"));         // the log's markup stayed text
    CHECK(has(page, "&lt;img src=x onerror=alert(1)&gt;"));
    CHECK(has(page, "<title>&lt;b&gt;bold&lt;/b&gt;</title>"));
    // no console error, and no request refused by the page's policy (nothing tried to leave)
    INFO(console);
    CHECK_FALSE(has(console, "Uncaught"));
    CHECK_FALSE(has(console, "Refused to"));
    CHECK_FALSE(has(console, ":ERROR:CONSOLE"));

    // A screenshot at a phone's 360 px: the page lays out and paints (a PNG of that width).
    fs::path shot = dir / "report-360.png";
    std::string snap =
        "timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run "
        "--disable-background-networking --disable-component-update --disable-sync "
        "--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir=" +
        testsupport::shell_quote(profile.string()) +
        " --window-size=360,2400 --screenshot=" + testsupport::shell_quote(shot.string()) + " " +
        testsupport::shell_quote("file://" + (dir / "report.html").string()) + " >/dev/null 2>&1";
    REQUIRE(std::system(snap.c_str()) == 0);
    REQUIRE(fs::is_regular_file(shot));
    std::string png = inferlint::util::read_file(shot);
    REQUIRE(png.size() > 24);
    CHECK(png.substr(1, 3) == "PNG");
    auto be32 = [&](std::size_t at) {
        return (static_cast<unsigned>(static_cast<unsigned char>(png[at])) << 24) |
               (static_cast<unsigned>(static_cast<unsigned char>(png[at + 1])) << 16) |
               (static_cast<unsigned>(static_cast<unsigned char>(png[at + 2])) << 8) |
               static_cast<unsigned>(static_cast<unsigned char>(png[at + 3]));
    };
    CHECK(be32(16) == 360);     // IHDR width
    CHECK(png.size() > 20000);  // a painted page, not a blank one
}

TEST_CASE("report: the simulator's recordings give the figures the simulator knows", "[report][cli]") {
    fs::path sim = testsupport::own_fixtures() / "vllm-sim";
    json truth = json::parse(inferlint::util::read_file(sim / "preempted/truth.json"));
    fs::path out = report_scratch("sim") / "r.html";
    auto r = testsupport::run_cli({"report", (sim / "preempted").string(), "-o", out.string(), "--json"});
    CHECK(r.rc == 0);
    json results = json::parse(r.out);
    std::map<std::string, json> by;
    for (const auto& x : results) by[x["tripwire"]] = x;
    REQUIRE(by.count("T1"));
    CHECK(by["T1"]["status"] == "fail");
    CHECK(by["T1"]["evidence"]["preemptions"].get<double>() == truth["preemptions"].get<double>());
    CHECK(by["T14"]["evidence"]["inferred_usable_blocks"] == truth["usable_blocks"]);
    CHECK(by["T8"]["evidence"]["peak_running"].get<double>() == truth["peak_running"].get<double>());
    CHECK(by["T15"]["status"] == "pass");
    std::string html = inferlint::util::read_file(out);
    CHECK(has(html, "<div class=\"tile-value\">22</div>"));
    CHECK(has(html, fmt::format("<div class=\"tile-value\">{} of 16</div>", truth["peak_running"].get<int>())));
    auto healthy = testsupport::run_cli({"report", (sim / "healthy").string(), "-o", out.string()});
    CHECK(healthy.rc == 0);
    CHECK(has(healthy.out, "The KV cache held the whole load."));
    CHECK_FALSE(has(healthy.out, "TRIPWIRE-FAILED"));
}

TEST_CASE("report: --requested 0 or below is exit 2 before anything is written", "[report][cli]") {
    const fs::path run = testsupport::own_fixtures() / "vllm-sim" / "preempted";
    testsupport::TempDir dir("report-requested");
    const fs::path out = dir.path / "r.html";
    for (const char* n : {"0", "-3"}) {
        auto r = testsupport::run_cli({"report", run.string(), "-o", out.string(), "--requested", n});
        INFO(r.err);
        CHECK(r.rc == 2);
        CHECK(r.err.rfind("inferlint: --requested: must be a whole number above 0", 0) == 0);
        CHECK_FALSE(fs::exists(out));
    }
    auto ok = testsupport::run_cli({"report", run.string(), "-o", out.string(), "--requested", "16", "--json"});
    CHECK(ok.rc == 0);
    CHECK(ok.out.find("\"T8\"") != std::string::npos);
}

TEST_CASE("report: by default every tripwire; --tripwires reference (or INFERLINT_TRIPWIRES) the Python tool's fifteen",
          "[report][cli][shared]") {
    REQUIRE_REFERENCE(root);
    fs::path live = root / "vllm-0.28/live";
    const fs::path page = report_scratch("default") / "r.html";
    const std::vector<std::string> base{"report",
                                        "-o",
                                        page.string(),
                                        "--boot-log",
                                        (live / "boot.log").string(),
                                        "--before",
                                        (live / "before.snapshot.json").string(),
                                        "--after",
                                        (live / "after.snapshot.json").string(),
                                        "--json"};
    auto all = testsupport::run_cli(base, "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES ");
    REQUIRE(all.rc == 0);
    json got = json::parse(all.out);
    CHECK(std::any_of(got.begin(), got.end(), [](const json& r) { return r["tripwire"] == "T16"; }));
    CHECK(std::any_of(got.begin(), got.end(), [](const json& r) { return r["tripwire"] == "T17"; }));
    // The page's "Not here" gives true reasons: T18 needs the load's result, which is not given.
    CHECK_THAT(util::read_file(page), Catch::Contains("T15 and T18 (need the load tool"));
    auto args = base;
    args.insert(args.end(), {"--tripwires", "reference"});
    for (const auto& reference :
         {testsupport::run_cli(args, "env -u INFERLINT_ENGINE -u INFERLINT_TRIPWIRES "),
          testsupport::run_cli(base, "env -u INFERLINT_ENGINE INFERLINT_TRIPWIRES=reference ")}) {
        REQUIRE(reference.rc == 0);
        json fifteen = json::parse(reference.out);
        CHECK(fifteen.size() < got.size());
        for (const auto& r : fifteen)
            CHECK(*inferlint::tripwire_id(r["tripwire"].get<std::string>()) <= inferlint::TripwireId::T15);
        // A tripwire left out is said to be left out, not to need something the run has.
        CHECK_THAT(util::read_file(page), Catch::Contains("T16, T17, T18, T19, T20, T21 and T22 (left out by --tripwires)"));
    }
}
