// The HTTP client's front: the process's options, the headers each request carries, the
// transport for its scheme, and redirects.
#include "inferlint/util/http.hpp"

#include "inferlint/util/error.hpp"
#include "http_internal.hpp"
#include "http_text.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>

namespace inferlint::util {
namespace {

HttpOptions& options_storage() {
    static HttpOptions options;
    return options;
}

// A token as RFC 9110 allows for a header name.
bool header_name_ok(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    });
}

// "/v1/models", "/proxy/v1/completions", "/v1": the OpenAI API that vLLM's --api-key guards.
// Not Prometheus's HTTP API ("/api/v1/query"): the server's key is not for Prometheus.
bool v1_endpoint(std::string_view path) {
    path = path.substr(0, path.find('?'));
    if (path.find("/api/v1/") != std::string_view::npos) return false;
    return path.find("/v1/") != std::string_view::npos || path.ends_with("/v1");
}

bool same_origin(const BaseUrl& a, const BaseUrl& b) {
    return a.scheme == b.scheme && text::lower(a.host) == text::lower(b.host) && a.port == b.port;
}

// The headers a request to `target` carries. Authorization (given, or from the API key)
// goes only to the origin the user named: a redirect elsewhere does not take it along.
http_text::HeaderList request_headers(const http_text::HttpTarget& target, const BaseUrl& asked, const HttpOptions& o) {
    const bool trusted = same_origin(target.base, asked);
    http_text::HeaderList out;
    for (const auto& h : o.headers)
        if (trusted || text::lower(h.first) != "authorization") out.push_back(h);
    if (trusted && o.api_key && v1_endpoint(target.path) && !http_text::has_header(o.headers, "Authorization"))
        out.emplace_back("Authorization", "Bearer " + *o.api_key);
    return out;
}

// Where a Location header points, from the URL that answered with it.
std::string resolve_location(const http_text::HttpTarget& from, std::string_view location) {
    location = text::trim(location, text::kHttpSpace);
    if (auto p = location.find("://"); p != std::string_view::npos && p < location.find('/'))
        return std::string(location);
    const std::string origin = BaseUrl{from.base.scheme, from.base.host, from.base.port, ""}.str();
    if (location.starts_with("//")) return from.base.scheme + ":" + std::string(location);
    if (location.starts_with("/")) return origin + std::string(location);
    std::string dir = from.path.substr(0, from.path.find('?'));
    dir.erase(dir.rfind('/') + 1);
    return origin + dir + std::string(location);
}

bool is_redirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

using Clock = std::chrono::steady_clock;

// What is left of the whole exchange's total time for the next hop.
std::optional<double> time_left(const HttpLimits& limits, Clock::time_point start, const std::string& url) {
    if (!limits.total_s) return std::nullopt;
    const double left = *limits.total_s - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) throw InputError(http_detail::no_complete_answer(url, limits));
    return left;
}

// `keep`: an HttpSession's connection (plain HTTP only), or nullptr for one per request.
HttpResponse exchange(const std::string& url, std::string_view method, const std::string* body,
                      const HttpLimits& limits, http_detail::KeptConnection* keep = nullptr) {
    const HttpOptions& o = http_options();
    const Clock::time_point start = Clock::now();
    const http_text::HttpTarget asked = http_text::split_url(url);
    std::string current = url;
    http_text::HttpTarget target = asked;
    for (int hop = 0;; ++hop) {
        const http_text::HeaderList headers = request_headers(target, asked.base, o);
        const std::optional<HttpProxy> proxy = proxy_for(target.base);
        http_detail::Answer answer;
        try {
            const http_detail::Request req{
                current, target, method, body, headers, proxy, time_left(limits, start, current)};
            answer = target.base.https() ? http_detail::tls_exchange(req, limits, o)
                                         : http_detail::plain_exchange(req, limits, keep);
        } catch (const InputError& e) {
            if (hop == 0) throw;
            throw InputError(fmt::format("{} (redirected from {})", e.what(), url));
        }
        const bool follow = is_redirect(answer.status) && !answer.location.empty() &&
                            (body == nullptr || answer.status == 307 || answer.status == 308);
        if (!follow) {
            HttpResponse response;
            response.status = answer.status;
            response.content_type = std::move(answer.content_type);
            response.body = valid_utf8(answer.body);
            return response;
        }
        const std::string next = resolve_location(target, answer.location);
        if (hop >= o.max_redirects)
            throw InputError(fmt::format("{}: more than {} redirects (a redirect loop?), the last to {}", url,
                                         o.max_redirects, next));
        try {
            target = http_text::split_url(next);
        } catch (const InputError& e) {
            throw InputError(fmt::format("{}: redirected to {}, which cannot be followed ({})", url, next, e.what()));
        }
        current = next;
    }
}

}  // namespace

void set_http_options(HttpOptions options) { options_storage() = std::move(options); }

const HttpOptions& http_options() { return options_storage(); }

std::pair<std::string, std::string> parse_header(std::string_view text) {
    const auto colon = text.find(':');
    const std::string shown(text);
    if (colon == std::string_view::npos) throw InputError(fmt::format("--header '{}': expected 'Name: value'", shown));
    const std::string name(text::trim(text.substr(0, colon), " \t"));
    const std::string value(text::trim(text.substr(colon + 1), " \t"));
    if (!header_name_ok(name)) throw InputError(fmt::format("--header '{}': '{}' is not a header name", shown, name));
    if (value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos)
        throw InputError(fmt::format("--header '{}': a value may not hold a line break", shown));
    static constexpr std::array<std::string_view, 4> kOwn = {"host", "content-length", "transfer-encoding",
                                                             "connection"};
    if (std::find(kOwn.begin(), kOwn.end(), text::lower(name)) != kOwn.end())
        throw InputError(fmt::format("--header '{}': inferlint sets {} itself", shown, name));
    return {name, value};
}

HttpResponse http_get(const std::string& url, const HttpLimits& limits) {
    return exchange(url, "GET", nullptr, limits);
}

HttpResponse http_post_json(const std::string& url, const std::string& json_body, const HttpLimits& limits) {
    return exchange(url, "POST", &json_body, limits);
}

namespace {

std::string body_of_2xx(HttpResponse r, const std::string& url) {
    if (r.status < 200 || r.status >= 300) throw InputError(fmt::format("{}: HTTP {} {}", url, r.status, r.reason()));
    return std::move(r.body);
}

}  // namespace

std::string get_text(const std::string& url, const HttpLimits& limits) {
    return body_of_2xx(http_get(url, limits), url);
}

HttpSession::HttpSession() : kept_(std::make_unique<http_detail::KeptConnection>()) {}

HttpSession::~HttpSession() = default;

HttpResponse HttpSession::get(const std::string& url, const HttpLimits& limits) {
    return exchange(url, "GET", nullptr, limits, kept_.get());
}

std::string HttpSession::get_text(const std::string& url, const HttpLimits& limits) {
    return body_of_2xx(get(url, limits), url);
}

// The messages both transports give (declared in http_internal.hpp).
namespace http_detail {

std::string cannot_connect(const Request& req) {
    if (req.proxy)
        return fmt::format(
            "cannot connect to {}: its proxy {} does not answer (is http_proxy/https_proxy right, "
            "or should no_proxy name this host?)",
            req.url, req.proxy->where.str());
    return fmt::format(
        "cannot connect to {}: nothing answers there (is the server up, and is this its address "
        "and port?)",
        req.url);
}

std::string no_answer(const std::string& url, const HttpLimits& limits) {
    return fmt::format("{}: no answer within {:g} s, or the connection was closed mid-answer", url, limits.read_s);
}

std::string no_complete_answer(const std::string& url, const HttpLimits& limits) {
    return fmt::format("{}: no complete answer within {:g} s", url, limits.total_s.value_or(limits.read_s));
}

std::string too_big(const std::string& url, const HttpLimits& limits) {
    return fmt::format("{}: the answer is larger than {} MiB; is this the server's address?", url,
                       limits.max_body_bytes >> 20);
}

}  // namespace http_detail

}  // namespace inferlint::util
