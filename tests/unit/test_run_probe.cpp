#include "support.hpp"

#include "inferlint/checks/t07_probe.hpp"
#include "inferlint/run/probe.hpp"

#include <httplib.h>

#include <mutex>
#include <thread>

using namespace inferlint;

namespace {

// A mock OpenAI server whose behaviour is known (the Python tool's test server).
struct MockServer {
    enum class Mode { healthy, dies_on_first, dies_under_burst, empty };
    Mode mode;
    int completions = 0;
    bool dead = false;
    std::mutex mu;
    httplib::Server svr;
    int port = 0;
    std::thread th;

    explicit MockServer(Mode m) : mode(m) {
        auto send = [](httplib::Response& res, int code, const Json& doc) {
            res.status = code;
            res.set_content(doc.dump(), "application/json");
        };
        svr.Get("/v1/models", [send](const httplib::Request&, httplib::Response& res) {
            send(res, 200, Json{{"data", Json::array({Json{{"id", "mock-model"}}})}});
        });
        svr.Get("/health", [this, send](const httplib::Request&, httplib::Response& res) {
            std::lock_guard g(mu);
            send(res, dead ? 500 : 200, Json::object());
        });
        svr.Post("/v1/completions", [this, send](const httplib::Request& req, httplib::Response& res) {
            auto body = Json::parse(req.body);
            bool now_dead;
            {
                std::lock_guard g(mu);
                int k = ++completions;
                if (mode == Mode::dies_on_first || (mode == Mode::dies_under_burst && k > 3)) dead = true;
                now_dead = dead;
            }
            if (now_dead) return send(res, 500, Json{{"error", "EngineDeadError"}});
            bool empty = mode == Mode::empty;
            int toks = empty ? 0 : std::min(4, body["max_tokens"].get<int>());
            send(res, 200,
                 Json{{"choices", Json::array({Json{{"text", empty ? "" : "It is sunny."}}})},
                      {"usage", Json{{"completion_tokens", toks}}}});
        });
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
    ~MockServer() {
        svr.stop();
        th.join();
    }
};

}  // namespace

TEST_CASE("probe: a healthy server passes after 1 + N requests", "[probe]") {
    MockServer s(MockServer::Mode::healthy);
    auto r = run::probe(s.url(), {.concurrency = 6});
    CHECK(r.status == Status::pass);
    CHECK(r.message == "1 + 6 concurrent requests served, server alive");
    CHECK(s.completions == 7);
    CHECK(r.evidence["model"] == "mock-model");
    CHECK(r.evidence["first"]["status"] == 200);
    CHECK(r.evidence["first"]["tokens"] == 4);
    CHECK(r.evidence["burst"]["concurrency"] == 6);
    CHECK(r.evidence["burst"]["failed"] == 0);
    CHECK(r.evidence["burst"]["requests"].size() == 6);
    CHECK(r.evidence["alive_after"] == true);
}

TEST_CASE("probe: a server that dies on its first request fails, and is dead after", "[probe]") {
    MockServer s(MockServer::Mode::dies_on_first);
    auto r = run::probe(s.url());
    CHECK(r.status == Status::fail);
    CHECK(r.message == "first request failed: Internal Server Error");
    CHECK(r.evidence["alive_after"] == false);
    CHECK(r.evidence["first"]["status"] == 500);
    CHECK(s.completions == 1);
}

TEST_CASE("probe: a server that dies under the burst fails with the count", "[probe]") {
    MockServer s(MockServer::Mode::dies_under_burst);
    auto r = run::probe(s.url(), {.concurrency = 8});
    CHECK(r.status == Status::fail);
    CHECK(r.evidence["burst"]["failed"].get<int>() >= 1);
    CHECK(r.message.ends_with("/8 burst requests failed"));
}

TEST_CASE("probe: an empty completion is a failure", "[probe]") {
    MockServer s(MockServer::Mode::empty);
    auto r = run::probe(s.url());
    CHECK(r.status == Status::fail);
    CHECK(r.message == "first request failed: empty completion");
}

TEST_CASE("probe: nothing listening cannot list models", "[probe]") {
    auto r = run::probe("http://127.0.0.1:9", {.concurrency = 1});
    CHECK(r.status == Status::fail);
    CHECK(r.message.starts_with("cannot list models: cannot connect to http://127.0.0.1:9/v1/models"));
}

TEST_CASE("probe verdicts from recorded replies", "[probe]") {
    checks::ProbeReply ok{.ok = true, .status = 200, .seconds = 0.5, .tokens = 16, .error = ""};
    checks::ProbeReply bad{.ok = false, .status = std::nullopt, .seconds = 2.0, .tokens = 0, .error = "reset"};
    checks::ProbeRecord rec{
        .model = "m", .list_error = "", .first = ok, .concurrency = 2, .burst = {ok, ok}, .alive_after = false};
    auto r = checks::probe_verdict(rec);
    CHECK(r.status == Status::fail);
    CHECK(r.message == "server died after burst");
    rec.burst = {ok, bad};
    rec.alive_after = true;
    r = checks::probe_verdict(rec);
    CHECK(r.message == "1/2 burst requests failed");
    CHECK(r.evidence["burst"]["max_seconds"] == 2.0);
    CHECK(r.evidence["burst"]["requests"][1]["status"].is_null());
    rec.burst = {ok, ok};
    CHECK(checks::probe_verdict(rec).status == Status::pass);
    checks::ProbeRecord unlisted{.model = "", .list_error = "HTTP 404 Not Found"};
    CHECK(checks::probe_verdict(unlisted).message == "cannot list models: HTTP 404 Not Found");
}

TEST_CASE("probe command: exit 0 on a healthy server, 1 when it fails", "[probe][cli]") {
    MockServer s(MockServer::Mode::healthy);
    auto r = testsupport::run_cli({"probe", s.url(), "--concurrency", "3", "--json"});
    CHECK(r.rc == 0);
    auto doc = Json::parse(r.out);
    CHECK(doc[0]["tripwire"] == "T7");
    CHECK(doc[0]["status"] == "pass");
    MockServer d(MockServer::Mode::dies_on_first);
    auto f = testsupport::run_cli({"probe", d.url()});
    CHECK(f.rc == 1);
    CHECK(f.out.find("[ T7] TRIPWIRE-FAILED  first request failed") != std::string::npos);
}
