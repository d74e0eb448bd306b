#include "inferlint/run/probe.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <tuple>
#include <exception>
#include <thread>
#include <vector>

namespace inferlint::run {
namespace {

using checks::ProbeReply;

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string reason_phrase(int status) {
    util::HttpResponse r;
    r.status = status;
    return r.reason();
}

ProbeReply post_completion(const ProbeHttp& http, const std::string& url, const std::string& body, double timeout_s) {
    ProbeReply r;
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    std::string text;
    try {
        std::tie(status, text) = http.post(url, body, timeout_s);
    } catch (const std::exception& e) {
        r.seconds = since(t0);
        r.error = e.what();
        return r;
    }
    r.seconds = since(t0);
    r.status = status;
    if (status < 200 || status >= 300) {
        r.error = reason_phrase(status);
        return r;
    }
    Json doc = Json::parse(text, nullptr, false);
    if (!doc.is_object()) {
        r.status.reset();  // as urllib: an unreadable body is no answer
        r.error = fmt::format("{}: the answer is not JSON", url);
        return r;
    }
    if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
        if (auto c = u->find("completion_tokens"); c != u->end() && c->is_number()) r.tokens = c->get<long long>();
    }
    std::string choice_text;
    if (auto c = doc.find("choices"); c != doc.end() && c->is_array() && !c->empty() && (*c)[0].is_object()) {
        const Json& first = (*c)[0];
        if (auto t = first.find("text"); t != first.end() && t->is_string()) choice_text = t->get<std::string>();
    }
    r.ok = status == 200 && (r.tokens > 0 || !choice_text.empty());
    if (!r.ok) r.error = "empty completion";
    return r;
}

// 401 from a /v1 endpoint: the server was started with --api-key. A setup error (exit 2),
// not a server that fails T7.
class WantsApiKey : public InputError {
public:
    explicit WantsApiKey(const std::string& url)
        : InputError(util::http_options().api_key || has_authorization()
                         ? fmt::format("{}: HTTP 401 Unauthorized: the server refused the API key given "
                                       "(--api-key, VLLM_API_KEY or --header)",
                                       url)
                         : fmt::format("{}: HTTP 401 Unauthorized: the server wants an API key (give it with "
                                       "--api-key KEY or VLLM_API_KEY)",
                                       url)) {}

private:
    static bool has_authorization() {
        for (const auto& [name, value] : util::http_options().headers)
            if (name.size() == 13 && std::equal(name.begin(), name.end(), "authorization",
                                                [](char a, char b) { return std::tolower(a) == b; }))
                return true;
        return false;
    }
};

bool alive(const ProbeHttp& http, const std::string& base, double timeout_s) {
    try {
        return http.get(base + "/health", timeout_s).first == 200;
    } catch (const std::exception&) {
        return false;
    }
}

// The first model the server lists; throws with what went wrong.
std::string first_model(const ProbeHttp& http, const std::string& base, double timeout_s) {
    const std::string url = base + "/v1/models";
    auto [status, body] = http.get(url, timeout_s);
    if (status == 401) throw WantsApiKey(url);
    if (status != 200) throw InputError(fmt::format("{}: HTTP {} {}", url, status, reason_phrase(status)));
    Json doc = Json::parse(body, nullptr, false);
    if (doc.is_discarded()) throw InputError(fmt::format("{}: the answer is not JSON", url));
    if (doc.is_object()) {
        auto d = doc.find("data");
        if (d != doc.end() && d->is_array() && !d->empty() && (*d)[0].is_object()) {
            auto id = (*d)[0].find("id");
            if (id != (*d)[0].end() && id->is_string()) return id->get<std::string>();
        }
    }
    throw InputError(fmt::format("{}: no model listed (expected {{\"data\": [{{\"id\": ...}}]}})", url));
}

}  // namespace

ProbeHttp real_probe_http() {
    auto limits = [](double timeout_s) {
        util::HttpLimits l;
        l.connect_s = std::min(10.0, timeout_s);
        l.read_s = timeout_s;
        l.total_s = timeout_s;
        l.max_body_bytes = std::size_t{16} << 20;
        return l;
    };
    return ProbeHttp{
        .get =
            [limits](const std::string& url, double timeout_s) {
                auto r = util::http_get(url, limits(timeout_s));
                return std::pair<int, std::string>{r.status, std::move(r.body)};
            },
        .post =
            [limits](const std::string& url, const std::string& body, double timeout_s) {
                auto r = util::http_post_json(url, body, limits(timeout_s));
                return std::pair<int, std::string>{r.status, std::move(r.body)};
            },
    };
}

checks::ProbeRecord probe_record(const std::string& base_url, const ProbeOptions& options, const ProbeHttp& http) {
    const std::string base = util::normalise_base_url(base_url);
    checks::ProbeRecord rec;
    rec.concurrency = options.concurrency;
    try {
        rec.model = options.model ? *options.model : first_model(http, base, options.list_timeout_s);
    } catch (const WantsApiKey&) {
        throw;
    } catch (const std::exception& e) {
        rec.list_error = e.what();
        return rec;
    }
    Json body{{"model", rec.model}, {"prompt", kProbePrompt}, {"max_tokens", options.max_tokens}, {"temperature", 0.0}};
    const std::string text = body.dump();
    const std::string url = base + "/v1/completions";

    rec.first = post_completion(http, url, text, options.timeout_s);
    if (rec.first->status == 401) throw WantsApiKey(url);
    if (!rec.first->ok) {
        rec.alive_after = alive(http, base, options.health_timeout_s);
        return rec;
    }
    rec.burst.resize(static_cast<std::size_t>(std::max(0, options.concurrency)));
    {
        std::vector<std::jthread> pool;
        pool.reserve(rec.burst.size());
        for (auto& slot : rec.burst)
            pool.emplace_back([&, s = &slot] { *s = post_completion(http, url, text, options.timeout_s); });
    }
    rec.alive_after = alive(http, base, options.health_timeout_s);
    return rec;
}

CheckResult probe(const std::string& base_url, const ProbeOptions& options, const ProbeHttp& http) {
    return checks::probe_verdict(probe_record(base_url, options, http));
}

}  // namespace inferlint::run
