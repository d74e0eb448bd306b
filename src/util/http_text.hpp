// Internal to util: the text side of the HTTP client, apart from its sockets: the request
// it sends, and the words for what comes back.
#pragma once

#include "inferlint/util/url.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlint::util::http_text {

struct HttpTarget {
    BaseUrl base;
    std::string path;  // with query
};

// A full URL as given to http_get/http_post_json: "http://host:port/path?query".
HttpTarget split_url(const std::string& url);

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The path as it may stand on the request line: spaces, control bytes and non-ASCII
// percent-encoded, so a pasted URL cannot break the request (or inject a header).
std::string request_target(std::string_view path);

// Whether the connection is to stay open after the answer.
enum class KeepAlive { no, yes };

// The whole request: request line, headers ("Connection: close", or "keep-alive"),
// `extra` (which replace the default Accept and User-Agent when they name them) and the
// JSON body if any. `via_proxy`: the request line carries the absolute URL, as a proxy
// wants it.
std::string request_text(const HttpTarget& t, std::string_view method, const std::string* body,
                         const HeaderList& extra = {}, bool via_proxy = false, KeepAlive keep = KeepAlive::no);

// True when `headers` has one named `name` (case-insensitive).
bool has_header(const HeaderList& headers, std::string_view name);

// RFC 4648 base64, for Proxy-Authorization: Basic.
std::string base64(std::string_view bytes);

// Printable ASCII of the first bytes of an answer, for a message that must stay one line.
std::string shown_start(std::string_view bytes);

}  // namespace inferlint::util::http_text
