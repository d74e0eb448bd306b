#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include "http_raw.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace inferlint;
using inferlint::util::parse_base_url;
using namespace httptest;

TEST_CASE("addresses are read as users mean them", "[http]") {
    CHECK(util::normalise_base_url("127.0.0.1:8000") == "http://127.0.0.1:8000");
    CHECK(util::normalise_base_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000");
    CHECK(util::normalise_base_url("  http://localhost:30000/metrics ") == "http://localhost:30000");
    CHECK(util::normalise_base_url("localhost:8000/v1") == "http://localhost:8000");
    CHECK(util::normalise_base_url("http://h:8000/prometheus/metrics") == "http://h:8000");
    CHECK(util::normalise_base_url("HTTP://h:8000/v1/models?x=1") == "http://h:8000");
    CHECK(util::normalise_base_url("http://h") == "http://h:80");
    CHECK(util::normalise_base_url("[::1]:8000") == "http://[::1]:8000");
    auto b = parse_base_url("http://gw:8080/proxy/vllm/metrics");
    CHECK(b.host == "gw");
    CHECK(b.port == 8080);
    CHECK(b.prefix == "/proxy/vllm");
    CHECK(b.at("/metrics") == "http://gw:8080/proxy/vllm/metrics");
}

TEST_CASE("addresses that cannot be used are one-line errors naming them", "[http]") {
    CHECK_THROWS_WITH(parse_base_url("ftp://h:21"), Catch::Contains("ftp://h:21"));
    CHECK_THROWS_AS(parse_base_url(""), InputError);
    CHECK_THROWS_WITH(parse_base_url("http://:8000"), Catch::Contains("no host"));
    CHECK_THROWS_WITH(parse_base_url("h:99999"), Catch::Contains("99999"));
    CHECK_THROWS_WITH(parse_base_url("h:80x"), Catch::Contains("not a port"));
}

TEST_CASE("invalid UTF-8 is replaced as Python's 'replace' does", "[http]") {
    CHECK(util::valid_utf8("plain") == "plain");
    CHECK(util::valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(util::valid_utf8("a\xff"
                           "b") ==
          "a\xEF\xBF\xBD"
          "b");
    CHECK(util::valid_utf8("x\xe2\x82") == "x\xEF\xBF\xBD");                            // truncated: one replacement
    CHECK(util::valid_utf8("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK(util::valid_utf8("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}

TEST_CASE("GET returns status and body; get_text wants 2xx", "[http]") {
    HttpTestServer s;
    s.svr.Get("/ok", [](const httplib::Request&, httplib::Response& r) { r.set_content("hello", "text/plain"); });
    s.svr.Get("/bad", [](const httplib::Request&, httplib::Response& r) {
        r.status = 503;
        r.set_content("busy", "text/plain");
    });
    s.svr.Post("/echo", [](const httplib::Request& q, httplib::Response& r) {
        r.set_content(q.get_header_value("Content-Type") + "|" + q.body, "application/json");
    });
    s.start();
    auto r = util::http_get(s.url("/ok"));
    CHECK(r.status == 200);
    CHECK(r.body == "hello");
    CHECK(util::get_text(s.url("/ok")) == "hello");
    CHECK(util::http_get(s.url("/bad")).status == 503);
    CHECK_THROWS_WITH(util::get_text(s.url("/bad")),
                      Catch::Contains(s.url("/bad")) && Catch::Contains("503 Service Unavailable"));
    CHECK(util::http_get(s.url("/none")).reason() == "Not Found");
    auto p = util::http_post_json(s.url("/echo"), R"({"a":1})");
    CHECK(p.body == R"(application/json|{"a":1})");
}

TEST_CASE("nothing listening: a quick one-line error naming the URL", "[http]") {
    int port;
    {
        RawServer probe_port([](int) {}, false);
        port = probe_port.port;
    }  // closed: nothing listens there now
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
    try {
        util::http_get(url);
        FAIL("no error");
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.find(url) != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
}

TEST_CASE("a server that accepts and never answers times out", "[http]") {
    RawServer silent([](int) {}, false);
    util::HttpLimits limits;
    limits.connect_s = 1;
    limits.read_s = 0.4;
    CHECK_THROWS_WITH(util::http_get(silent.url("/metrics"), limits), Catch::Contains("no answer within 0.4 s"));
}

TEST_CASE("a connection reset mid-body is an error, not a short body", "[http]") {
    RawServer cut([](int c) {
        char buf[4096];
        [[maybe_unused]] auto n = ::recv(c, buf, sizeof buf, 0);
        std::string head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nvllm:num_requests";
        [[maybe_unused]] auto w = ::send(c, head.data(), head.size(), MSG_NOSIGNAL);
    });
    util::HttpLimits limits;
    limits.read_s = 2;
    CHECK_THROWS_AS(util::http_get(cut.url("/metrics"), limits), InputError);
}

TEST_CASE("a body over the cap is refused, not read whole", "[http]") {
    HttpTestServer s;
    s.svr.Get("/big", [](const httplib::Request&, httplib::Response& r) {
        r.set_content(std::string(3 << 20, 'x'), "text/plain");
    });
    s.start();
    util::HttpLimits limits;
    limits.max_body_bytes = 1 << 20;
    CHECK_THROWS_WITH(util::http_get(s.url("/big"), limits), Catch::Contains("larger than 1 MiB"));
    CHECK(util::http_get(s.url("/big")).body.size() == (3u << 20));
}

TEST_CASE("a chunked body is decoded, extensions and trailers skipped, without waiting for close", "[http]") {
    RawServer chunked([](int c) {
        read_request(c);
        int one = 1;
        ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // Pieces cut mid-line and mid-chunk, as a network may deliver them.
        const char* pieces[] = {
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5;name=\"va",
            "l\"\r\nhel",
            "lo\r\n6\r\n world\r",
            "\na\r\n0123456789\r\n0\r\nX-Checksum: abc\r\n",
            "\r\n",
        };
        for (std::string_view piece : pieces) {
            send_text(c, piece);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        wait_for_close(c);  // the answer is complete; the client must not wait for the close
    });
    util::HttpLimits limits;
    limits.read_s = 120;  // a client that waited for the close would meet this ceiling and fail
    auto r = util::http_get(chunked.url("/metrics"), limits);
    CHECK(r.status == 200);
    CHECK(r.body == "hello world0123456789");
    CHECK(r.content_type == "text/plain");
}

TEST_CASE("without Content-Length the body runs until the server closes", "[http]") {
    RawServer closing([](int c) {
        read_request(c);
        send_text(c,
                  "HTTP/1.0 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n\r\n"
                  "vllm:num_requests_running 3\n");
    });
    auto r = util::http_get(closing.url("/metrics"));
    CHECK(r.status == 200);
    CHECK(r.body == "vllm:num_requests_running 3\n");
    CHECK(r.content_type == "text/plain; version=0.0.4");  // header names are case-insensitive
}

TEST_CASE("an interim 100 Continue is skipped for the real answer", "[http]") {
    std::string request;
    {
        RawServer continuing([&request](int c) {
            request = read_request(c);
            send_text(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
        });
        auto r = util::http_post_json(continuing.url("/v1/completions"), R"({"a":1})");
        CHECK(r.status == 201);
        CHECK(r.body == "ok");
    }  // joined: the server has its request
    CHECK(request.rfind("POST /v1/completions HTTP/1.1\r\n", 0) == 0);
    CHECK(request.find("\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}") !=
          std::string::npos);
}

TEST_CASE("a server that does not speak HTTP is said so at once, naming the URL", "[http]") {
    const std::string_view starts[] = {
        "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n",  // another protocol's banner
        "HTTP/1.1 OK\r\n\r\n",                         // a status line without a status
        std::string_view("\x16\x03\x01\x00\x05", 5),   // TLS
    };
    for (std::string_view start : starts) {
        RawServer odd([start](int c) {
            read_request(c);
            send_text(c, start);
            wait_for_close(c);
        });
        util::HttpLimits limits;
        limits.read_s = 120;  // a client that waited for the close would meet this ceiling and fail
        std::string what = http_error_of([&] { util::http_get(odd.url("/metrics"), limits); });
        INFO(what);
        CHECK(what.find(odd.url("/metrics") + ": not an HTTP answer") == 0);
        CHECK(what.find('\n') == std::string::npos);
    }
}

TEST_CASE("headers over 64 KiB are refused", "[http]") {
    RawServer chatty([](int c) {
        read_request(c);
        send_text(c, "HTTP/1.1 200 OK\r\nX-Filler: " + std::string(70000, 'a') + "\r\n\r\n");
        wait_for_close(c);
    });
    std::string what = http_error_of([&] { util::http_get(chatty.url("/metrics")); });
    CHECK(what == chatty.url("/metrics") + ": not an HTTP answer (headers over 64 KiB)");
}

TEST_CASE("a close before Content-Length is reached is an error, not a short body", "[http]") {
    RawServer shortish([](int c) {
        read_request(c);
        send_text(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
    });
    // A close is seen as one: waiting it out as silence would take read_s (the test's ceiling).
    util::HttpLimits limits;
    limits.read_s = 120;
    std::string what = http_error_of([&] { util::http_get(shortish.url("/metrics"), limits); });
    CHECK(what == shortish.url("/metrics") + ": no answer within 120 s, or the connection was closed mid-answer");
}

TEST_CASE("a Content-Length over the cap is refused before reading the body", "[http]") {
    RawServer huge([](int c) {
        read_request(c);
        send_text(c, "HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\nxxxx");
        wait_for_close(c);  // the body never comes: reading it would wait out read_s
    });
    util::HttpLimits limits;
    limits.read_s = 120;  // a client that waited for the close would meet this ceiling and fail
    limits.max_body_bytes = 1 << 20;
    std::string what = http_error_of([&] { util::http_get(huge.url("/metrics"), limits); });
    CHECK(what == huge.url("/metrics") + ": the answer is larger than 1 MiB; is this the server's address?");
}

TEST_CASE("a chunk over the cap is refused before reading it", "[http]") {
    RawServer huge([](int c) {
        read_request(c);
        send_text(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\nxx");
        wait_for_close(c);
    });
    util::HttpLimits limits;
    limits.read_s = 120;  // a client that waited for the close would meet this ceiling and fail
    std::string what = http_error_of([&] { util::http_get(huge.url("/metrics"), limits); });
    CHECK(what == huge.url("/metrics") + ": the answer is larger than 16 MiB; is this the server's address?");
}

TEST_CASE("a steady trickle is cut off at total_s", "[http]") {
    RawServer trickle([](int c) {
        read_request(c);
        send_text(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
        for (int i = 0; i < 100 && send_text(c, "x"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    });
    util::HttpLimits limits;
    limits.read_s = 2;
    limits.total_s = 0.5;
    std::string what = http_error_of([&] { util::http_get(trickle.url("/metrics"), limits); });
    CHECK(what == trickle.url("/metrics") + ": no complete answer within 0.5 s");
}

TEST_CASE("IPv6 loopback: GET http://[::1]:port", "[http]") {
    if (!ipv6_loopback_available()) {
        WARN("skipped: this machine has no IPv6 loopback");
        return;
    }
    std::string request;
    std::string url;
    {
        RawServer v6(
            [&request](int c) {
                request = read_request(c);
                send_text(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
            },
            true, AF_INET6);
        url = v6.url("/metrics?x=1");
        auto r = util::http_get(url);
        CHECK(r.status == 200);
        CHECK(r.body == "hello");
        CHECK(request.rfind("GET /metrics?x=1 HTTP/1.1\r\n", 0) == 0);
        CHECK(request.find("\r\nHost: [::1]:" + std::to_string(v6.port) + "\r\n") != std::string::npos);
    }
}

TEST_CASE("localhost is tried on each of its addresses", "[http]") {
    HttpTestServer s;  // IPv4 only: if localhost is ::1 first, that address is refused and the next one tried
    s.svr.Get("/ok", [](const httplib::Request&, httplib::Response& r) { r.set_content("hello", "text/plain"); });
    s.start();
    auto r = util::http_get("http://localhost:" + std::to_string(s.port) + "/ok");
    CHECK(r.status == 200);
    CHECK(r.body == "hello");
}

TEST_CASE("a large POST body arrives intact, with the request headers", "[http]") {
    std::mutex m;
    std::string seen_headers;
    HttpTestServer s;
    s.svr.Post("/echo", [&](const httplib::Request& q, httplib::Response& r) {
        {
            std::lock_guard<std::mutex> lock(m);
            for (const char* name : {"Content-Type", "Content-Length", "User-Agent", "Accept", "Connection"})
                seen_headers += std::string(name) + "=" + q.get_header_value(name) + ";";
        }
        r.set_content(q.body, "application/json");
    });
    s.start();
    std::string body = "[";
    while (body.size() < (3u << 20)) body += "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\n\",";  // over a socket buffer
    body += "0]";
    auto p = util::http_post_json(s.url("/echo"), body);
    CHECK(p.status == 200);
    CHECK(p.content_type == "application/json");
    CHECK(p.body.size() == body.size());
    CHECK(p.body == body);
    std::lock_guard<std::mutex> lock(m);
    CHECK(seen_headers == "Content-Type=application/json;Content-Length=" + std::to_string(body.size()) +
                              ";User-Agent=inferlint;Accept=*/*;Connection=close;");
}
