#include "support.hpp"

#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <httplib.h>

#include <map>
#include <thread>

using namespace inferlint;

namespace {

const std::string A = "vllm:x_total{engine=\"0\"} 10\nvllm:x_created{engine=\"0\"} 1000.0\n";

// Clocks that hand out the given readings in turn.
run::Clocks scripted(std::vector<double> walls, std::vector<long long> monos) {
    auto w = std::make_shared<std::vector<double>>(std::move(walls));
    auto m = std::make_shared<std::vector<long long>>(std::move(monos));
    auto wi = std::make_shared<std::size_t>(0), mi = std::make_shared<std::size_t>(0);
    return run::Clocks{.wall = [w, wi] { return (*w)[(*wi)++ % w->size()]; },
                       .mono_ns = [m, mi] { return (*m)[(*mi)++ % m->size()]; }};
}

struct TestServer {
    httplib::Server svr;
    int port = 0;
    std::thread th;
    void start() {
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string base() const { return "http://127.0.0.1:" + std::to_string(port); }
    ~TestServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

std::string snapshot_text(const std::filesystem::path& p) { return load_snapshot(p).text; }

}  // namespace

TEST_CASE("scrape keeps the midpoint of both clocks and the latency (Python's pinned figures)", "[scrape]") {
    std::vector<std::string> asked;
    run::Scraper scraper(
        [&](const std::string& url, double) {
            asked.push_back(url);
            return A;
        },
        scripted({100.0, 100.4}, {1'000'000'000, 1'400'000'000}));
    Snapshot s = scraper.scrape("http://h:8000");
    CHECK(s.url == "http://h:8000/metrics");
    CHECK(s.t_wall == Approx(100.2));
    CHECK(s.t_mono_ns == 1'200'000'000);
    CHECK(s.latency_s.value() == Approx(0.4));
    CHECK(s.text == A);
    CHECK(asked == std::vector<std::string>{"http://h:8000/metrics"});
}

TEST_CASE("a URL typed without scheme, or with /metrics, scrapes /metrics once", "[scrape]") {
    std::vector<std::string> asked;
    run::Scraper scraper([&](const std::string& url, double) { return asked.push_back(url), A; }, run::system_clocks());
    scraper.scrape("127.0.0.1:8000/metrics");
    scraper.scrape("127.0.0.1:8000/");
    CHECK(asked == std::vector<std::string>{"http://127.0.0.1:8000/metrics", "http://127.0.0.1:8000/metrics"});
}

TEST_CASE("/metrics answering JSON: /prometheus/metrics is used and remembered per server", "[scrape]") {
    std::vector<std::string> asked;
    bool moved = false;  // later, another server (vLLM) answers at that address
    run::Scraper scraper(
        [&](const std::string& url, double) -> std::string {
            asked.push_back(url);
            if (moved) {
                if (url.ends_with("/prometheus/metrics")) throw InputError(url + ": HTTP 404 Not Found");
                return A;
            }
            if (url.ends_with("/prometheus/metrics")) return "trtllm_kv_cache_utilization{x=\"1\"} 0.5\n";
            return R"([{"iter": 1}])";
        },
        run::system_clocks());
    Snapshot first = scraper.scrape("http://t:8000");
    CHECK(first.url == "http://t:8000/prometheus/metrics");
    CHECK(first.text.starts_with("trtllm_"));
    Snapshot second = scraper.scrape("http://t:8000");
    CHECK(second.url == "http://t:8000/prometheus/metrics");
    CHECK(asked == std::vector<std::string>{"http://t:8000/metrics", "http://t:8000/prometheus/metrics",
                                            "http://t:8000/prometheus/metrics"});
    moved = true;
    Snapshot third = scraper.scrape("http://t:8000");
    CHECK(third.url == "http://t:8000/metrics");
    CHECK(third.text == A);
    // Another server's remembered path does not leak to this one.
    asked.clear();
    scraper.scrape("http://other:8000");
    CHECK(asked == std::vector<std::string>{"http://other:8000/metrics"});
}

TEST_CASE("served_snapshot says what is wrong in one line, with the engine's hint", "[scrape]") {
    auto serving = [](std::string body) {
        return run::Scraper([body](const std::string&, double) { return body; }, run::system_clocks());
    };
    SECTION("vLLM metrics") {
        auto s = serving("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n");
        auto r = run::served_snapshot("127.0.0.1:8000", nullptr, s);
        REQUIRE(r.snapshot);
        CHECK(r.found == &vllm());
        CHECK(r.error.empty());
    }
    SECTION("an HTML page") {
        auto s = serving("<!DOCTYPE html>\n<html><body>Welcome to nginx!</body></html>\n");
        auto r = run::served_snapshot("127.0.0.1:8000", nullptr, s);
        CHECK_FALSE(r.snapshot);
        CHECK(r.error.starts_with("no vLLM, SGLang or TensorRT-LLM metrics at 127.0.0.1:8000 ("));
        CHECK(r.error.find("--enable-metrics") != std::string::npos);  // every engine's hint
        CHECK(r.error.find('\n') == std::string::npos);
    }
    SECTION("Prometheus text of no engine, with an engine named") {
        auto s = serving("process_open_fds 43.0\n");
        auto r = run::served_snapshot("h:1", &sglang(), s);
        CHECK_FALSE(r.snapshot);
        CHECK(r.error.ends_with(": start SGLang with --enable-metrics"));
    }
    SECTION("an unreachable server") {
        run::Scraper s(
            [](const std::string& url, double) -> std::string { throw InputError("cannot connect to " + url); },
            run::system_clocks());
        auto r = run::served_snapshot("h:1", nullptr, s);
        CHECK(r.error.find("(cannot connect to http://h:1/metrics)") != std::string::npos);
    }
}

TEST_CASE("metrics_hint names what to change", "[scrape]") {
    CHECK(run::metrics_hint(&sglang()) == sglang().metrics_hint);
    std::string all = run::metrics_hint(nullptr);
    CHECK(all.find("for vLLM, ") == 0);
    CHECK(all.find("; for SGLang, start SGLang with --enable-metrics") != std::string::npos);
    CHECK(all.find("enable_iter_perf_stats") != std::string::npos);
}

TEST_CASE("snapshot command against a live server: file, engine, bad answers", "[scrape][cli][shared]") {
    REQUIRE_REFERENCE(root);
    const std::string vllm_text = util::read_file(root / "vllm-0.28" / "live" / "raw_metrics.prom");
    const std::string sglang_text = snapshot_text(root / "sglang-0.5" / "live" / "before.snapshot.json");
    TestServer s;
    std::string body = vllm_text;
    std::string type = "text/plain; version=0.0.4";
    s.svr.Get("/metrics", [&](const httplib::Request&, httplib::Response& r) { r.set_content(body, type.c_str()); });
    s.start();
    auto dir = testsupport::scratch_dir("snap") / "new";

    auto out = dir / "sub" / "before.snapshot.json";
    auto r = testsupport::run_cli({"snapshot", s.base(), "-o", out.string()});
    CHECK(r.rc == 0);
    CHECK(r.out.find(" samples, scrape ") != std::string::npos);
    Snapshot back = load_snapshot(out);
    CHECK(back.url == s.base() + "/metrics");
    CHECK(back.text == vllm_text);
    CHECK(back.latency_s.value() >= 0.0);
    CHECK(back.metrics().total("vllm:num_preemptions_total") == 22.0);

    SECTION("another engine than the one named: exit 2, and what to change") {
        auto e = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "x.json").string(), "--engine", "sglang"});
        CHECK(e.rc == 2);
        CHECK(e.err.find("--engine sglang, but the server at " + s.base() + " runs vLLM") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "x.json"));
    }
    SECTION("SGLang's metrics are told from their names") {
        body = sglang_text;
        auto e = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "s.json").string()});
        CHECK(e.rc == 0);
        auto n = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "s.json").string(), "--engine", "vllm"});
        CHECK(n.rc == 2);
        CHECK(n.err.find("runs SGLang") != std::string::npos);
    }
    SECTION("HTML or junk: exit 2, one line") {
        for (std::string junk :
             {std::string("<html><body>502 Bad Gateway</body></html>"), std::string("\x01\x02garbage{{{ 12\n")}) {
            body = junk;
            auto e = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "j.json").string()});
            CHECK(e.rc == 2);
            CHECK(e.err.starts_with("inferlint: no vLLM, SGLang or TensorRT-LLM metrics at " + s.base()));
            CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
        }
    }
    SECTION("invalid UTF-8 in a label value is kept readable") {
        body = "vllm:num_requests_running{engine=\"0\",model_name=\"m\xff\"} 1.0\n";
        auto e = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "u.json").string()});
        CHECK(e.rc == 0);
        CHECK(load_snapshot(dir / "u.json").text.find("m\xEF\xBF\xBD") != std::string::npos);
    }
    SECTION("nothing listening") {
        s.svr.stop();
        auto e = testsupport::run_cli({"snapshot", s.base(), "-o", (dir / "n.json").string()});
        CHECK(e.rc == 2);
        CHECK(e.err.find(s.base()) != std::string::npos);
        CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    }
    std::filesystem::remove_all(dir);
}
