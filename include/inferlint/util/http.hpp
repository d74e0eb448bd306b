// A small HTTP client for talking to inference servers (one connection per request, or one
// kept open by an HttpSession): GET and JSON POST with bounded connect and read times, a cap on the body, and errors that
// name the URL in one line. Plain HTTP/1.1 is spoken over POSIX sockets here; https URLs
// go through cpp-httplib and OpenSSL, with the same limits and the same kind of errors.
// Proxies are taken from the environment as Python's urllib takes them, and redirects are
// followed. Knows nothing about inference servers.
#pragma once

#include "inferlint/util/url.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlint::util {

struct HttpLimits {
    double connect_s = 5.0;
    double read_s = 10.0;           // the longest silence while waiting for bytes
    std::optional<double> total_s;  // the longest a whole exchange may take
    // A server's answers here (/metrics, /health, /v1/models) are KB to a few MB; past
    // 16 MB it is a server that does not stop, and a small tool stays small (under 128 MB).
    std::size_t max_body_bytes = std::size_t{16} << 20;
};

// What every request of this process sends and trusts: set once by the CLI from its
// options (--header, --api-key, --ca-cert, --insecure) before any request is made.
struct HttpOptions {
    std::vector<std::pair<std::string, std::string>> headers;  // sent with every request
    // Sent as "Authorization: Bearer KEY" to the server's /v1 endpoints only (as vLLM's
    // --api-key guards them), unless a header names Authorization itself.
    std::optional<std::string> api_key;
    std::optional<std::string> ca_cert;  // a PEM file of CAs trusted besides the system's
    bool insecure = false;               // https without checking the certificate
    int max_redirects = 10;              // as urllib's HTTPRedirectHandler
};
void set_http_options(HttpOptions options);
const HttpOptions& http_options();

// "Name: value" as given to --header; throws InputError for a malformed one, or a header
// the client sets itself (Host, Content-Length, Transfer-Encoding, Connection).
std::pair<std::string, std::string> parse_header(std::string_view text);

// The proxy a request to `url` goes through, from http_proxy / https_proxy / no_proxy
// (lower case first, then upper case, as urllib's getproxies_environment; HTTP_PROXY is
// ignored when REQUEST_METHOD is set, as in a CGI script). nullopt: straight there.
struct HttpProxy {
    BaseUrl where;
    std::string credentials;  // "user:password" from the proxy URL, or ""
};
std::optional<HttpProxy> proxy_for(const BaseUrl& target);

struct HttpResponse {
    int status = 0;
    std::string body;  // valid UTF-8: invalid bytes are replaced with U+FFFD
    std::string content_type;
    std::string reason() const;  // "OK", "Internal Server Error", ...
};

// GET url (a full URL). Throws InputError naming the URL when the server cannot be reached,
// does not answer in time, resets the connection, or sends more than max_body_bytes, and
// (https) when its certificate is not trusted. Redirects (301, 302, 303, 307, 308) are
// followed up to http_options().max_redirects hops, within the one total_s; an error
// after a redirect names the URL it led to and the one asked for. Any other HTTP status
// is returned; see get_text for the one that wants 2xx.
HttpResponse http_get(const std::string& url, const HttpLimits& limits = {});

// POST a JSON body. Errors as http_get; only 307 and 308 are followed (with the body), a
// 301, 302 or 303 is returned as it came.
HttpResponse http_post_json(const std::string& url, const std::string& json_body, const HttpLimits& limits = {});

// The body of a GET answered with 2xx; otherwise throws InputError "URL: HTTP 404 Not Found".
std::string get_text(const std::string& url, const HttpLimits& limits = {});

namespace http_detail {
struct KeptConnection;
}

// GETs that keep their connection open between requests (HTTP/1.1 keep-alive), for a
// caller that asks one server again and again: watch's scrapes, every few milliseconds,
// skip the connect, the name lookup and the server's accept. Each request is an http_get
// (the same limits, redirects, headers and errors). The connection stays only after an
// answer that lets it (HTTP/1.1, no "Connection: close", a body of told length); one the
// server has closed meanwhile is replaced, and the request sent again on a new one only
// when nothing of an answer had come back. https gets a connection per request, as
// http_get. One session is for one thread at a time.
class HttpSession {
public:
    HttpSession();
    ~HttpSession();
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    HttpResponse get(const std::string& url, const HttpLimits& limits = {});
    std::string get_text(const std::string& url, const HttpLimits& limits = {});  // as util::get_text

private:
    std::unique_ptr<http_detail::KeptConnection> kept_;
};

// Text with every invalid UTF-8 sequence replaced with U+FFFD (as Python's "replace").
std::string valid_utf8(std::string_view bytes);

}  // namespace inferlint::util
