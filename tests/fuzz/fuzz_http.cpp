// An HTTP server's answer, as every live command reads one: the fuzz input is what a
// server on 127.0.0.1 (started here, once) sends back to util::http_get, byte for byte,
// before it closes the connection. What is fuzzed is the client's own socket path: the
// status line, headers, Content-Length, chunked bodies, the caps and the timeouts.
#include "fuzz_common.hpp"
#include "inferlint/util/http.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace inferlint::fuzz {

namespace {

// A listening socket on 127.0.0.1, opened once per process; its port.
int http_fuzz_listener(int* port) {
    static int fd = -1;
    static int bound = 0;
    if (fd < 0) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            return -1;
        bound = ntohs(a.sin_port);
    }
    *port = bound;
    return fd;
}

// One connection: read the request's head, send the answer, close our side, drain.
void http_fuzz_serve(int listener, std::string answer) {
    int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) return;
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
    }
    for (std::size_t off = 0; off < answer.size();) {
        ssize_t n = ::send(c, answer.data() + off, answer.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
    }
    ::shutdown(c, SHUT_WR);
    while (::recv(c, buf, sizeof buf, 0) > 0) {}
    ::close(c);
}

}  // namespace

inline int one_http(const std::uint8_t* data, std::size_t size) {
    int port = 0;
    int listener = http_fuzz_listener(&port);
    if (listener < 0) return 0;
    std::thread server(http_fuzz_serve, listener, std::string(bytes(data, size)));
    expect_clean([&] {
        auto r = util::http_get("http://127.0.0.1:" + std::to_string(port) + "/metrics",
                                {.connect_s = 2, .read_s = 2, .total_s = 5, .max_body_bytes = 1 << 20});
        (void)r.reason();
    });
    server.join();
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_http(data, size);
}
#endif
