// Internal to util: one exchange of the HTTP client, as its two transports make it (plain
// HTTP in http.cpp, https in http_tls.cpp). http_client.cpp chooses between them, adds the
// headers and follows redirects.
#pragma once

#include "inferlint/util/http.hpp"
#include "http_text.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace inferlint::util::http_detail {

struct Request {
    const std::string& url;  // as the messages name it
    const http_text::HttpTarget& target;
    std::string_view method;
    const std::string* body;  // JSON, or nullptr
    const http_text::HeaderList& headers;
    const std::optional<HttpProxy>& proxy;
    // What is left of limits.total_s after the redirects before this request (the
    // messages name limits.total_s itself).
    std::optional<double> total_left_s;
};

struct Answer {
    int status = 0;
    std::string body;  // as received, not yet made valid UTF-8
    std::string content_type;
    std::string location;  // of a redirect
};

// A plain-HTTP connection left open after an answer, for the next request of an
// HttpSession to the same place.
struct KeptConnection {
    int fd = -1;
    std::string endpoint;  // "host:port" it is connected to (the proxy's, through one)
    KeptConnection() = default;
    KeptConnection(const KeptConnection&) = delete;
    KeptConnection& operator=(const KeptConnection&) = delete;
    ~KeptConnection() { drop(); }
    void drop();
};

// Both throw InputError naming req.url, within `limits`. `keep` (plain only): a connection
// to reuse when it goes where this request goes, and where this one is left when the
// answer allows (nullptr: one connection for this request, "Connection: close").
Answer plain_exchange(const Request& req, const HttpLimits& limits, KeptConnection* keep = nullptr);
Answer tls_exchange(const Request& req, const HttpLimits& limits, const HttpOptions& options);

// The messages both transports give.
std::string cannot_connect(const Request& req);
std::string no_answer(const std::string& url, const HttpLimits& limits);
std::string no_complete_answer(const std::string& url, const HttpLimits& limits);
std::string too_big(const std::string& url, const HttpLimits& limits);

}  // namespace inferlint::util::http_detail
