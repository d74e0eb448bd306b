// A small HTTP client for talking to inference servers (plain HTTP/1.1 over POSIX sockets,
// one connection per request): GET and JSON POST with bounded connect and read times, a
// cap on the body, and errors that name the URL in one line. Knows nothing about
// inference servers.
#pragma once

#include "inferlint/util/url.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace inferlint::util {

struct HttpLimits {
    double connect_s = 5.0;
    double read_s = 10.0;               // the longest silence while waiting for bytes
    std::optional<double> total_s;      // the longest a whole exchange may take
    // A server's answers here (/metrics, /health, /v1/models) are KB to a few MB; past
    // 16 MB it is a server that does not stop, and a small tool stays small (under 128 MB).
    std::size_t max_body_bytes = std::size_t{16} << 20;
};

struct HttpResponse {
    int status = 0;
    std::string body;  // valid UTF-8: invalid bytes are replaced with U+FFFD
    std::string content_type;
    std::string reason() const;  // "OK", "Internal Server Error", ...
};

// GET url (a full URL). Throws InputError naming the URL when the server cannot be reached,
// does not answer in time, resets the connection, or sends more than max_body_bytes. Any
// HTTP status is returned; see get_text for the one that wants 2xx.
HttpResponse http_get(const std::string& url, const HttpLimits& limits = {});

// POST a JSON body. Errors as http_get.
HttpResponse http_post_json(const std::string& url, const std::string& json_body,
                            const HttpLimits& limits = {});

// The body of a GET answered with 2xx; otherwise throws InputError "URL: HTTP 404 Not Found".
std::string get_text(const std::string& url, const HttpLimits& limits = {});

// Text with every invalid UTF-8 sequence replaced with U+FFFD (as Python's "replace").
std::string valid_utf8(std::string_view bytes);

}  // namespace inferlint::util
