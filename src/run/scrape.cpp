#include "inferlint/run/scrape.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/http.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>

namespace inferlint::run {
namespace {

// Where servers other than vLLM and SGLang put their Prometheus text.
const char* const kFallbackPaths[] = {"/prometheus/metrics"};

bool looks_json(const std::string& text) {
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        return c == '{' || c == '[';
    }
    return false;
}

util::HttpLimits scrape_limits(double timeout_s) {
    util::HttpLimits limits;
    limits.connect_s = std::min(5.0, timeout_s);
    limits.read_s = timeout_s;
    limits.total_s = timeout_s * 3;
    return limits;
}

}  // namespace

Clocks system_clocks() {
    return Clocks{
        .wall =
            [] {
                using namespace std::chrono;
                return duration<double>(system_clock::now().time_since_epoch()).count();
            },
        .mono_ns =
            [] {
                using namespace std::chrono;
                return static_cast<long long>(
                    duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
            },
    };
}

Getter http_getter() {
    return [](const std::string& url, double timeout_s) { return util::get_text(url, scrape_limits(timeout_s)); };
}

Getter kept_alive_getter() {
    auto session = std::make_shared<util::HttpSession>();
    return [session](const std::string& url, double timeout_s) {
        return session->get_text(url, scrape_limits(timeout_s));
    };
}

Scraper::Scraper(Getter get, Clocks clocks) : get_(std::move(get)), clocks_(std::move(clocks)) {}

Snapshot Scraper::scrape(const std::string& base_url, const std::optional<std::string>& path, double timeout_s) {
    const std::string base = util::normalise_base_url(base_url);
    if (path) return read(base, *path, timeout_s, false);
    std::optional<std::string> known;
    {
        std::lock_guard lock(mu_);
        if (auto it = found_path_.find(base); it != found_path_.end()) known = it->second;
    }
    if (known) {
        try {
            return read(base, *known, timeout_s, false);
        } catch (const std::exception&) {
            // Another server may answer at this address now: look again from /metrics.
            std::lock_guard lock(mu_);
            found_path_.erase(base);
        }
    }
    return read(base, "/metrics", timeout_s, true);
}

Snapshot Scraper::read(const std::string& base, const std::string& path, double timeout_s, bool find) {
    std::string url = base + path;
    double w0 = clocks_.wall();
    long long m0 = clocks_.mono_ns();
    std::string text = get_(url, timeout_s);
    if (find && looks_json(text)) {
        for (const char* alt : kFallbackPaths) {
            w0 = clocks_.wall();
            m0 = clocks_.mono_ns();
            std::string alt_text = get_(base + alt, timeout_s);
            if (!looks_json(alt_text)) {
                url = base + alt;
                text = std::move(alt_text);
                std::lock_guard lock(mu_);
                found_path_[base] = alt;
                break;
            }
        }
    }
    double w1 = clocks_.wall();
    long long m1 = clocks_.mono_ns();
    Snapshot s;
    s.url = url;
    s.text = std::move(text);
    s.t_wall = (w0 + w1) / 2;
    s.t_mono_ns = (m0 + m1) / 2;
    s.latency_s = static_cast<double>(m1 - m0) / 1e9;
    s.source = url;
    return s;
}

Scraper& default_scraper() {
    static Scraper scraper;
    return scraper;
}

std::string metrics_hint(const Engine* named) {
    if (named) return named->metrics_hint;
    std::string out;
    for (const Engine* e : all_engines()) {
        if (!out.empty()) out += "; ";
        out += fmt::format("for {}, {}", e->name, e->metrics_hint);
    }
    return out;
}

ServedSnapshot served_snapshot(const std::string& url, const Engine* named, Scraper& scraper) {
    ServedSnapshot out;
    std::string why;
    try {
        Snapshot snap = scraper.scrape(url);
        out.found = named_by(snap.metrics().names());
        out.snapshot = std::move(snap);
    } catch (const std::exception& e) {  // unreachable, an HTTP error, or not Prometheus text
        why = fmt::format(" ({})", e.what());
    }
    if (!out.found) {
        out.snapshot.reset();
        out.error = fmt::format("no vLLM, SGLang or TensorRT-LLM metrics at {}{}: {}", url, why, metrics_hint(named));
    }
    return out;
}

}  // namespace inferlint::run
