#include "http_text.hpp"

#include "inferlint/util/http.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace inferlint::util {

namespace http_text {

std::string request_target(std::string_view path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char ch : path) {
        auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c >= 0x7F) {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        } else {
            out += ch;
        }
    }
    return out;
}

HttpTarget split_url(const std::string& url) {
    std::string_view s = text::trim(url, text::kHttpSpace);
    std::size_t start = 0;
    if (auto p = s.find("://"); p != std::string_view::npos) start = p + 3;
    auto slash = s.find('/', start);
    std::string path = slash == std::string_view::npos ? "/" : std::string(s.substr(slash));
    if (auto h = path.find('#'); h != std::string::npos) path.erase(h);
    return {parse_base_url(s.substr(0, slash)), path};
}

bool has_header(const HeaderList& headers, std::string_view name) {
    const std::string want = text::lower(name);
    for (const auto& h : headers)
        if (text::lower(h.first) == want) return true;
    return false;
}

std::string request_text(const HttpTarget& t, std::string_view method, const std::string* body, const HeaderList& extra,
                         bool via_proxy, KeepAlive keep) {
    const bool v6 = t.base.host.find(':') != std::string::npos;
    const std::string host = fmt::format("{}{}{}:{}", v6 ? "[" : "", t.base.host, v6 ? "]" : "", t.base.port);
    const std::string target = request_target(t.path);
    std::string req = fmt::format("{} {}{} HTTP/1.1\r\nHost: {}\r\n", method,
                                  via_proxy ? fmt::format("{}://{}", t.base.scheme, host) : "", target, host);
    if (!has_header(extra, "Accept")) req += "Accept: */*\r\n";
    req += keep == KeepAlive::yes ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    if (!has_header(extra, "User-Agent")) req += "User-Agent: inferlint\r\n";
    for (const auto& [name, value] : extra) req += fmt::format("{}: {}\r\n", name, value);
    if (body) req += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body->size());
    req += "\r\n";
    if (body) req += *body;
    return req;
}

std::string base64(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
    }
    if (const std::size_t left = bytes.size() - i; left > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (left == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string shown_start(std::string_view bytes) {
    std::string out;
    for (char c : bytes.substr(0, bytes.find_first_of("\r\n")).substr(0, 40)) out += c >= 0x20 && c < 0x7F ? c : '.';
    return bytes.size() > 40 ? out + "..." : out;
}

}  // namespace http_text

std::string HttpResponse::reason() const {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 204:
            return "No Content";
        case 301:
            return "Moved Permanently";
        case 302:
            return "Found";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 413:
            return "Payload Too Large";
        case 422:
            return "Unprocessable Entity";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 502:
            return "Bad Gateway";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return status >= 500 ? "Server Error" : status >= 400 ? "Client Error" : "";
    }
}

std::string valid_utf8(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t n = in.size();
    std::size_t i = 0;
    while (i < n) {
        // A run of ASCII goes over whole (a /metrics answer is all ASCII): byte by byte,
        // 42 KB took 50 us, a tenth of a watch tick's work.
        std::size_t run = i;
        for (std::uint64_t word = 0; run + 8 <= n; run += 8) {
            std::memcpy(&word, p + run, 8);
            if (word & 0x8080808080808080ULL) break;
        }
        while (run < n && p[run] < 0x80) ++run;
        if (run > i) {
            out.append(in.substr(i, run - i));
            i = run;
            if (i == n) break;
        }
        unsigned char c = p[i];
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c == 0xE0)
            len = 3, lo = 0xA0;
        else if (c >= 0xE1 && c <= 0xEC)
            len = 3;
        else if (c == 0xED)
            len = 3, hi = 0x9F;
        else if (c >= 0xEE && c <= 0xEF)
            len = 3;
        else if (c == 0xF0)
            len = 4, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3)
            len = 4;
        else if (c == 0xF4)
            len = 4, hi = 0x8F;
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
