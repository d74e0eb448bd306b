// Reading what Prometheus scraped, through its HTTP API: instant queries, and a snapshot
// of one replica built from them.
#include "inferlint/run/prometheus.hpp"
#include "prometheus_internal.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/url.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace inferlint::run {

namespace detail {

std::string prom_escape(std::string_view s) { return util::percent_encode(s); }

// The matchers inside the selector's braces: '{job="x"}' -> 'job="x"'.
std::string prom_matchers(const std::string& selector) {
    std::string s = selector;
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    if (s.empty()) return "";
    if (s.front() != '{' || s.back() != '}')
        throw InputError(
            fmt::format("--match: '{}' is not a label selector: give matchers in braces, e.g. "
                        "'{{job=\"vllm\",namespace=\"bench\"}}'",
                        s.substr(0, 80)));
    return s.substr(1, s.size() - 2);
}

std::string prom_with(const std::string& inner, const std::string& more) {
    if (inner.empty()) return "{" + more + "}";
    if (more.empty()) return "{" + inner + "}";
    return "{" + more + "," + inner + "}";
}

std::string prom_label_matcher(const std::string& key, const std::string& value) {
    std::string v;
    for (char c : value) {
        if (c == '\\' || c == '"') v += '\\';
        v += c;
    }
    return fmt::format("{}=\"{}\"", key, v);
}

std::string prom_moment_text(double t) { return fmt::format("{:.3f}", t); }

// GET one API path ("/api/v1/query?..."): the body of a JSON answer, or InputError naming
// Prometheus and the query.
std::string prom_get(const PromSource& src, const std::string& path_query, const std::string& what) {
    const std::string base = util::normalise_base_url(src.url);
    util::HttpResponse r = util::http_get(base + path_query, src.limits);
    const std::string source = fmt::format("{} ({})", base, what);
    const bool json = r.content_type.find("json") != std::string::npos;
    if (!json && (r.status < 200 || r.status >= 300))
        throw InputError(fmt::format("{}: HTTP {} {}", source, r.status, r.reason()));
    if (!json)
        throw InputError(fmt::format("{}: the answer is not JSON ({}): is this Prometheus?", source,
                                     r.content_type.empty() ? "no Content-Type" : r.content_type));
    return std::move(r.body);
}

void refuse_partial(const parse::PromAnswer& a, const std::string& source) {
    if (a.warnings.empty()) return;
    throw InputError(
        fmt::format("{}: Prometheus warned that the answer may be partial ({}): a verdict from part of "
                    "the data could pass what failed, so none is given",
                    source, a.warnings.front().substr(0, 200)));
}

}  // namespace detail

using namespace detail;

std::string replica_label(const parse::PromSeries& s) { return s.labels.count("pod") ? "pod" : "instance"; }

parse::PromAnswer prom_instant(const PromSource& src, const std::string& query, double at) {
    const std::string what = "query " + query;
    std::string body =
        prom_get(src, fmt::format("/api/v1/query?query={}&time={}", prom_escape(query), prom_moment_text(at)), what);
    const std::string source = fmt::format("{} ({})", util::normalise_base_url(src.url), what);
    parse::PromAnswer a = parse::parse_prom_answer(body, source);
    refuse_partial(a, source);
    return a;
}

parse::PromAnswer prom_range(const PromSource& src, const std::string& query, double start, double end, double step,
                             std::size_t series_hint) {
    const std::string base = util::normalise_base_url(src.url);
    const std::string what = "query_range " + query;
    const std::string source = fmt::format("{} ({})", base, what);
    if (!(step > 0)) throw InputError(fmt::format("{}: the step must be above 0", source));
    const double steps = std::floor((end - start) / step) + 1;
    if (steps > 1e6)
        throw InputError(
            fmt::format("{}: the window ({:g} s) at a {:g} s step is {:.0f} steps, over a million: give "
                        "a larger --step or a shorter window",
                        source, end - start, step, steps));
    // Prometheus answers at most 11,000 points per series; a piece also stays near 200,000
    // points in all (a few MB of JSON) however many series match.
    const double per_piece = std::max(
        1.0, std::min(10000.0, std::floor(200000.0 / static_cast<double>(std::max<std::size_t>(series_hint, 1)))));
    parse::PromAnswer all;
    all.result_type = "matrix";
    std::map<std::map<std::string, std::string>, std::size_t> index;
    for (double k = 0; k < steps; k += per_piece) {
        const double from = start + k * step;
        const double to = std::min(end, start + (k + per_piece - 1) * step);
        std::string body =
            prom_get(src,
                     fmt::format("/api/v1/query_range?query={}&start={}&end={}&step={}", prom_escape(query),
                                 prom_moment_text(from), prom_moment_text(to), fmt::format("{:g}", step)),
                     what);
        parse::PromAnswer a = parse::parse_prom_answer(body, source);
        refuse_partial(a, source);
        for (auto& s : a.series) {
            auto [it, fresh] = index.emplace(s.labels, all.series.size());
            if (fresh) {
                all.series.push_back(std::move(s));
                continue;
            }
            auto& into = all.series[it->second].samples;
            for (const auto& x : s.samples)
                if (into.empty() || x.t > into.back().t) into.push_back(x);
        }
    }
    return all;
}

Snapshot prometheus_snapshot(const PromSource& src, double at) {
    const std::string inner = prom_matchers(src.selector);
    const std::string engines = R"(__name__=~"(vllm:|sglang:|trtllm_).+")";
    parse::PromAnswer got = prom_instant(src, prom_with(inner, engines), at);
    const std::string shown = src.selector.empty() ? std::string("{}") : src.selector;
    if (got.series.empty())
        throw InputError(
            fmt::format("{}: no series of vLLM, SGLang or TensorRT-LLM match {} at {}: is the server "
                        "scraped, and does the selector name it?",
                        util::normalise_base_url(src.url), shown, prom_moment_text(at)));
    const std::string key = replica_label(got.series.front());
    std::set<std::string> replicas;
    for (const auto& s : got.series) replicas.insert(s.labels.count(key) ? s.labels.at(key) : "");
    if (replicas.size() > 1) {
        std::string list;
        for (const auto& r : replicas) list += (list.empty() ? "" : ", ") + r;
        throw InputError(
            fmt::format("{}: {} matches {} replicas ({}={}): a snapshot is of one; narrow --match, e.g. "
                        "'{{{}}}'",
                        util::normalise_base_url(src.url), shown, replicas.size(), key, list,
                        prom_label_matcher(key, *replicas.begin())));
    }
    const std::string replica = *replicas.begin();
    const std::string one = replica.empty() ? inner : prom_with(inner, prom_label_matcher(key, replica));
    const std::string one_inner = one.empty() || one.front() != '{' ? one : one.substr(1, one.size() - 2);
    // Every series of that replica's scrape, as its /metrics had them (http_requests_total,
    // process_*, ...), less those Prometheus makes itself (up, scrape_*).
    if (!replica.empty()) got = prom_instant(src, prom_with(one_inner, R"(__name__!~"up|scrape_.+")"), at);
    // The scrape's own time and duration: `up` and scrape_duration_seconds of that target.
    Snapshot snap;
    snap.t_wall = at;
    auto up = prom_instant(src, "timestamp(up" + prom_with(one_inner, "") + ")", at);
    auto up_value = prom_instant(src, "up" + prom_with(one_inner, ""), at);
    if (!up_value.series.empty() && up_value.series.front().samples.back().value == 0)
        throw InputError(fmt::format("{}: the replica {}={} was down at its last scrape before {} (up is 0)",
                                     util::normalise_base_url(src.url), key, replica, prom_moment_text(at)));
    if (up.series.size() == 1) snap.t_wall = up.series.front().samples.back().value;
    auto took = prom_instant(src, "scrape_duration_seconds" + prom_with(one_inner, ""), at);
    if (took.series.size() == 1 && std::isfinite(took.series.front().samples.back().value))
        snap.latency_s = took.series.front().samples.back().value;
    snap.t_mono_ns = static_cast<long long>(std::llround(snap.t_wall * 1e9));
    std::sort(got.series.begin(), got.series.end(), [](const parse::PromSeries& a, const parse::PromSeries& b) {
        return a.name() != b.name() ? a.name() < b.name() : a.labels < b.labels;
    });
    snap.text = parse::exposition_text(got.series, {"job", "instance", key});
    snap.url = fmt::format("{}#{}={}", util::normalise_base_url(src.url), key, replica);
    snap.source = snap.url;
    return snap;
}

}  // namespace inferlint::run
