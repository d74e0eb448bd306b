#include "report_inputs.hpp"
#include "support.hpp"

#include "inferlint/core/catalog.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/report/svgchart.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <regex>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace inferlint;
using namespace inferlint::report;
using inferlint::parse::StampTrail;
using testsupport::build_report;
using testsupport::ReportInputs;

namespace {

Report live_report(const fs::path& root) {
    fs::path live = root / "vllm-0.28/live";
    ReportInputs in;
    in.boot_logs = {live / "boot.log"};
    in.before = load_snapshot(live / "before.snapshot.json");
    in.after = load_snapshot(live / "after.snapshot.json");
    in.series = read_series(live / "run.series.jsonl");
    in.requested = 32;
    in.title = "Live run";
    return build_report(std::move(in));
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

bool page_has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Every element closed in order (void HTML elements and self-closed SVG ones aside); the
// contents of <script> and <style> are skipped. Returns the first problem, or "".
std::string unbalanced(const std::string& html) {
    static const std::set<std::string> kVoid{"meta", "br",   "hr",   "img",    "input", "link",
                                             "col",  "area", "base", "source", "wbr"};
    std::vector<std::string> stack;
    std::size_t i = 0;
    while ((i = html.find('<', i)) != std::string::npos) {
        if (html.compare(i, 9, "<!doctype") == 0) {
            i = html.find('>', i);
            continue;
        }
        std::size_t end = html.find('>', i);
        if (end == std::string::npos) return "unterminated tag";
        std::string tag = html.substr(i + 1, end - i - 1);
        bool closing = !tag.empty() && tag[0] == '/';
        bool self = !tag.empty() && tag.back() == '/';
        std::string name;
        for (std::size_t k = closing ? 1 : 0; k < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[k]))); ++k)
            name += static_cast<char>(std::tolower(static_cast<unsigned char>(tag[k])));
        if (name.empty()) return "odd tag <" + tag.substr(0, 20) + ">";
        if (closing) {
            if (stack.empty() || stack.back() != name) return "unexpected </" + name + ">";
            stack.pop_back();
        } else if (!self && !kVoid.count(name)) {
            stack.push_back(name);
            if (name == "script" || name == "style") {
                std::size_t close = html.find("</" + name + ">", end);
                if (close == std::string::npos) return "unclosed " + name;
                end = close - 1;
            }
        }
        i = end + 1;
    }
    return stack.empty() ? "" : "left open: " + stack.back();
}

fs::path report_scratch_dir() {
    static const fs::path dir = testsupport::scratch_dir("report");
    return dir;
}

}  // namespace

TEST_CASE("report: the live run gets every check its files allow", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = live_report(root);
    std::map<TripwireId, Status> got;
    for (const auto& r : rep.results) got[r.tripwire] = r.status;
    CHECK(got == std::map<TripwireId, Status>{{TripwireId::T12, Status::pass},
                                              {TripwireId::T5, Status::warn},
                                              {TripwireId::T6, Status::pass},
                                              {TripwireId::T17, Status::pass},
                                              {TripwireId::T1, Status::fail},
                                              {TripwireId::T10, Status::pass},
                                              {TripwireId::T14, Status::pass},
                                              {TripwireId::T9, Status::warn},
                                              {TripwireId::T8, Status::fail},
                                              {TripwireId::T16, Status::pass},
                                              {TripwireId::T20, Status::pass},
                                              {TripwireId::T22, Status::pass}});
    CHECK(rep.usable_blocks == 42);
    CHECK(rep.engine->id == EngineId::vllm);
    CHECK(rep.title == "Live run");
}

TEST_CASE("report: the summary says what happened", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = live_report(root);
    const Summary& sm = rep.summary;
    CHECK(sm.done() == 32);
    CHECK(sm.finished_with("length") == 32);
    CHECK(sm.finished_with("error") == 0);
    CHECK(sm.output_tokens == 32000);
    CHECK(sm.prompt_tokens == 2819);
    CHECK(sm.preemptions == 22);
    CHECK(sm.peak_running == 10);
    CHECK(sm.interval_s == 0.25);
    REQUIRE(sm.span_s);
    CHECK(*sm.span_s == Approx(93.72).margin(0.01));
    REQUIRE(sm.mean_queue_s);
    CHECK(*sm.mean_queue_s == Approx(936.91 / 32).margin(0.01));
    CHECK(sm.boot_s == 124.0);  // 17:48:43 to 17:50:47, the last stamped line up to ready
    std::string html = render_report_html(rep);
    CHECK(page_has(html, "The load tool kept 32 requests open for 1 min 34 s."));
    CHECK(page_has(html, "finished 32 requests with no errors and generated 32,000 tokens"));
    CHECK(page_has(html, "never worked on more than 10 at once"));
    CHECK(page_has(html, "32,000 (1,000 per request)"));
    CHECK(page_has(html, "32: 32 reached their token limit, no errors"));
    CHECK(page_has(html, "1 min 34 s (93.7 s), from the before to the after reading"));
    CHECK(
        page_has(html, fmt::format("12 of {}. Not here: T2 and T3 (run at clean-up), T4 and T11 (need two or more boot "
                                   "logs), T7 (needs a live server), T13 (a rule for test scripts), T15 and T18 (need "
                                   "the load tool&#x27;s result file), T19 (needs xray&#x27;s GPU recording)",
                                   tripwires().size())));
}

TEST_CASE("report: the page shows the run's key figures", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    std::string html = render_report_html(live_report(root));
    CHECK(page_has(html, "<div class=\"tile-value\">341.4</div>"));  // T10's tokens/s
    CHECK(page_has(html, "over 93.7 s"));
    CHECK(page_has(html, "341.44 tokens/s over 93.720s"));              // T10 in full
    CHECK(page_has(html, "<div class=\"tile-value\">22</div>"));        // preemptions
    CHECK(page_has(html, "<div class=\"tile-value\">10 of 32</div>"));  // ran at once
    CHECK(page_has(html, "<div class=\"tile-value\">42</div>"));        // usable blocks
    CHECK(page_has(html, "43 reported, one held back; 784 tokens per block"));
    CHECK(page_has(html, "784-token units"));
    CHECK(page_has(html, "26,093-token KV pool"));
    CHECK(page_has(html, "The reading moves in steps of 1/42"));
}

TEST_CASE("report: the page is well formed and fetches nothing", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    std::string html = render_report_html(live_report(root));
    CHECK(unbalanced(html).empty());
    INFO(unbalanced(html));
    std::regex external(R"re((src|href)="(https?:)?//)re");
    CHECK_FALSE(std::regex_search(html, external));
    CHECK_FALSE(page_has(html, "@import"));
    CHECK_FALSE(page_has(html, "url(http"));
    CHECK(page_has(html, "Content-Security-Policy"));
    CHECK(page_has(html, "<link rel=\"icon\" href=\"data:image/svg+xml,"));
    CHECK(occurrences(html, "data-theme-toggle") == 1 + occurrences(html, "[data-theme-toggle]"));
    CHECK(page_has(html, "inferlint-theme"));
    CHECK(page_has(html, ":root{"));
    CHECK(page_has(html, ":root[data-theme=\"dark\"]"));
}

TEST_CASE("report: charts, each with a data table", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = live_report(root);
    std::string html = render_report_html(rep);
    std::regex fig(R"re(<figure class="chart" id="([^"]+)")re");
    std::vector<std::string> ids;
    for (std::sregex_iterator it(html.begin(), html.end(), fig), end; it != end; ++it) ids.push_back((*it)[1]);
    // a hybrid model: no cache-against-load chart, whose token arithmetic does not apply
    CHECK(ids == std::vector<std::string>{"fig-requests", "fig-kv", "fig-tput", "fig-levels", "fig-memory"});
    CHECK(occurrences(html, "<details><summary>Data table</summary>") == 5);
    CHECK(occurrences(html, "class=\"chart-data\"") == 3);
    CHECK(page_has(html, "How many requests ran at once, and for how long"));
    CHECK(page_has(html, "but the server never ran more than 10."));
}

TEST_CASE("report: preemption markers add up to the counter", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    std::string html = render_report_html(live_report(root));
    std::regex ev(R"re(<path class="ev"[^>]*><title>(\d+) preemptions? at)re");
    int total = 0;
    for (std::sregex_iterator it(html.begin(), html.end(), ev), end; it != end; ++it) total += std::stoi((*it)[1]);
    CHECK(total / 2 == 22);  // the same events on two charts
}

TEST_CASE("report: every finding, the whole guide and both glossaries render", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = live_report(root);
    std::string html = render_report_html(rep);
    for (const auto& r : rep.results)
        CHECK(page_has(html, "<span class=\"tw\">" + std::string(code(r.tripwire)) + "</span>"));
    for (const auto& t : tripwires()) CHECK(page_has(html, report::svg::escape_html(t.name)));
    for (const char* label : {"Tripwire failed", "Warning", "Pass", "Can't tell", "Does not apply"})
        CHECK(page_has(html, std::string("</svg>") + label + "</span>"));
    CHECK(occurrences(html, "<details class=\"gloss\"") == 3);
    for (const char* term : {"Token", "KV cache", "KV pool", "KV block", "Preemption", "Concurrency"})
        CHECK(page_has(html, std::string("<dt>") + term + "</dt>"));
    CHECK(page_has(html, "The server worked; the failed tripwires are about the measurement."));
    CHECK(page_has(html, "The server finished 32 requests with no errors."));
    CHECK(page_has(html, "8 passed</summary>"));
    // "what limited" first, before the account of the run
    CHECK(html.find("id=\"h-limits\"") < html.find("id=\"h-happened\""));
}

TEST_CASE("report: errors in the counters change the account", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Report rep = live_report(root);
    const std::string marker = "finished_reason=\"error\",model_name=\"qwen38\"} 0.0";
    REQUIRE(page_has(rep.after->text, marker));
    Snapshot broken;  // a fresh one: a copy would share the parsed metrics
    broken.url = rep.after->url;
    broken.text = rep.after->text;
    broken.text.replace(broken.text.find(marker), marker.size(), marker.substr(0, marker.size() - 3) + "3.0");
    broken.t_wall = rep.after->t_wall;
    broken.t_mono_ns = rep.after->t_mono_ns;
    broken.latency_s = rep.after->latency_s;
    ReportInputs in;
    in.before = rep.before;
    in.after = broken;
    in.series = rep.series;
    in.requested = 32;
    Report rep2 = build_report(std::move(in));
    std::string html = render_report_html(rep2);
    CHECK(rep2.summary.finished_with("error") == 3);
    CHECK(page_has(html, "(3 of them with an error)"));
    CHECK_FALSE(page_has(html, "with no errors"));
}

TEST_CASE("report: a crash tripwire says the server failed", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    ReportInputs in;
    in.boot_logs = {root / "vllm-0.28/boot_fail_accelerator.log"};
    std::string html = render_report_html(build_report(std::move(in)));
    CHECK(page_has(html, "T12: the server itself failed."));
}

TEST_CASE("report: a restart between the readings drops the counts", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    ReportInputs in;
    in.before = load_snapshot(root / "vllm-0.28/metrics/restart_before.prom");
    in.after = load_snapshot(root / "vllm-0.28/metrics/restart_after.prom");
    Report rep = build_report(std::move(in));
    CHECK(rep.summary.restarted);
    CHECK_FALSE(rep.summary.done());
    CHECK(page_has(render_report_html(rep), "restarted between the before and after readings"));
    CHECK(rep.result(TripwireId::T1)->status ==
          Status::fail);  // as the Python tool: a restart is a failed run, not a count
}

TEST_CASE("report: two boots get the pool chart and no run charts", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    ReportInputs in;
    in.boot_logs = {root / "vllm-0.28/boot_pool_level_hi.log", root / "vllm-0.28/boot_pool_level_lo.log"};
    Report rep = build_report(std::move(in));
    std::string html = render_report_html(rep);
    CHECK(page_has(html, "KV pool per boot"));
    CHECK_FALSE(page_has(html, "Requests over time"));
    CHECK(rep.result(TripwireId::T4) != nullptr);
    CHECK(page_has(rep.results.front().message, "boot_pool_level_hi.log: "));
}

TEST_CASE("report: no preemptions in the recording, no markers", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    Series s = read_series(root / "vllm-0.28/live/run.series.jsonl");
    for (auto& x : s.samples) x.preemptions = 0.0;
    ReportInputs in;
    in.series = std::move(s);
    in.requested = 32;
    std::string flat = render_report_html(build_report(std::move(in)));
    CHECK(page_has(render_report_html(live_report(root)), "class=\"ev\""));
    CHECK_FALSE(page_has(flat, "class=\"ev\""));
}

TEST_CASE("report: an untested release is flagged", "[report][shared]") {
    REQUIRE_REFERENCE(root);
    std::string log = util::read_file(root / "vllm-0.28/boot_cudagraphs.log");
    REQUIRE(page_has(log, "(v0.28"));
    auto newer = report_scratch_dir() / "boot.log";
    log.replace(log.find("(v0.28"), 6, "(v0.99");
    util::write_file(newer, log);
    ReportInputs tested;
    tested.boot_logs = {root / "vllm-0.28/boot_cudagraphs.log"};
    CHECK_FALSE(page_has(render_report_html(build_report(std::move(tested))), "class=\"version-note\""));
    ReportInputs untested;
    untested.boot_logs = {newer};
    std::string html = render_report_html(build_report(std::move(untested)));
    CHECK(page_has(html, "class=\"version-note\""));
    CHECK(page_has(html, "not a tested version"));
}

TEST_CASE("report: text from a log or a title can never become markup", "[report][security][shared]") {
    REQUIRE_REFERENCE(root);
    std::string log = util::read_file(root / "vllm-0.28/boot_fail_accelerator.log");
    const std::string payload = "<script>alert(1)</script>\"><img src=x onerror=alert(1)>";
    REQUIRE(page_has(log, "device not ready"));
    log.replace(log.find("device not ready"), 16, payload);
    REQUIRE(page_has(log, "/models/Qwen3.8-27B-W4A16-AutoRound'"));
    for (auto at = log.find("/models/Qwen3.8-27B-W4A16-AutoRound'"); at != std::string::npos;
         at = log.find("/models/Qwen3.8-27B-W4A16-AutoRound'"))
        log.replace(at, 36, "/models/<script>alert(2)</script>'");
    auto path = report_scratch_dir() / "evil.boot.log";
    util::write_file(path, log);
    ReportInputs in;
    in.boot_logs = {path};
    in.title = "<script>alert(3)</script>";
    in.sources = {"<img src=x onerror=alert(4)>.json"};
    Report rep = build_report(std::move(in));
    std::string html = render_report_html(rep);
    CHECK_FALSE(page_has(html, "<script>alert"));
    CHECK_FALSE(page_has(html, "<img"));
    CHECK_FALSE(page_has(html, "\"><img"));
    // the text is there, as text
    CHECK(page_has(html, "&lt;img src=x onerror=alert(1)&gt;"));
    CHECK(page_has(html, "<title>&lt;script&gt;alert(3)&lt;/script&gt;</title>"));
    CHECK(page_has(html, "&lt;img src=x onerror=alert(4)&gt;.json"));
    CHECK(unbalanced(html).empty());
}

TEST_CASE("report: a million-sample recording makes a page under 3 MB", "[report][slow]") {
    Series s;
    s.header = Json{
        {"schema", "inferlint.series/1"}, {"url", "http://127.0.0.1:8000"}, {"interval_s", 0.01}, {"engine", "vllm"}};
    s.engine_key = "vllm";
    const long long n = 1'000'000;
    s.samples.reserve(n);
    double gen = 0, pre = 0;
    for (long long i = 0; i < n; ++i) {
        SeriesSample x;
        x.t_wall = 1.7e9 + double(i) * 0.01;
        x.t_mono_ns = i * 10'000'000LL;
        double phase = double(i % 6000) / 6000.0;
        x.running = double(1 + (i / 37) % 12);
        x.waiting = double((i / 101) % 20);
        x.kv_usage = std::min(1.0, double(std::llround(phase * 42)) / 42);
        gen += *x.running;
        x.generation_tokens = gen;
        if (i % 50'000 == 0) pre += 1;
        x.preemptions = pre;
        s.samples.push_back(x);
    }
    ReportInputs in;
    in.series = std::move(s);
    in.requested = 16;
    auto t0 = std::chrono::steady_clock::now();
    Report rep = build_report(std::move(in));
    std::string html = render_report_html(rep);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    WARN("1,000,000 samples: " << html.size() << " bytes in " << secs << " s");
    CHECK(html.size() < 3'000'000);
    CHECK(page_has(html, "of the 1,000,000 readings"));
    CHECK(unbalanced(html).empty());
    // every preemption still marked: 20 of them, on two charts
    std::regex ev(R"re(<path class="ev"[^>]*><title>(\d+) preemptions? at)re");
    int total = 0;
    for (std::sregex_iterator it(html.begin(), html.end(), ev), end; it != end; ++it) total += std::stoi((*it)[1]);
    CHECK(total == 2 * 19);  // the first sample's count is the baseline, not an event
}

namespace {

// The boot time of a whole text, its lines split at '\n' and numbered from 1.
std::optional<double> boot_seconds(std::string_view text, std::optional<long long> ready_lineno) {
    StampTrail trail;
    long long lineno = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = std::min(text.find('\n', pos), text.size());
        trail.line(text.substr(pos, end - pos), ++lineno);
        pos = end + 1;
    }
    return trail.boot_seconds(ready_lineno);
}

}  // namespace

TEST_CASE("report: boot time runs from the first stamp to the last one up to ready", "[report]") {
    std::string log =
        "INFO 09-26 17:48:43 start\nno stamp here\nINFO 09-26 17:50:47 ready\nINFO 09-26 18:00:00 later\n";
    CHECK(boot_seconds(log, 3) == 124.0);
    CHECK_FALSE(boot_seconds(log, std::nullopt));
    CHECK_FALSE(boot_seconds("INFO 12-31 23:59:59 a\nINFO 01-01 00:00:10 b\n", 2));  // across New Year
    CHECK(boot_seconds("x02-29 10:00:00 a\nINFO 02-29 10:00:05 b\n", 2) == 0.0);     // a word before: not a stamp
    CHECK_FALSE(boot_seconds("INFO 13-01 10:00:00 a\n", 1));                         // no 13th month
}

TEST_CASE("report: boot time from a log read in pieces keeps only where the stamp changes", "[report]") {
    StampTrail trail;
    for (long long n = 1; n <= 100000; ++n) trail.line(fmt::format("INFO 09-26 17:{}:00 step", 48 + n / 50000), n);
    CHECK(trail.kept() == 3);  // 17:48, 17:49 and 17:50, not 100,000 lines
    CHECK(trail.boot_seconds(49999) == 0.0);
    CHECK(trail.boot_seconds(50000) == 60.0);
    CHECK(trail.boot_seconds(100000) == 120.0);
    CHECK_FALSE(trail.boot_seconds(std::nullopt));
    StampTrail late;  // no stamp up to the ready line
    late.line("INFO:     Application startup complete.", 1);
    late.line("INFO 09-26 17:48:43 later", 2);
    CHECK_FALSE(late.boot_seconds(1));

    const fs::path dir = testsupport::scratch_dir("report-boot");
    // The ready line lies past the first MiB the log is read in.
    std::string log = "(APIServer pid=1) INFO 09-26 17:48:43 [api_server.py:1] vLLM API server version 0.28.3\n";
    for (int i = 0; i < 20000; ++i)
        log += "(EngineCore pid=2) INFO 09-26 17:49:00 [core.py:1] loading the model, one shard at a time ......\n";
    log +=
        "(APIServer pid=1) INFO 09-26 17:50:47 [launcher.py:1] Route: /v1/completions\n"
        "(APIServer pid=1) INFO:     Application startup complete.\n"
        "(APIServer pid=1) INFO 09-26 18:30:00 [loggers.py:1] serving\n";
    REQUIRE(log.size() > (std::size_t{1} << 20) + 200000);
    util::write_file(dir / "big.log", log);
    ReportInputs big;
    big.boot_logs = {dir / "big.log"};
    Report rep = build_report(std::move(big));
    REQUIRE(rep.boots.size() == 1);
    CHECK(rep.boots.front().second.ready_lineno == 20003);
    CHECK(rep.summary.boot_s == 124.0);
    CHECK(rep.summary.boot_s == boot_seconds(log, 20003));

    // A bare \r breaks a line, for the boot time as for the facts: the ready line is line 3,
    // and the stamp after it is not part of the boot.
    util::write_file(dir / "cr.log",
                     "INFO 09-26 17:48:43 start\rINFO 09-26 17:50:47 loaded\nINFO:     Application startup complete.\n"
                     "INFO 09-26 18:30:00 serving\n");
    ReportInputs cr;
    cr.boot_logs = {dir / "cr.log"};
    Report crep = build_report(std::move(cr));
    CHECK(crep.boots.front().second.ready_lineno == 3);
    CHECK(crep.summary.boot_s == 124.0);
    fs::remove_all(dir);
}
