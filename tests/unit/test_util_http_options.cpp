// The HTTP client's options: headers, the API key, proxies from the environment (as
// Python's urllib reads them) and redirects, against httplib servers on 127.0.0.1.
#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace inferlint;

namespace {

// An httplib server on a free loopback port that records each request's headers.
struct OptsTestServer {
    httplib::Server svr;
    int port = 0;
    std::thread th;
    std::mutex mu;
    std::vector<std::string> seen;  // "METHOD PATH auth=<Authorization> x=<X-Team>"
    OptsTestServer() {
        // Before routing, so it is recorded before the answer goes out (a logger runs after).
        svr.set_pre_routing_handler([this](const httplib::Request& q, httplib::Response&) {
            std::lock_guard lock(mu);
            seen.push_back(q.method + " " + q.path + " auth=" + q.get_header_value("Authorization") +
                           " x=" + q.get_header_value("X-Team"));
            return httplib::Server::HandlerResponse::Unhandled;
        });
    }
    void start() {
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });  // bound: connections queue until it listens
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
    std::vector<std::string> requests() {
        std::lock_guard lock(mu);
        return seen;
    }
    ~OptsTestServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

// Sets the process's HTTP options for one test, and puts the defaults back after.
struct OptionsGuard {
    explicit OptionsGuard(util::HttpOptions o) { util::set_http_options(std::move(o)); }
    ~OptionsGuard() { util::set_http_options({}); }
};

// Clears the proxy variables, sets `vars` for one test, and restores them all after.
struct EnvGuard {
    std::map<std::string, std::optional<std::string>> saved;
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;
    explicit EnvGuard(std::initializer_list<std::pair<std::string, std::string>> vars) {
        for (const char* name :
             {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "REQUEST_METHOD"}) {
            const char* v = std::getenv(name);
            saved[name] = v ? std::optional<std::string>(v) : std::nullopt;
            ::unsetenv(name);
        }
        for (const auto& [name, value] : vars) {
            if (!saved.count(name)) {
                const char* v = std::getenv(name.c_str());
                saved[name] = v ? std::optional<std::string>(v) : std::nullopt;
            }
            ::setenv(name.c_str(), value.c_str(), 1);
        }
    }
    ~EnvGuard() {
        for (const auto& [name, value] : saved) {
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
        }
    }
};

std::string opts_error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// A loopback port that nothing listens on (bound, then closed).
int opts_dead_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

std::string proxy_of(const std::string& url) {
    auto p = util::proxy_for(util::parse_base_url(url));
    return p ? p->where.str() + (p->credentials.empty() ? "" : " as " + p->credentials) : "direct";
}

}  // namespace

TEST_CASE("--header is 'Name: value'; malformed ones and the client's own are refused", "[http][badinput]") {
    CHECK(util::parse_header("Authorization: Bearer abc") ==
          std::pair<std::string, std::string>{"Authorization", "Bearer abc"});
    CHECK(util::parse_header("X-Team:  infra ") == std::pair<std::string, std::string>{"X-Team", "infra"});
    CHECK(util::parse_header("X-Empty:") == std::pair<std::string, std::string>{"X-Empty", ""});
    CHECK(opts_error_of([] { util::parse_header("no colon"); }) == "--header 'no colon': expected 'Name: value'");
    CHECK(opts_error_of([] { util::parse_header("Bad Name: v"); }) ==
          "--header 'Bad Name: v': 'Bad Name' is not a header name");
    CHECK(opts_error_of([] { util::parse_header("X: a\r\nInjected: b"); }).find("line break") != std::string::npos);
    CHECK(opts_error_of([] { util::parse_header("content-length: 5"); }) ==
          "--header 'content-length: 5': inferlint sets content-length itself");
}

TEST_CASE("headers go with every request; the API key only to /v1 endpoints", "[http]") {
    OptsTestServer s;
    s.svr.Get(R"(/.*)", [](const httplib::Request&, httplib::Response& r) { r.set_content("ok", "text/plain"); });
    s.start();
    {
        OptionsGuard g({.headers = {{"X-Team", "infra"}}, .api_key = "sk-1"});
        util::http_get(s.url("/metrics"));
        util::http_get(s.url("/v1/models"));
        util::http_get(s.url("/gw/v1/models?x=1"));
        util::http_get(s.url("/v1x"));
        util::http_get(s.url("/api/v1/query?query=up"));  // Prometheus's API: not the server's key
    }
    {
        OptionsGuard g({.headers = {{"Authorization", "Bearer given"}}, .api_key = "sk-1"});
        util::http_get(s.url("/v1/models"));  // the header given wins over the key
    }
    CHECK(s.requests() == std::vector<std::string>{
                              "GET /metrics auth= x=infra",
                              "GET /v1/models auth=Bearer sk-1 x=infra",
                              "GET /gw/v1/models auth=Bearer sk-1 x=infra",
                              "GET /v1x auth= x=infra",
                              "GET /api/v1/query auth= x=infra",
                              "GET /v1/models auth=Bearer given x=",
                          });
}

TEST_CASE("proxies come from the environment as urllib reads them", "[http]") {
    SECTION("http_proxy for http, https_proxy for https") {
        EnvGuard e({{"http_proxy", "http://p1:3128"}, {"HTTPS_PROXY", "p2:8080"}});
        CHECK(proxy_of("http://h:8000") == "http://p1:3128");
        CHECK(proxy_of("https://h:8443") == "http://p2:8080");
    }
    SECTION("nothing set: straight there") {
        EnvGuard e({});
        CHECK(proxy_of("http://h:8000") == "direct");
    }
    SECTION("the lower-case name wins, even empty") {
        EnvGuard e({{"http_proxy", "http://low:1"}, {"HTTP_PROXY", "http://up:2"}});
        CHECK(proxy_of("http://h:8000") == "http://low:1");
        EnvGuard e2({{"http_proxy", ""}, {"HTTP_PROXY", "http://up:2"}});
        CHECK(proxy_of("http://h:8000") == "direct");
    }
    SECTION("HTTP_PROXY is ignored in a CGI script; http_proxy is not") {
        EnvGuard e({{"HTTP_PROXY", "http://up:2"}, {"REQUEST_METHOD", "GET"}});
        CHECK(proxy_of("http://h:8000") == "direct");
        EnvGuard e2({{"http_proxy", "http://low:1"}, {"REQUEST_METHOD", "GET"}});
        CHECK(proxy_of("http://h:8000") == "http://low:1");
    }
    SECTION("no_proxy: hosts, domain suffixes, host:port and *") {
        EnvGuard e({{"http_proxy", "http://p:3128"}, {"no_proxy", " localhost, .internal ,10.0.0.5:8000"}});
        CHECK(proxy_of("http://localhost:8000") == "direct");
        CHECK(proxy_of("http://gpu1.internal:8000") == "direct");
        CHECK(proxy_of("http://internal:8000") == "direct");
        CHECK(proxy_of("http://10.0.0.5:8000") == "direct");
        CHECK(proxy_of("http://10.0.0.5:9000") == "http://p:3128");
        CHECK(proxy_of("http://notinternal:8000") == "http://p:3128");
        EnvGuard e2({{"http_proxy", "http://p:3128"}, {"NO_PROXY", "*"}});
        CHECK(proxy_of("http://anything:1") == "direct");
    }
    SECTION("credentials in the proxy URL, percent-decoded") {
        EnvGuard e({{"http_proxy", "http://me:p%40ss@p:3128/"}});
        CHECK(proxy_of("http://h:8000") == "http://p:3128 as me:p@ss");
    }
    SECTION("a proxy that cannot be used is one line naming the variable") {
        EnvGuard e({{"http_proxy", "socks5://p:1080"}});
        CHECK(opts_error_of([] { proxy_of("http://h:8000"); }) ==
              "http_proxy=socks5://p:1080: only http:// proxies are supported");
    }
}

TEST_CASE("a request through http_proxy reaches the proxy in absolute form; no_proxy goes straight", "[http]") {
    OptsTestServer proxy;
    std::string path_seen, host_seen, auth_seen;
    proxy.svr.Get(R"(.*)", [&](const httplib::Request& q, httplib::Response& r) {
        path_seen = q.path;
        host_seen = q.get_header_value("Host");
        auth_seen = q.get_header_value("Proxy-Authorization");
        r.set_content("via proxy", "text/plain");
    });
    proxy.start();
    const std::string port = std::to_string(proxy.port);
    {
        EnvGuard e({{"http_proxy", "http://u:pw@127.0.0.1:" + port}});
        CHECK(util::http_get("http://target.invalid:8000/metrics").body == "via proxy");  // never resolved here
        CHECK(path_seen == "http://target.invalid:8000/metrics");
        CHECK(host_seen == "target.invalid:8000");
        CHECK(auth_seen == "Basic dTpwdw==");
    }
    {
        EnvGuard e({{"http_proxy", "http://127.0.0.1:" + port}, {"no_proxy", "127.0.0.1"}});
        CHECK(util::http_get("http://127.0.0.1:" + port + "/direct").body == "via proxy");
        CHECK(path_seen == "/direct");
        CHECK(auth_seen.empty());
    }
}

TEST_CASE("redirects are followed, bounded, and name where they led", "[http]") {
    OptsTestServer s;
    s.svr.Get("/a", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("/b", 301); });
    s.svr.Get("/b", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("c?x=1", 302); });
    s.svr.Get("/c", [](const httplib::Request&, httplib::Response& r) { r.set_content("end", "text/plain"); });
    s.svr.Get("/loop", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("/loop", 302); });
    s.svr.Post("/moved", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("/echo", 307); });
    s.svr.Post("/seeother", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("/echo", 303); });
    s.svr.Post("/echo",
               [](const httplib::Request& q, httplib::Response& r) { r.set_content(q.body, "application/json"); });
    s.start();
    OptionsGuard g({.api_key = "sk-1"});
    auto r = util::http_get(s.url("/a"));
    CHECK(r.status == 200);
    CHECK(r.body == "end");
    CHECK(util::http_post_json(s.url("/moved"), R"({"a":1})").body == R"({"a":1})");  // 307 keeps the body
    CHECK(util::http_post_json(s.url("/seeother"), "{}").status == 303);              // not turned into a GET
    CHECK(opts_error_of([&] { util::http_get(s.url("/loop")); }) ==
          s.url("/loop") + ": more than 10 redirects (a redirect loop?), the last to " + s.url("/loop"));
    // A redirect to a port nobody listens on names both URLs.
    const std::string gone = "http://127.0.0.1:" + std::to_string(opts_dead_port()) + "/metrics";
    s.svr.Get("/togone", [gone](const httplib::Request&, httplib::Response& res) { res.set_redirect(gone, 302); });
    CHECK(opts_error_of([&] {
              util::http_get(s.url("/togone"));
          }).starts_with("cannot connect to " + gone + ": nothing answers there"));
    CHECK(opts_error_of([&] {
              util::http_get(s.url("/togone"));
          }).ends_with("(redirected from " + s.url("/togone") + ")"));
}

TEST_CASE("a redirect to another host does not take the Authorization along", "[http]") {
    OptsTestServer other;
    other.svr.Get(R"(/.*)",
                  [](const httplib::Request&, httplib::Response& r) { r.set_content("there", "text/plain"); });
    other.start();
    OptsTestServer s;
    const std::string target = "http://localhost:" + std::to_string(other.port) + "/v1/models";
    s.svr.Get("/v1/models", [target](const httplib::Request&, httplib::Response& r) { r.set_redirect(target, 302); });
    s.start();
    OptionsGuard g({.headers = {{"X-Team", "infra"}}, .api_key = "sk-1"});
    CHECK(util::http_get(s.url("/v1/models")).body == "there");
    CHECK(s.requests() == std::vector<std::string>{"GET /v1/models auth=Bearer sk-1 x=infra"});
    CHECK(other.requests() == std::vector<std::string>{"GET /v1/models auth= x=infra"});
}
