// The plain-HTTP transport: HTTP/1.1 over a POSIX socket, one request per connection, or
// a connection kept for the next request of an HttpSession.
#include "inferlint/util/http.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/fd.hpp"
#include "http_internal.hpp"
#include "http_text.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace inferlint::util {
namespace {

using text::kHttpSpace;
using text::lower;
using text::trim;

using Clock = std::chrono::steady_clock;

// A timeout from limits as a clock duration: at least a millisecond (0 or NaN would mean
// "do not wait at all"), and at most ~4 months so the arithmetic cannot overflow.
Clock::duration span(double seconds) {
    if (!(seconds > 0.001)) seconds = 0.001;
    seconds = std::min(seconds, 1e7);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Closes the socket on every path out of an exchange.
using Socket = UniqueFd;

struct FreeAddrInfo {
    void operator()(addrinfo* a) const { ::freeaddrinfo(a); }
};

constexpr std::size_t kMaxHead = std::size_t{64} << 10;  // status lines and headers, interim heads included
constexpr std::size_t kMaxChunkLine = 4096;              // a chunk-size line with its extensions
constexpr std::string_view kHttpStart = "HTTP/1.";

struct Head {
    int status = 0;
    bool http11 = false;  // "HTTP/1.1": the connection stays open unless the answer says close
    std::vector<std::pair<std::string, std::string>> headers;  // names in lower case, in order

    // Every value of a header, joined with ", " as a repeated header means.
    std::string value(std::string_view name) const {
        std::string out;
        for (const auto& [n, v] : headers) {
            if (n != name) continue;
            if (!out.empty()) out += ", ";
            out += v;
        }
        return out;
    }
    bool has(std::string_view name) const {
        for (const auto& h : headers)
            if (h.first == name) return true;
        return false;
    }
};

// One plain HTTP/1.1 exchange, on a connection of its own or one kept from before, bounded
// in time and size. Every failure is an InputError whose text names the URL.
class Exchange {
public:
    Exchange(const http_detail::Request& req, const HttpLimits& limits)
        : req_(req), url_(req.url), limits_(limits), scratch_(std::size_t{64} << 10) {
        if (req.total_left_s) total_end_ = Clock::now() + span(*req.total_left_s);
    }

    // Tries each address the host resolves to, each for up to connect_s, so a dead first
    // address (say ::1 for "localhost") does not hide a live one. The name lookup itself is
    // the resolver's, not bounded here.
    void connect(const BaseUrl& base) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;  // IPv4 and IPv6, in the resolver's order
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        addrinfo* found = nullptr;
        const std::string port = std::to_string(base.port);
        if (int rc = ::getaddrinfo(base.host.c_str(), port.c_str(), &hints, &found); rc != 0)
            throw InputError(fmt::format("cannot connect to {}: cannot find the host '{}'{} ({})", url_, base.host,
                                         req_.proxy ? " (the proxy)" : "", ::gai_strerror(rc)));
        std::unique_ptr<addrinfo, FreeAddrInfo> owned(found);
        for (const addrinfo* a = found; a; a = a->ai_next) {
            Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
            if (!s.valid()) continue;
            if (::connect(s.fd(), a->ai_addr, a->ai_addrlen) != 0) {
                if (errno != EINPROGRESS && errno != EINTR) continue;  // refused, unreachable: try the next
                Wait w = wait(s.fd(), POLLOUT, limits_.connect_s);
                if (w == Wait::over_total) fail_total();
                if (w == Wait::silent) continue;
                int err = 0;
                socklen_t len = sizeof err;
                if (::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) continue;
            }
            sock_ = std::move(s);
            return;
        }
        throw InputError(http_detail::cannot_connect(req_));
    }

    // A connection kept from an earlier exchange, instead of connect().
    void adopt(int fd) { sock_ = Socket(fd); }
    // The connection, for the next exchange; this one no longer closes it.
    int release() { return sock_.release(); }

    // The answer was read to its end, and the connection may carry another: HTTP/1.1, no
    // "Connection: close", a body whose end was told (not the close), nothing after it.
    bool reusable(const Head& head) const {
        if (!head.http11 || !framed_ || pos_ != buf_.size()) return false;
        const std::string connection = lower(head.value("connection"));
        std::string_view rest = connection;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            if (trim(rest.substr(0, comma), kHttpSpace) == "close") return false;
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        return true;
    }

    // The server closed the connection (or reset it) before a byte of an answer came: on a
    // kept connection, the server had closed it while idle, and the request may go again.
    bool closed_before_answer() const { return closed_early_; }

    void send_all(std::string_view data) {
        while (!data.empty()) {
            ssize_t n = ::send(sock_.fd(), data.data(), data.size(), MSG_NOSIGNAL);  // no SIGPIPE
            if (n > 0) {
                data.remove_prefix(static_cast<std::size_t>(n));
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                Wait w = wait(sock_.fd(), POLLOUT, limits_.read_s);
                if (w == Wait::ready) continue;
                if (w == Wait::over_total) fail_total();
            }
            if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) closed_early_ = true;
            throw InputError(fmt::format("{}: the connection was closed while sending the request", url_));
        }
    }

    // The status line and headers of the final answer; interim 1xx answers (100 Continue)
    // are read and dropped.
    Head read_final_head() {
        std::size_t budget = kMaxHead;  // shared, so an endless run of 1xx heads ends too
        for (;;) {
            Head h = read_head(budget);
            if (h.status >= 200) return h;
        }
    }

    std::string read_body(const Head& head) {
        framed_ = true;
        if (head.status == 204 || head.status == 304) return {};
        if (head.has("transfer-encoding")) {
            // Only chunked is decoded (we ask for no other coding); any other framing by
            // Transfer-Encoding runs until the server closes.
            const std::string codings = lower(head.value("transfer-encoding"));
            std::string_view last = codings;
            if (auto comma = last.rfind(','); comma != std::string_view::npos) last.remove_prefix(comma + 1);
            last = trim(last, kHttpSpace);
            if (last == "chunked") return read_chunked();
            framed_ = false;
            return read_until_close();
        }
        if (head.has("content-length")) return read_exactly(content_length(head));
        framed_ = false;
        return read_until_close();
    }

private:
    enum class Wait { ready, silent, over_total };

    // Waits until fd is ready for `events`, at most `bound_s` and never past the whole
    // exchange's deadline; says which of the two ran out.
    Wait wait(int fd, short events, double bound_s) const {
        const Clock::time_point bound_end = Clock::now() + span(bound_s);
        for (;;) {
            const bool total_first = total_end_ && *total_end_ <= bound_end;
            const Clock::time_point end = total_first ? *total_end_ : bound_end;
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(end - Clock::now()).count();
            if (left <= 0) return total_first ? Wait::over_total : Wait::silent;
            pollfd p{fd, events, 0};
            int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
            if (n > 0) return Wait::ready;  // POLLERR/POLLHUP too: the next call says what happened
            if (n < 0 && errno != EINTR) return Wait::silent;
        }
    }

    std::string_view unread() const { return std::string_view(buf_).substr(pos_); }

    // Reads what has arrived into buf_; false once the server has closed the connection.
    bool fill() {
        if (pos_ > 0) {
            buf_.erase(0, pos_);
            pos_ = 0;
        }
        for (;;) {
            if (total_end_ && Clock::now() >= *total_end_) fail_total();  // a steady trickle ends too
            // Acknowledge at once what comes (Linux turns this off again by itself). On a
            // kept connection to a server that writes an answer in pieces with Nagle's
            // algorithm on (cpp-httplib's default), a delayed ACK held each answer back by
            // 20-40 ms.
            int on = 1;
            ::setsockopt(sock_.fd(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
            ssize_t n = ::recv(sock_.fd(), scratch_.data(), scratch_.size(), 0);
            if (n > 0) {
                buf_.append(scratch_.data(), static_cast<std::size_t>(n));
                answered_ = true;
                return true;
            }
            if (n == 0) {
                if (!answered_) closed_early_ = true;
                return false;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                Wait w = wait(sock_.fd(), POLLIN, limits_.read_s);
                if (w == Wait::ready) continue;
                if (w == Wait::over_total) fail_total();
            } else if (errno == ECONNRESET && !answered_) {
                closed_early_ = true;
            }
            fail_read();  // silence, or a reset
        }
    }

    // Moves up to n buffered bytes to the end of out.
    void take(std::string& out, std::size_t n) {
        n = std::min(n, buf_.size() - pos_);
        out.append(buf_, pos_, n);
        pos_ += n;
    }

    // One line without its CRLF (a bare LF is taken too), charged to budget; nullopt when
    // the connection closed before the line ended.
    std::optional<std::string> read_line(std::size_t& budget, bool in_head) {
        std::size_t seen = 0;  // unread bytes already searched (fill() may move buf_'s start)
        for (;;) {
            if (auto nl = buf_.find('\n', pos_ + seen); nl != std::string::npos) {
                const std::size_t used = nl + 1 - pos_;
                if (used > budget) too_long_line(in_head);
                budget -= used;
                std::string line = buf_.substr(pos_, nl - pos_);
                pos_ = nl + 1;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                return line;
            }
            seen = buf_.size() - pos_;
            if (seen > budget) too_long_line(in_head);
            if (!fill()) return std::nullopt;
        }
    }

    Head read_head(std::size_t& budget) {
        // Say "not HTTP" as soon as the first bytes show it, rather than wait for a line
        // end that a non-HTTP server may never send.
        for (;;) {
            std::string_view got = unread();
            const std::size_t n = std::min(got.size(), kHttpStart.size());
            if (got.substr(0, n) != kHttpStart.substr(0, n)) not_http(got);
            if (n == kHttpStart.size() || got.find('\n') != std::string_view::npos) break;
            if (!fill()) fail_read();
        }
        std::optional<std::string> status_line = read_line(budget, true);
        if (!status_line) fail_read();
        Head h;
        h.status = parse_status(*status_line);
        h.http11 = (*status_line)[7] != '0';
        for (;;) {
            std::optional<std::string> line = read_line(budget, true);
            if (!line) fail_read();
            if (line->empty()) return h;
            if (line->front() == ' ' || line->front() == '\t') {  // obsolete folding: continues the value
                if (h.headers.empty()) malformed("header");
                h.headers.back().second += " " + std::string(trim(*line, kHttpSpace));
                continue;
            }
            auto colon = line->find(':');
            if (colon == std::string::npos || trim(std::string_view(*line).substr(0, colon), kHttpSpace).empty())
                malformed("header");
            h.headers.emplace_back(lower(trim(std::string_view(*line).substr(0, colon), kHttpSpace)),
                                   std::string(trim(std::string_view(*line).substr(colon + 1), kHttpSpace)));
        }
    }

    // "HTTP/1.1 200 OK" (the reason may be empty or missing).
    int parse_status(std::string_view line) const {
        auto digit = [](char c) { return c >= '0' && c <= '9'; };
        if (line.size() < 12 || line.substr(0, 7) != kHttpStart || !digit(line[7]) || line[8] != ' ' ||
            !digit(line[9]) || !digit(line[10]) || !digit(line[11]) || line[9] == '0' ||
            (line.size() > 12 && line[12] != ' '))
            not_http(line);
        return (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    }

    // The body's length, refused at once when over the cap.
    std::size_t content_length(const Head& head) const {
        // Repeated or comma-listed values are allowed only when they agree.
        std::string all = head.value("content-length");
        std::optional<std::uint64_t> length;
        std::size_t from = 0;
        for (;;) {
            auto comma = all.find(',', from);
            std::string_view item = trim(std::string_view(all).substr(from, comma - from), kHttpSpace);
            std::uint64_t v = 0;
            if (item.empty()) malformed("Content-Length");
            for (char c : item) {
                if (c < '0' || c > '9') malformed("Content-Length");
                v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + static_cast<std::uint64_t>(c - '0');
            }
            if (length && *length != v) malformed("Content-Length");
            length = v;
            if (comma == std::string::npos) break;
            from = comma + 1;
        }
        if (*length > limits_.max_body_bytes) fail_too_big();
        return static_cast<std::size_t>(*length);
    }

    std::string read_exactly(std::size_t length) {
        std::string out;
        out.reserve(length);  // at most the cap
        append_exactly(out, length);
        return out;
    }

    void append_exactly(std::string& out, std::size_t length) {
        const std::size_t want = out.size() + length;
        take(out, length);
        while (out.size() < want) {
            if (!fill()) fail_read();  // closed before the body was complete
            take(out, want - out.size());
        }
    }

    std::string read_until_close() {
        std::string out;
        for (;;) {
            take(out, buf_.size() - pos_);
            if (out.size() > limits_.max_body_bytes) fail_too_big();
            if (!fill()) return out;
        }
    }

    std::string read_chunked() {
        std::string out;
        for (;;) {
            std::size_t line_budget = kMaxChunkLine;
            std::optional<std::string> line = read_line(line_budget, false);
            if (!line) fail_read();
            // The size in hex, then extensions (";name=value") that we have no use for.
            std::string_view size_text = trim(std::string_view(*line).substr(0, line->find(';')), kHttpSpace);
            if (size_text.empty()) malformed("chunk");
            std::uint64_t size = 0;
            for (char c : size_text) {
                int d = text::hex_digit(c);
                if (d < 0) malformed("chunk");
                size = size > (UINT64_MAX >> 4) ? UINT64_MAX : size << 4 | static_cast<std::uint64_t>(d);
            }
            if (size == 0) break;
            if (size > limits_.max_body_bytes - out.size()) fail_too_big();
            append_exactly(out, static_cast<std::size_t>(size));
            std::size_t end_budget = kMaxChunkLine;
            std::optional<std::string> end = read_line(end_budget, false);
            if (!end) fail_read();
            if (!end->empty()) malformed("chunk");
        }
        // Trailers, up to the blank line. A close here loses nothing: the body is complete.
        std::size_t budget = kMaxHead;
        for (;;) {
            std::optional<std::string> trailer = read_line(budget, true);
            if (!trailer || trailer->empty()) return out;
        }
    }

    [[noreturn]] void fail_read() const { throw InputError(http_detail::no_answer(url_, limits_)); }
    [[noreturn]] void fail_total() const { throw InputError(http_detail::no_complete_answer(url_, limits_)); }
    [[noreturn]] void fail_too_big() const { throw InputError(http_detail::too_big(url_, limits_)); }
    [[noreturn]] void not_http(std::string_view start) const {
        throw InputError(
            fmt::format("{}: not an HTTP answer (it began \"{}\"); is this the server's "
                        "address?",
                        url_, http_text::shown_start(start)));
    }
    [[noreturn]] void malformed(std::string_view what) const {
        throw InputError(fmt::format("{}: not an HTTP answer (a malformed {})", url_, what));
    }
    [[noreturn]] void too_long_line(bool in_head) const {
        if (in_head)
            throw InputError(fmt::format("{}: not an HTTP answer (headers over {} KiB)", url_, kMaxHead >> 10));
        malformed("chunk");
    }

    const http_detail::Request& req_;
    const std::string& url_;
    const HttpLimits& limits_;
    std::optional<Clock::time_point> total_end_;
    Socket sock_;
    std::string buf_;  // received, not yet parsed from pos_ on
    std::size_t pos_ = 0;
    std::vector<char> scratch_;  // recv's landing place
    bool answered_ = false;      // a byte of the answer came
    bool closed_early_ = false;  // closed or reset before one did
    bool framed_ = false;        // the body's end was told by its length or its chunks
};

}  // namespace

namespace http_detail {

void KeptConnection::drop() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    endpoint.clear();
}

namespace {

// A kept connection that has something to read while no request is out: the server
// closed it (idle too long, or its quota of requests), or sent what was not asked for.
bool gone_stale(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;
}

Answer exchange_on(Exchange& ex, const Request& req, const BaseUrl& to, KeptConnection* keep) {
    http_text::HeaderList headers = req.headers;
    if (req.proxy && !req.proxy->credentials.empty())
        headers.emplace_back("Proxy-Authorization", "Basic " + http_text::base64(req.proxy->credentials));
    ex.send_all(http_text::request_text(req.target, req.method, req.body, headers, req.proxy.has_value(),
                                        keep ? http_text::KeepAlive::yes : http_text::KeepAlive::no));
    Head head = ex.read_final_head();
    Answer answer;
    answer.status = head.status;
    answer.content_type = head.value("content-type");
    answer.location = head.value("location");
    answer.body = ex.read_body(head);
    if (keep && ex.reusable(head)) {
        keep->fd = ex.release();
        keep->endpoint = fmt::format("{}:{}", to.host, to.port);
    }
    return answer;
}

}  // namespace

Answer plain_exchange(const Request& req, const HttpLimits& limits, KeptConnection* keep) {
    const BaseUrl& to = req.proxy ? req.proxy->where : req.target.base;
    if (keep && keep->fd >= 0) {
        KeptConnection kept;  // taken: an exchange that fails leaves nothing kept
        std::swap(kept.fd, keep->fd);
        std::swap(kept.endpoint, keep->endpoint);
        if (kept.endpoint == fmt::format("{}:{}", to.host, to.port) && !gone_stale(kept.fd)) {
            Exchange ex(req, limits);
            ex.adopt(std::exchange(kept.fd, -1));
            try {
                return exchange_on(ex, req, to, keep);
            } catch (const InputError&) {
                // The server closed it while idle, just as the request went: nothing of
                // it was served, so it goes again on a new connection. Anything else
                // (silence, a broken answer) is the server's answer to this request.
                if (!ex.closed_before_answer()) throw;
            }
        }
    }
    Exchange ex(req, limits);
    ex.connect(to);
    return exchange_on(ex, req, to, keep);
}

}  // namespace http_detail

}  // namespace inferlint::util
