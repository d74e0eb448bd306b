// The loopback servers and raw-socket helpers of the HTTP client's tests
// (test_util_http.cpp, test_util_http_session.cpp): each test starts its own server on a
// free 127.0.0.1 (or [::1]) port and stops it when it goes out of scope.
#pragma once

#include "inferlint/util/error.hpp"

#include <catch2/catch.hpp>
#include <httplib.h>

#include <arpa/inet.h>
#include <atomic>
#include <functional>
#include <netinet/in.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace httptest {

// An httplib server on a free loopback port, stopped when it goes out of scope.
struct HttpTestServer {
    httplib::Server svr;
    int port = 0;
    std::thread th;
    void start() {
        port = svr.bind_to_any_port("127.0.0.1");
        th = std::thread([this] { svr.listen_after_bind(); });
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
    ~HttpTestServer() {
        svr.stop();
        if (th.joinable()) th.join();
    }
};

// A raw TCP listener on loopback (IPv4, or IPv6 [::1]) that runs `behave` on the first
// accepted connection.
struct RawServer {
    int fd = -1;
    int port = 0;
    bool v6 = false;
    std::thread th;
    std::atomic<bool> done{false};
    explicit RawServer(std::function<void(int)> behave, bool accept_connections = true, int family = AF_INET)
        : v6(family == AF_INET6) {
        fd = ::socket(family, SOCK_STREAM, 0);
        sockaddr_storage store{};
        socklen_t len = 0;
        if (v6) {
            auto* a = reinterpret_cast<sockaddr_in6*>(&store);
            a->sin6_family = AF_INET6;
            a->sin6_addr = in6addr_loopback;
            len = sizeof *a;
        } else {
            auto* a = reinterpret_cast<sockaddr_in*>(&store);
            a->sin_family = AF_INET;
            a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            len = sizeof *a;
        }
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&store), len) == 0);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&store), &len);
        port = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&store)->sin6_port
                        : reinterpret_cast<sockaddr_in*>(&store)->sin_port);
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
    std::string url(const std::string& path) const {
        return (v6 ? "http://[::1]:" : "http://127.0.0.1:") + std::to_string(port) + path;
    }
    ~RawServer() {
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        if (th.joinable()) th.join();
    }
};

// Bounds a raw server's blocking reads, so a test that goes wrong fails instead of hanging.
inline void limit_reads(int c, int seconds = 5) {
    timeval tv{seconds, 0};
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// Reads one whole request (head and Content-Length body) and returns it.
inline std::string read_request(int c) {
    limit_reads(c);
    std::string got;
    char buf[4096];
    std::size_t want = std::string::npos;
    while (got.size() < want) {
        auto n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
        auto end = got.find("\r\n\r\n");
        if (want == std::string::npos && end != std::string::npos) {
            auto cl = got.find("Content-Length: ");
            want = end + 4 + (cl != std::string::npos && cl < end ? std::stoul(got.substr(cl + 16)) : 0);
        }
    }
    return got;
}

// Sends bytes exactly as given; false once the client has gone.
inline bool send_text(int c, std::string_view text) {
    while (!text.empty()) {
        auto n = ::send(c, text.data(), text.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Holds the connection open until the client closes it (or 5 s pass).
inline void wait_for_close(int c) {
    limit_reads(c);
    char buf[4096];
    while (::recv(c, buf, sizeof buf, 0) > 0) {}
}

inline bool ipv6_loopback_available() {
    int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

inline std::string http_error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const inferlint::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// A raw loopback listener that runs behaviours[i] on the i-th connection it accepts, one
// after the other, and counts them.
struct RawSequence {
    int fd = -1;
    int port = 0;
    std::atomic<int> accepted{0};
    std::thread th;
    explicit RawSequence(std::vector<std::function<void(int)>> behaviours) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        ::listen(fd, 8);
        th = std::thread([this, behaviours] {
            for (const auto& behave : behaviours) {
                int c = ::accept(fd, nullptr, nullptr);
                if (c < 0) return;
                ++accepted;
                behave(c);
                ::close(c);
            }
        });
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
    ~RawSequence() {
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        if (th.joinable()) th.join();
    }
};

inline void answer_ok(int c, const std::string& body) {
    send_text(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\n\r\n" + body);
}

}  // namespace httptest
