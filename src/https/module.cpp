// inferlint-https.so: one https exchange through cpp-httplib's SSLClient and OpenSSL, held
// to the limits the core gives (connect and read times, a total time, the body cap). Loaded
// by src/util/http_tls.cpp only when an https URL is asked for, so that a run without one
// does not map OpenSSL, cpp-httplib and the shared libstdc++ at start-up.
#include "util/https_abi.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::microseconds span(double seconds) {
    if (!(seconds > 0.001)) seconds = 0.001;
    seconds = std::min(seconds, 1e7);
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(seconds));
}

void put(inferlint_https_answer* a, inferlint_https_field field, std::string_view text) {
    a->append(a->sink, field, text.data(), text.size());
}

// The system's CAs and the --ca-cert file's, for the client to own; nullptr when the file
// is not PEM.
X509_STORE* trusted_store(const char* ca_cert) {
    X509_STORE* store = X509_STORE_new();
    if (!store) return nullptr;
    X509_STORE_set_default_paths(store);
    ERR_clear_error();
    if (X509_STORE_load_file(store, ca_cert) != 1) {
        X509_STORE_free(store);
        ERR_clear_error();
        return nullptr;
    }
    return store;
}

// Stops the client once the whole exchange's time is up, however the server trickles.
class TotalTimer {
public:
    TotalTimer(httplib::SSLClient& client, double total_s) {
        if (!(total_s > 0)) return;
        const auto end = Clock::now() + span(total_s);
        thread_ = std::thread([this, &client, end] {
            std::unique_lock lock(mu_);
            if (!cv_.wait_until(lock, end, [this] { return done_; })) {
                fired_ = true;
                client.stop();
            }
        });
    }
    ~TotalTimer() {
        {
            std::lock_guard lock(mu_);
            done_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    bool fired() {
        std::lock_guard lock(mu_);
        return fired_;
    }
    TotalTimer(const TotalTimer&) = delete;
    TotalTimer& operator=(const TotalTimer&) = delete;

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false, fired_ = false;
    std::thread thread_;
};

inferlint_https_failure failure_of(httplib::Error err, long verify_result, inferlint_https_answer* a) {
    using httplib::Error;
    switch (err) {
        case Error::Connection:
        case Error::ConnectionTimeout:
            return INFERLINT_HTTPS_CONNECT;
        case Error::SSLConnection:
            return INFERLINT_HTTPS_HANDSHAKE;
        case Error::SSLServerVerification:
            if (verify_result == X509_V_OK) return INFERLINT_HTTPS_WRONG_HOST;
            put(a, INFERLINT_HTTPS_DETAIL, X509_verify_cert_error_string(verify_result));
            return INFERLINT_HTTPS_UNTRUSTED;
        case Error::SSLLoadingCerts:
            return INFERLINT_HTTPS_CA_FILE;
        case Error::Write:
            return INFERLINT_HTTPS_WRITE;
        default:
            return INFERLINT_HTTPS_READ;
    }
}

httplib::Request request_of(const inferlint_https_request& q) {
    httplib::Request r;
    r.method = q.method;
    r.path = q.target;
    auto given = [&q](std::string_view name) {
        for (std::size_t i = 0; i < q.header_count; ++i) {
            std::string_view n = q.headers[i].name;
            if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char x, char y) {
                    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
                }))
                return true;
        }
        return false;
    };
    if (!given("Accept")) r.headers.emplace("Accept", "*/*");
    if (!given("User-Agent")) r.headers.emplace("User-Agent", "inferlint");
    r.headers.emplace("Accept-Encoding", "identity");
    for (std::size_t i = 0; i < q.header_count; ++i) r.headers.emplace(q.headers[i].name, q.headers[i].value);
    if (q.body) {
        r.body.assign(q.body, q.body_size);
        r.headers.emplace("Content-Type", "application/json");
    }
    return r;
}

inferlint_https_failure exchange(const inferlint_https_request& q, inferlint_https_answer* a) {
    httplib::SSLClient client(q.host, q.port);
    client.set_url_encode(false);  // the target comes encoded
    client.set_keep_alive(false);
    client.set_connection_timeout(span(q.connect_s));
    client.set_read_timeout(span(q.read_s));
    client.set_write_timeout(span(q.read_s));
    client.enable_server_certificate_verification(q.insecure == 0);
    if (!q.insecure && q.ca_cert) {
        X509_STORE* store = trusted_store(q.ca_cert);
        if (!store) return INFERLINT_HTTPS_CA_FILE;
        client.set_ca_cert_store(store);
    }
    if (q.proxy_host) {
        client.set_proxy(q.proxy_host, q.proxy_port);
        if (q.proxy_user) client.set_proxy_basic_auth(q.proxy_user, q.proxy_password ? q.proxy_password : "");
    }
    std::size_t received = 0;
    bool over_cap = false;
    httplib::Request r = request_of(q);
    r.response_handler = [&](const httplib::Response& head) {
        if (head.has_header("Content-Length") &&
            head.get_header_value<std::uint64_t>("Content-Length") > q.max_body_bytes)
            return !(over_cap = true);
        return true;
    };
    r.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        if (n > q.max_body_bytes - received) return !(over_cap = true);
        received += n;
        a->append(a->sink, INFERLINT_HTTPS_BODY, data, n);
        return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    bool ok = false, timed_out = false;
    {
        TotalTimer timer(client, q.total_s);
        ok = client.send(r, res, err);
        timed_out = timer.fired();
    }
    if (over_cap) return INFERLINT_HTTPS_TOO_BIG;
    if (timed_out && !ok) return INFERLINT_HTTPS_TOTAL;
    if (!ok) return failure_of(err, client.get_openssl_verify_result(), a);
    a->status = res.status;
    put(a, INFERLINT_HTTPS_CONTENT_TYPE, res.get_header_value("Content-Type"));
    put(a, INFERLINT_HTTPS_LOCATION, res.get_header_value("Location"));
    return INFERLINT_HTTPS_OK;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) inferlint_https_failure inferlint_https_exchange_v1(
    const inferlint_https_request* request, inferlint_https_answer* answer) {
    try {
        return exchange(*request, answer);
    } catch (const std::exception& e) {  // nothing C++ leaves the module
        put(answer, INFERLINT_HTTPS_DETAIL, e.what());
    } catch (...) {
        put(answer, INFERLINT_HTTPS_DETAIL, "an unknown exception");
    }
    return INFERLINT_HTTPS_INTERNAL;
}
