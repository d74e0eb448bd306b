#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace inferlint;
using inferlint::util::parse_base_url;

namespace {

// An httplib server on a free loopback port, stopped when it goes out of scope.
struct TestServer {
    httplib::Server svr;
    int port = 0;
    std::thread th;
    void start() {
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
    ~TestServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

// A raw TCP listener that runs `behave` on each accepted connection.
struct RawServer {
    int fd = -1;
    int port = 0;
    std::thread th;
    std::atomic<bool> done{false};
    explicit RawServer(std::function<void(int)> behave, bool accept_connections = true) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        ::listen(fd, 8);
        if (!accept_connections) return;  // the kernel still completes handshakes (backlog)
        th = std::thread([this, behave] {
            int c = ::accept(fd, nullptr, nullptr);
            if (c >= 0) {
                behave(c);
                ::close(c);
            }
        });
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
    ~RawServer() {
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        if (th.joinable()) th.join();
    }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

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
    CHECK_THROWS_WITH(parse_base_url("https://h:8000"), Catch::Contains("https://h:8000") && Catch::Contains("https"));
    CHECK_THROWS_AS(parse_base_url("ftp://h:21"), InputError);
    CHECK_THROWS_AS(parse_base_url(""), InputError);
    CHECK_THROWS_WITH(parse_base_url("http://:8000"), Catch::Contains("no host"));
    CHECK_THROWS_WITH(parse_base_url("h:99999"), Catch::Contains("99999"));
    CHECK_THROWS_WITH(parse_base_url("h:80x"), Catch::Contains("not a port"));
}

TEST_CASE("invalid UTF-8 is replaced as Python's 'replace' does", "[http]") {
    CHECK(util::valid_utf8("plain") == "plain");
    CHECK(util::valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(util::valid_utf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
    CHECK(util::valid_utf8("x\xe2\x82") == "x\xEF\xBF\xBD");          // truncated: one replacement
    CHECK(util::valid_utf8("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK(util::valid_utf8("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}

TEST_CASE("GET returns status and body; get_text wants 2xx", "[http]") {
    TestServer s;
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
    auto t0 = std::chrono::steady_clock::now();
    try {
        util::http_get(url);
        FAIL("no error");
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.find(url) != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
    CHECK(seconds_since(t0) < 2.0);
}

TEST_CASE("a server that accepts and never answers times out", "[http]") {
    RawServer silent([](int) {}, false);
    util::HttpLimits limits;
    limits.connect_s = 1;
    limits.read_s = 0.4;
    auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(util::http_get(silent.url("/metrics"), limits), Catch::Contains("no answer within 0.4 s"));
    CHECK(seconds_since(t0) < 2.0);
}

TEST_CASE("a connection reset mid-body is an error, not a short body", "[http]") {
    RawServer cut([](int c) {
        char buf[4096];
        [[maybe_unused]] auto n = ::recv(c, buf, sizeof buf, 0);
        std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nvllm:num_requests";
        [[maybe_unused]] auto w = ::send(c, head.data(), head.size(), MSG_NOSIGNAL);
    });
    util::HttpLimits limits;
    limits.read_s = 2;
    CHECK_THROWS_AS(util::http_get(cut.url("/metrics"), limits), InputError);
}

TEST_CASE("a body over the cap is refused, not read whole", "[http]") {
    TestServer s;
    s.svr.Get("/big", [](const httplib::Request&, httplib::Response& r) {
        r.set_content(std::string(3 << 20, 'x'), "text/plain");
    });
    s.start();
    util::HttpLimits limits;
    limits.max_body_bytes = 1 << 20;
    CHECK_THROWS_WITH(util::http_get(s.url("/big"), limits), Catch::Contains("larger than 1 MiB"));
    CHECK(util::http_get(s.url("/big")).body.size() == (3u << 20));
}
