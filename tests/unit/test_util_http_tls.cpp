// https through the module (build/inferlint-https.so), against an httplib::SSLServer on
// 127.0.0.1 with a certificate the test makes with the openssl command: the certificate
// checked, and the plain client's limits kept (the body cap, the total time, silence).
#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include "support.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

using namespace inferlint;

namespace {

// A CA and a certificate it signs for 127.0.0.1, made in `dir`; false when openssl is missing.
bool tls_make_certs(const std::filesystem::path& dir) {
    if (std::system("command -v openssl >/dev/null 2>&1") != 0) return false;
    const std::string d = testsupport::shell_quote(dir.string());
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
    const std::string script =
        "cd " + d + " && printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf && openssl req -x509" + ec +
        "-keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca && openssl req" + ec +
        "-keyout srv.key -out srv.csr -subj /CN=127.0.0.1 && openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
        "-CAcreateserial -out srv.pem -days 2 -extfile ext.cnf";
    REQUIRE(std::system(("(" + script + ") >/dev/null 2>&1").c_str()) == 0);
    return true;
}

struct TlsTestServer {
    httplib::SSLServer svr;
    int port = 0;
    std::thread th;
    explicit TlsTestServer(const std::filesystem::path& dir)
        : svr((dir / "srv.pem").c_str(), (dir / "srv.key").c_str()) {}
    void start() {
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port) + path; }
    ~TlsTestServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

struct TlsOptionsGuard {
    explicit TlsOptionsGuard(util::HttpOptions o) { util::set_http_options(std::move(o)); }
    ~TlsOptionsGuard() { util::set_http_options({}); }
};

std::string tls_error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("https: verified with --ca-cert, refused without, accepted with --insecure", "[http][tls]") {
    testsupport::TempDir dir("tls");
    if (!tls_make_certs(dir.path)) {
        WARN("skipped: no openssl command (scripts/bootstrap installs it)");
        return;
    }
    TlsTestServer s(dir.path);
    s.svr.Get("/metrics", [](const httplib::Request& q, httplib::Response& r) {
        r.set_content("vllm:num_requests_running 1\n" + q.get_header_value("X-Team"), "text/plain");
    });
    s.start();
    {
        TlsOptionsGuard g({.headers = {{"X-Team", "infra"}}, .ca_cert = (dir.path / "ca.pem").string()});
        auto r = util::http_get(s.url("/metrics"));
        CHECK(r.status == 200);
        CHECK(r.body == "vllm:num_requests_running 1\ninfra");
        CHECK(r.content_type == "text/plain");
    }
    const std::string refused = tls_error_of([&] { util::http_get(s.url("/metrics")); });
    CHECK(refused.starts_with(s.url("/metrics") + ": the server's certificate is not trusted ("));
    CHECK(refused.find('\n') == std::string::npos);
    {
        TlsOptionsGuard g({.insecure = true});
        CHECK(util::http_get(s.url("/metrics")).status == 200);
    }
    {
        TlsOptionsGuard g({.ca_cert = (dir.path / "ext.cnf").string()});
        CHECK(tls_error_of([&] { util::http_get(s.url("/metrics")); }) ==
              "--ca-cert " + (dir.path / "ext.cnf").string() + ": not a readable PEM file of certificates");
    }
    // Plain HTTP to the https port: the TLS server drops it, one line naming the URL.
    const std::string plain = "http://127.0.0.1:" + std::to_string(s.port) + "/metrics";
    const std::string dropped = tls_error_of([&] { util::http_get(plain); });
    CHECK(dropped.starts_with(plain + ": "));
    CHECK(dropped.find('\n') == std::string::npos);
}

TEST_CASE("https keeps the plain client's limits: the body cap, the total time, silence", "[http][tls]") {
    testsupport::TempDir dir("tls");
    if (!tls_make_certs(dir.path)) {
        WARN("skipped: no openssl command (scripts/bootstrap installs it)");
        return;
    }
    TlsTestServer s(dir.path);
    s.svr.Get("/big", [](const httplib::Request&, httplib::Response& r) {
        r.set_content(std::string(3 << 20, 'x'), "text/plain");
    });
    s.svr.Get("/endless", [](const httplib::Request&, httplib::Response& r) {
        r.set_chunked_content_provider("text/plain", [](std::size_t, httplib::DataSink& sink) {
            const std::string block(64 << 10, 'y');
            return sink.write(block.data(), block.size());
        });
    });
    s.svr.Get("/trickle", [](const httplib::Request&, httplib::Response& r) {
        r.set_chunked_content_provider("text/plain", [](std::size_t offset, httplib::DataSink& sink) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            if (offset > 200) return false;
            return sink.write("x", 1);
        });
    });
    s.svr.Get("/silent", [](const httplib::Request&, httplib::Response& r) {
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
        r.set_content("late", "text/plain");
    });
    s.start();
    TlsOptionsGuard g({.ca_cert = (dir.path / "ca.pem").string()});
    util::HttpLimits limits;
    limits.max_body_bytes = 1 << 20;
    CHECK(tls_error_of([&] { util::http_get(s.url("/big"), limits); }) ==
          s.url("/big") + ": the answer is larger than 1 MiB; is this the server's address?");
    CHECK(util::http_get(s.url("/big")).body.size() == (3u << 20));
    CHECK(tls_error_of([&] { util::http_get(s.url("/endless"), limits); }) ==
          s.url("/endless") + ": the answer is larger than 1 MiB; is this the server's address?");

    util::HttpLimits quick;
    quick.read_s = 2;
    quick.total_s = 0.5;
    CHECK(tls_error_of([&] { util::http_get(s.url("/trickle"), quick); }) ==
          s.url("/trickle") + ": no complete answer within 0.5 s");

    util::HttpLimits hushed;
    hushed.read_s = 0.3;
    CHECK(tls_error_of([&] { util::http_get(s.url("/silent"), hushed); }) ==
          s.url("/silent") + ": no answer within 0.3 s, or the connection was closed mid-answer");
}
