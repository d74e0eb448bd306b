// Proxies from the environment, read as Python's urllib reads them (getproxies_environment,
// proxy_bypass_environment), so inferlint goes where the Python tool went.
#include "inferlint/util/http.hpp"

#include "inferlint/util/error.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace inferlint::util {
namespace {

// The value of <scheme>_proxy: the lower-case name wins, even set to "" (which means none);
// then the upper-case one, except HTTP_PROXY in a CGI script (CVE-2016-1000110).
std::optional<std::string> proxy_variable(const std::string& scheme) {
    if (const char* low = std::getenv((scheme + "_proxy").c_str()))
        return *low ? std::optional<std::string>(low) : std::nullopt;
    if (scheme == "http" && std::getenv("REQUEST_METHOD")) return std::nullopt;
    std::string upper = scheme + "_PROXY";
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* up = std::getenv(upper.c_str()); up && *up) return std::string(up);
    return std::nullopt;
}

// %XX decoded, as urllib's unquote does to a proxy's user and password.
std::string unquote(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto hex = text::hex_digit;
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// "http://user:pass@proxy:3128/", "proxy:3128": where the proxy is, and its credentials.
HttpProxy parse_proxy(const std::string& variable, const std::string& value) {
    std::string_view s = text::trim(value, text::kHttpSpace);
    if (auto p = s.find("://"); p != std::string_view::npos) {
        const std::string scheme = text::lower(s.substr(0, p));
        if (scheme != "http")
            throw InputError(fmt::format("{}={}: only http:// proxies are supported", variable, value));
        s.remove_prefix(p + 3);
    }
    HttpProxy proxy;
    const auto slash = s.find('/');
    std::string_view authority = s.substr(0, slash);
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
        proxy.credentials = unquote(authority.substr(0, at));
        authority.remove_prefix(at + 1);
    }
    try {
        proxy.where = parse_base_url(authority);
    } catch (const InputError& e) {
        throw InputError(fmt::format("{}={}: not a proxy address ({})", variable, value, e.what()));
    }
    return proxy;
}

// no_proxy: "*", or host names and domain suffixes separated by commas, a port allowed.
bool bypassed(const BaseUrl& target, const std::string& no_proxy) {
    if (text::trim(no_proxy, text::kHttpSpace) == "*") return true;
    const std::string host = text::lower(target.host);
    const bool v6 = host.find(':') != std::string::npos;
    const std::string bracketed = v6 ? "[" + host + "]" : host;
    const std::string with_port = fmt::format("{}:{}", bracketed, target.port);
    std::string_view rest = no_proxy;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::string name = text::lower(text::trim(rest.substr(0, comma), text::kHttpSpace));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        name.erase(0, name.find_first_not_of('.'));
        if (name.empty()) continue;
        if (name == host || name == bracketed || name == with_port) return true;
        const std::string suffix = "." + name;
        if (host.ends_with(suffix) || with_port.ends_with(suffix)) return true;
    }
    return false;
}

}  // namespace

std::optional<HttpProxy> proxy_for(const BaseUrl& target) {
    const std::optional<std::string> proxy = proxy_variable(target.scheme);
    if (!proxy) return std::nullopt;
    if (std::optional<std::string> no = proxy_variable("no"); no && bypassed(target, *no)) return std::nullopt;
    return parse_proxy(target.scheme + "_proxy", *proxy);
}

}  // namespace inferlint::util
