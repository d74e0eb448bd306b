// Internal to util: the text side of the HTTP client, apart from its sockets: the request
// it sends, and the words for what comes back.
#pragma once

#include "inferlint/util/url.hpp"

#include <string>
#include <string_view>

namespace inferlint::util::http_text {

struct HttpTarget {
    BaseUrl base;
    std::string path;  // with query
};

// A full URL as given to http_get/http_post_json: "http://host:port/path?query".
HttpTarget split_url(const std::string& url);

// The whole request: request line, headers ("Connection: close") and the JSON body if any.
std::string request_text(const HttpTarget& t, const std::string& method, const std::string* body);

// Printable ASCII of the first bytes of an answer, for a message that must stay one line.
std::string shown_start(std::string_view bytes);

}  // namespace inferlint::util::http_text
