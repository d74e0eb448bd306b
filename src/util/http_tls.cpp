// The https transport: the module inferlint-https.so (cpp-httplib and OpenSSL), loaded the
// first time an https URL is asked for, and its answer in the client's own words.
#include "inferlint/util/error.hpp"
#include "http_internal.hpp"
#include "https_abi.h"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <mutex>
#include <vector>

namespace inferlint::util::http_detail {
namespace {

constexpr const char* kModuleName = "inferlint-https.so";

// Where the module may be: beside the program (a build folder), or in ../lib/inferlint
// (installed: /usr/bin/inferlint, /usr/lib/inferlint/inferlint-https.so).
std::vector<std::filesystem::path> module_places() {
    std::vector<std::filesystem::path> out;
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return out;
    const std::filesystem::path dir =
        std::filesystem::path(std::string(self, static_cast<std::size_t>(n))).parent_path();
    out.push_back(dir / kModuleName);
    out.push_back(dir.parent_path() / "lib" / "inferlint" / kModuleName);
    return out;
}

struct HttpsModule {
    inferlint_https_exchange_fn exchange = nullptr;
    std::string why_not;  // when it could not be loaded
};

const HttpsModule& https_module() {
    static HttpsModule module;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string tried;
        for (const auto& place : module_places()) {
            void* handle = ::dlopen(place.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                const char* why = ::dlerror();
                tried += fmt::format("{}{}", tried.empty() ? "" : "; ", why ? why : place.string());
                continue;
            }
            module.exchange = reinterpret_cast<inferlint_https_exchange_fn>(::dlsym(handle, INFERLINT_HTTPS_ENTRY));
            if (module.exchange) return;
            tried += fmt::format("{}{}: no {}", tried.empty() ? "" : "; ", place.string(), INFERLINT_HTTPS_ENTRY);
        }
        module.why_not = tried.empty() ? "cannot find the program's own folder" : tried;
    });
    return module;
}

struct HttpsSink {
    std::string body, content_type, location, detail;
};

void sink_append(void* sink, inferlint_https_field field, const char* data, std::size_t size) {
    auto* s = static_cast<HttpsSink*>(sink);
    std::string& to = field == INFERLINT_HTTPS_BODY           ? s->body
                      : field == INFERLINT_HTTPS_CONTENT_TYPE ? s->content_type
                      : field == INFERLINT_HTTPS_LOCATION     ? s->location
                                                              : s->detail;
    to.append(data, size);
}

std::string tls_message(inferlint_https_failure failure, const Request& req, const HttpLimits& limits,
                        const HttpOptions& options, const std::string& detail) {
    switch (failure) {
        case INFERLINT_HTTPS_CONNECT:
            return cannot_connect(req);
        case INFERLINT_HTTPS_HANDSHAKE:
            return fmt::format("{}: the TLS handshake failed (is this an https server, and its https port?)", req.url);
        case INFERLINT_HTTPS_UNTRUSTED:
            return fmt::format(
                "{}: the server's certificate is not trusted ({}); give its CA with --ca-cert FILE, or "
                "--insecure to skip the check",
                req.url, detail);
        case INFERLINT_HTTPS_WRONG_HOST:
            return fmt::format("{}: the server's certificate does not name {} (--insecure skips the check)", req.url,
                               req.target.base.host);
        case INFERLINT_HTTPS_CA_FILE:
            return fmt::format("--ca-cert {}: not a readable PEM file of certificates", options.ca_cert.value_or(""));
        case INFERLINT_HTTPS_WRITE:
            return fmt::format("{}: the connection was closed while sending the request", req.url);
        case INFERLINT_HTTPS_TOTAL:
            return no_complete_answer(req.url, limits);
        case INFERLINT_HTTPS_TOO_BIG:
            return too_big(req.url, limits);
        case INFERLINT_HTTPS_INTERNAL:
            return fmt::format("{}: https failed ({})", req.url, detail);
        default:
            return no_answer(req.url, limits);
    }
}

}  // namespace

Answer tls_exchange(const Request& req, const HttpLimits& limits, const HttpOptions& options) {
    const HttpsModule& module = https_module();
    if (!module.exchange)
        throw InputError(fmt::format("{}: https needs {}, which was not found with this program ({})", req.url,
                                     kModuleName, module.why_not));
    const std::string target = http_text::request_target(req.target.path);
    std::vector<inferlint_https_header> headers;
    for (const auto& [name, value] : req.headers) headers.push_back({name.c_str(), value.c_str()});
    std::string proxy_user, proxy_password;
    if (req.proxy && !req.proxy->credentials.empty()) {
        const auto colon = req.proxy->credentials.find(':');
        proxy_user = req.proxy->credentials.substr(0, colon);
        if (colon != std::string::npos) proxy_password = req.proxy->credentials.substr(colon + 1);
    }
    const std::string method(req.method);
    const inferlint_https_request q{
        .host = req.target.base.host.c_str(),
        .port = req.target.base.port,
        .target = target.c_str(),
        .method = method.c_str(),
        .body = req.body ? req.body->data() : nullptr,
        .body_size = req.body ? req.body->size() : 0,
        .headers = headers.data(),
        .header_count = headers.size(),
        .proxy_host = req.proxy ? req.proxy->where.host.c_str() : nullptr,
        .proxy_port = req.proxy ? req.proxy->where.port : 0,
        .proxy_user = proxy_user.empty() ? nullptr : proxy_user.c_str(),
        .proxy_password = proxy_password.c_str(),
        .connect_s = limits.connect_s,
        .read_s = limits.read_s,
        .total_s = req.total_left_s.value_or(0.0),
        .max_body_bytes = limits.max_body_bytes,
        .ca_cert = options.ca_cert ? options.ca_cert->c_str() : nullptr,
        .insecure = options.insecure ? 1 : 0,
    };
    HttpsSink sink;
    inferlint_https_answer a{.status = 0, .sink = &sink, .append = sink_append};
    const inferlint_https_failure failure = module.exchange(&q, &a);
    if (failure != INFERLINT_HTTPS_OK) throw InputError(tls_message(failure, req, limits, options, sink.detail));
    return Answer{a.status, std::move(sink.body), std::move(sink.content_type), std::move(sink.location)};
}

}  // namespace inferlint::util::http_detail
