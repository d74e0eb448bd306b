#include "inferlint/util/http.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>

namespace inferlint::util {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Endpoints a user may paste along with the address; the server is what they name.
constexpr std::array<std::string_view, 7> kEndpoints = {
    "/prometheus/metrics", "/metrics", "/v1/completions", "/v1/models", "/v1", "/health", "/version"};

// Splits a timeout in seconds into httplib's (sec, usec).
std::pair<time_t, time_t> split_seconds(double s) {
    if (!(s > 0)) s = 0.001;
    auto whole = static_cast<time_t>(std::floor(s));
    auto usec = static_cast<time_t>(std::llround((s - static_cast<double>(whole)) * 1e6));
    if (usec >= 1000000) ++whole, usec -= 1000000;
    return {whole, usec};
}

struct Target {
    BaseUrl base;
    std::string path;  // with query
};

// A full URL as given to http_get/http_post_json: "http://host:port/path?query".
Target split_url(const std::string& url) {
    std::string_view s = trim(url);
    std::size_t start = 0;
    if (auto p = s.find("://"); p != std::string_view::npos) start = p + 3;
    auto slash = s.find('/', start);
    std::string path = slash == std::string_view::npos ? "/" : std::string(s.substr(slash));
    if (auto h = path.find('#'); h != std::string::npos) path.erase(h);
    return {parse_base_url(s.substr(0, slash)), path};
}

struct Outcome {
    HttpResponse response;
    bool too_big = false;
    bool too_slow = false;
};

HttpResponse exchange(const std::string& url, const std::string& method, const std::string* body,
                      const HttpLimits& limits) {
    Target t = split_url(url);
    httplib::Client cli(t.base.host, t.base.port);
    auto [cs, cus] = split_seconds(limits.connect_s);
    auto [rs, rus] = split_seconds(limits.read_s);
    cli.set_connection_timeout(cs, cus);
    cli.set_read_timeout(rs, rus);
    cli.set_write_timeout(rs, rus);
    cli.set_keep_alive(false);

    Outcome out;
    const auto t0 = std::chrono::steady_clock::now();
    httplib::Request req;
    req.method = method;
    req.path = t.path;
    req.headers.emplace("Accept", "*/*");
    if (body) {
        req.body = *body;
        req.headers.emplace("Content-Type", "application/json");
    }
    std::string raw;
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
        if (raw.size() + n > limits.max_body_bytes) {
            out.too_big = true;
            return false;
        }
        if (limits.total_s) {
            std::chrono::duration<double> spent = std::chrono::steady_clock::now() - t0;
            if (spent.count() > *limits.total_s) {
                out.too_slow = true;
                return false;
            }
        }
        raw.append(data, n);
        return true;
    };
    auto res = cli.send(req);
    if (!res) {
        auto err = res.error();
        if (out.too_big)
            throw InputError(fmt::format("{}: the answer is larger than {} MiB; is this the server's address?",
                                         url, limits.max_body_bytes >> 20));
        if (out.too_slow)
            throw InputError(fmt::format("{}: no complete answer within {:g} s", url, *limits.total_s));
        switch (err) {
        case httplib::Error::Connection:
        case httplib::Error::ConnectionTimeout:
            throw InputError(fmt::format("cannot connect to {}: nothing answers there (is the server up, and "
                                         "is this its address and port?)",
                                         url));
        case httplib::Error::Read:
            throw InputError(fmt::format("{}: no answer within {:g} s, or the connection was closed mid-answer",
                                         url, limits.read_s));
        case httplib::Error::Write:
            throw InputError(fmt::format("{}: the connection was closed while sending the request", url));
        default:
            throw InputError(fmt::format("{}: request failed ({})", url, httplib::to_string(err)));
        }
    }
    out.response.status = res->status;
    out.response.content_type = res->get_header_value("Content-Type");
    out.response.body = valid_utf8(raw.empty() ? res->body : raw);
    return out.response;
}

}  // namespace

std::string BaseUrl::str() const {
    bool v6 = host.find(':') != std::string::npos;
    return fmt::format("http://{}{}{}:{}{}", v6 ? "[" : "", host, v6 ? "]" : "", port, prefix);
}

std::string BaseUrl::at(std::string_view path) const {
    if (path.empty() || path.front() != '/') return str() + "/" + std::string(path);
    return str() + std::string(path);
}

BaseUrl parse_base_url(std::string_view text) {
    std::string_view s = trim(text);
    const std::string shown(s);
    if (s.empty()) throw InputError("no server address given (expected e.g. http://127.0.0.1:8000)");
    if (auto p = s.find("://"); p != std::string_view::npos) {
        std::string scheme = lower(s.substr(0, p));
        if (scheme == "https")
            throw InputError(fmt::format("{}: https is not supported; give the server's plain http address", shown));
        if (scheme != "http")
            throw InputError(fmt::format("{}: not an http address (expected e.g. http://127.0.0.1:8000)", shown));
        s.remove_prefix(p + 3);
    }
    if (auto q = s.find_first_of("?#"); q != std::string_view::npos) s = s.substr(0, q);
    auto slash = s.find('/');
    std::string_view authority = s.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);

    BaseUrl b;
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos)
            throw InputError(fmt::format("{}: unbalanced '[' in the address", shown));
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
        if (port <= 0 || port > 65535)
            throw InputError(fmt::format("{}: '{}' is not a port number", shown, port_text));
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

std::string HttpResponse::reason() const {
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return status >= 500 ? "Server Error" : status >= 400 ? "Client Error" : "";
    }
}

HttpResponse http_get(const std::string& url, const HttpLimits& limits) {
    return exchange(url, "GET", nullptr, limits);
}

HttpResponse http_post_json(const std::string& url, const std::string& json_body, const HttpLimits& limits) {
    return exchange(url, "POST", &json_body, limits);
}

std::string get_text(const std::string& url, const HttpLimits& limits) {
    HttpResponse r = http_get(url, limits);
    if (r.status < 200 || r.status >= 300)
        throw InputError(fmt::format("{}: HTTP {} {}", url, r.status, r.reason()));
    return std::move(r.body);
}

std::string valid_utf8(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t n = in.size();
    std::size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c == 0xE0) len = 3, lo = 0xA0;
        else if (c >= 0xE1 && c <= 0xEC) len = 3;
        else if (c == 0xED) len = 3, hi = 0x9F;
        else if (c >= 0xEE && c <= 0xEF) len = 3;
        else if (c == 0xF0) len = 4, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3) len = 4;
        else if (c == 0xF4) len = 4, hi = 0x8F;
        std::size_t good = 0;
        if (len) {
            good = 1;
            for (std::size_t k = 1; k < len && i + k < n; ++k) {
                unsigned char b = p[i + k];
                unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
                if (b < l || b > h) break;
                ++good;
            }
        }
        if (len && good == len) {
            out.append(in.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            i += good ? good : 1;  // a truncated sequence is one replacement, as Python does
        }
    }
    return out;
}

}  // namespace inferlint::util
