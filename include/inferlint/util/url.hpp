// Server addresses as users type them ("127.0.0.1:8000", "http://h:8000/metrics"), read
// into host, port and path prefix.
#pragma once

#include <string>
#include <string_view>

namespace inferlint::util {

// Where a server is: scheme ("http" or "https"), host, port and a path prefix ("" or "/x").
struct BaseUrl {
    std::string scheme = "http";
    std::string host;
    int port = 80;       // 443 for https when none is given
    std::string prefix;  // a reverse proxy's mount point, without a trailing slash

    bool https() const { return scheme == "https"; }
    // "http://host:port" plus the prefix; what users see in messages and files.
    std::string str() const;
    // The full URL of a path on this server ("/metrics" -> "http://h:p/metrics").
    std::string at(std::string_view path) const;
};

// Reads what a user typed as a server address: "127.0.0.1:8000", "localhost:8000/",
// "http://h:8000/metrics" and "http://h:8000/v1" all name the server at http://h:8000;
// "https://h/metrics" names https://h:443. Throws InputError for another scheme, an empty
// host or a bad port.
BaseUrl parse_base_url(std::string_view text);

// The same, as text ("http://h:8000").
std::string normalise_base_url(std::string_view text);

// `text` percent-encoded (%XX, upper case) but for letters, digits and the characters in
// `keep` (by default RFC 3986's unreserved ones, as a query string's value wants).
std::string percent_encode(std::string_view text, std::string_view keep = "-_.~");

}  // namespace inferlint::util
