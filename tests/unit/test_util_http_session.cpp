// The HTTP client's session: a kept connection, what the server's close and drops mean, and
// which requests go again. Each test starts its own raw server on 127.0.0.1.
#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include "http_raw.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace inferlint;
using namespace httptest;

TEST_CASE("a session keeps its connection between GETs until the server says close", "[http]") {
    HttpTestServer s;
    std::mutex m;
    std::vector<int> ports;
    std::string connection;
    s.svr.set_keep_alive_max_count(3);  // the third answer on a connection says "Connection: close"
    s.svr.Get("/metrics", [&](const httplib::Request& q, httplib::Response& r) {
        std::lock_guard<std::mutex> lock(m);
        ports.push_back(q.remote_port);
        connection = q.get_header_value("Connection");
        r.set_content("n " + std::to_string(ports.size()), "text/plain");
    });
    s.start();
    util::HttpSession session;
    for (int i = 1; i <= 7; ++i) CHECK(session.get_text(s.url("/metrics")) == "n " + std::to_string(i));
    {
        std::lock_guard<std::mutex> lock(m);
        CHECK(connection == "keep-alive");
        REQUIRE(ports.size() == 7);
        CHECK(ports[0] == ports[1]);
        CHECK(ports[1] == ports[2]);
        CHECK(ports[3] != ports[2]);  // closed by the server after three: a new one
        CHECK(ports[3] == ports[5]);
        CHECK(ports[6] != ports[5]);
        ports.clear();
    }
    // Without a session, a connection per request, closed by the client.
    for (int i = 0; i < 2; ++i) util::get_text(s.url("/metrics"));
    std::lock_guard<std::mutex> lock(m);
    REQUIRE(ports.size() == 2);
    CHECK(ports[0] != ports[1]);
    CHECK(connection == "close");
}

TEST_CASE("a kept connection the server dropped is replaced, and the request it left unanswered goes again", "[http]") {
    RawSequence server({
        [](int c) {
            read_request(c);
            answer_ok(c, "one");
            read_request(c);  // closed without an answer, as a server's idle timeout does
        },
        [](int c) {
            read_request(c);
            answer_ok(c, "two");  // and closed: seen before the next request, or as it is sent
        },
        [](int c) {
            read_request(c);
            answer_ok(c, "three");
        },
    });
    util::HttpSession session;
    CHECK(session.get_text(server.url("/metrics")) == "one");
    CHECK(session.get_text(server.url("/metrics")) == "two");
    CHECK(server.accepted == 2);
    CHECK(session.get_text(server.url("/metrics")) == "three");
    CHECK(server.accepted == 3);
}

TEST_CASE("a kept connection that goes silent is the server's answer, not sent again", "[http]") {
    std::atomic<bool> release{false};
    RawSequence server({
        [&](int c) {
            read_request(c);
            answer_ok(c, "one");
            read_request(c);
            while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        },
        [](int c) { answer_ok(c, "never asked"); },
    });
    util::HttpSession session;
    util::HttpLimits limits;
    limits.read_s = 0.3;
    CHECK(session.get_text(server.url("/metrics"), limits) == "one");
    CHECK_THROWS_WITH(session.get_text(server.url("/metrics"), limits), Catch::Contains("no answer within 0.3 s"));
    CHECK(server.accepted == 1);
    release = true;
}
