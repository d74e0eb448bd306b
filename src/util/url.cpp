// Reading a server address as users type it.
#include "inferlint/util/url.hpp"

#include "inferlint/util/error.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>

namespace inferlint::util {
namespace {

using text::kHttpSpace;
using text::lower;
using text::trim;

// Endpoints a user may paste along with the address; the server is what they name.
constexpr std::array<std::string_view, 7> kEndpoints = {
    "/prometheus/metrics", "/metrics", "/v1/completions", "/v1/models", "/v1", "/health", "/version"};

}  // namespace

std::string BaseUrl::str() const {
    bool v6 = host.find(':') != std::string::npos;
    return fmt::format("{}://{}{}{}:{}{}", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port, prefix);
}

std::string BaseUrl::at(std::string_view path) const {
    if (path.empty() || path.front() != '/') return str() + "/" + std::string(path);
    return str() + std::string(path);
}

BaseUrl parse_base_url(std::string_view text) {
    std::string_view s = trim(text, kHttpSpace);
    const std::string shown(s);
    if (s.empty()) throw InputError("no server address given (expected e.g. http://127.0.0.1:8000)");
    BaseUrl b;
    if (auto p = s.find("://"); p != std::string_view::npos) {
        b.scheme = lower(s.substr(0, p));
        if (b.scheme != "http" && b.scheme != "https")
            throw InputError(
                fmt::format("{}: not an http or https address (expected e.g. http://127.0.0.1:8000)", shown));
        if (b.https()) b.port = 443;
        s.remove_prefix(p + 3);
    }
    if (auto q = s.find_first_of("?#"); q != std::string_view::npos) s = s.substr(0, q);
    auto slash = s.find('/');
    std::string_view authority = s.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);

    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) throw InputError(fmt::format("{}: unbalanced '[' in the address", shown));
        b.host = std::string(authority.substr(1, close - 1));
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') throw InputError(fmt::format("{}: cannot read the address", shown));
            port_text = after.substr(1);
        }
    } else {
        auto colon = authority.rfind(':');
        b.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (b.host.empty()) throw InputError(fmt::format("{}: no host in the address", shown));
    if (!port_text.empty()) {
        int port = 0;
        for (char c : port_text) {
            if (c < '0' || c > '9' || port > 65535) {
                port = -1;
                break;
            }
            port = port * 10 + (c - '0');
        }
        if (port <= 0 || port > 65535) throw InputError(fmt::format("{}: '{}' is not a port number", shown, port_text));
        b.port = port;
    }
    std::string prefix(path);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    for (auto ep : kEndpoints) {
        if (prefix.size() >= ep.size() && prefix.compare(prefix.size() - ep.size(), ep.size(), ep) == 0) {
            prefix.erase(prefix.size() - ep.size());
            break;
        }
    }
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    b.prefix = prefix;
    return b;
}

std::string normalise_base_url(std::string_view text) { return parse_base_url(text).str(); }

std::string percent_encode(std::string_view text, std::string_view keep) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        if (std::isalnum(c) || keep.find(static_cast<char>(c)) != std::string_view::npos) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

}  // namespace inferlint::util
