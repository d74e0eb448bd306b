// What limited a run, in at most three sentences. Each is arithmetic on numbers the page
// shows; when a number is missing its sentence is left out rather than estimated.
#include "inferlint/report/insights.hpp"

#include "inferlint/checks/series_checks.hpp"
#include "inferlint/parse/series_digest.hpp"
#include "inferlint/report/svgchart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::report {

namespace {

using svg::grouped;

const parse::BootFacts* first_boot(const Report& rep) {
    return rep.boots.empty() ? nullptr : &rep.boots.front().second;
}

std::optional<long long> block_of(const Report& rep) {
    const parse::BootFacts* f = first_boot(rep);
    if (!f) return std::nullopt;
    if (f->page_size && *f->page_size) return f->page_size;
    if (f->attention_block_size && *f->attention_block_size) return f->attention_block_size;
    if (rep.engine->id == EngineId::vllm) return 16;
    return std::nullopt;
}

// Attention plus Mamba or linear layers: state per request is not KV per token.
bool hybrid(const Report& rep) {
    const parse::BootFacts* f = first_boot(rep);
    if (!f) return false;
    return (f->running_cap_reason && !f->running_cap_reason->empty()) || f->attention_block_size.value_or(0) > 64;
}

// The concurrency the load kept open, or the requests there were, whichever is fewer.
std::optional<long long> concurrency(const Report& rep) {
    std::optional<long long> n = rep.requested;
    std::optional<long long> done = rep.summary.done();
    if (!done || *done == 0) done = rep.bench ? rep.bench->completed : std::nullopt;
    if (n && *n && done && *done) return std::min(*n, *done);
    return n;
}

// Milliseconds per output token while a request runs: the client's, else the server's.
std::optional<double> tpot_ms(const Report& rep) {
    if (rep.bench && rep.bench->mean_tpot_ms && *rep.bench->mean_tpot_ms) return rep.bench->mean_tpot_ms;
    const Summary& sm = rep.summary;
    auto done = sm.done();
    if (!sm.mean_latency_s || !sm.mean_first_token_s || !done || *done == 0) return std::nullopt;
    if (!sm.output_tokens || *sm.output_tokens == 0) return std::nullopt;
    double per = double(*sm.output_tokens) / double(*done);
    if (per <= 1) return std::nullopt;
    double decode_s = *sm.mean_latency_s - *sm.mean_first_token_s;
    if (decode_s <= 0) return std::nullopt;
    return 1000 * decode_s / (per - 1);
}

std::string plural(long long n, std::string_view word) {
    return fmt::format("{} {}{}", grouped(double(n)), word, n == 1 ? "" : "s");
}

// The most requests that ran at once, when T8 found it short of the load.
std::optional<double> short_peak(const Report& rep) {
    const CheckResult* t8 = rep.result(TripwireId::T8);
    if (!t8 || t8->status != Status::fail) return std::nullopt;
    return rep.measured.peak_running;
}

std::optional<std::string> preempted(const Report& rep) {
    auto n = rep.measured.preemptions;
    if (!rep.result(TripwireId::T1) || !n || *n <= 0) return std::nullopt;
    std::string_view verb = rep.engine->preemption == "retraction" ? "retracted"
                            : rep.engine->preemption == "pause"    ? "paused"
                                                                   : "preempted";
    return fmt::format("{} {}", verb, plural(static_cast<long long>(*n), "running request"));
}

std::string ms(double v) { return v >= 1000 ? grouped(v / 1000, 1) + " s" : grouped(v, 0) + " ms"; }

std::string g(double v) { return fmt::format("{:g}", v); }

std::optional<Insight> concurrency_short(const Report& rep) {
    auto peak = short_peak(rep);
    if (!peak) return std::nullopt;
    std::string why;
    if (auto cap = checks::running_cap(first_boot(rep)); cap && *peak >= double(cap->first)) why = ": " + cap->second;
    std::string asked = rep.requested && *rep.requested ? fmt::format("kept {} requests open", *rep.requested)
                                                        : std::string("sent more");
    auto pre = preempted(rep);
    std::string also = pre ? fmt::format(" It also {}.", *pre) : "";
    return Insight{"concurrency", "The server ran fewer requests at once than the load sent",
                   fmt::format("The load {}, but the server ran at most {} at once{}.{}", asked, g(*peak), why, also),
                   Tone::limit};
}

std::optional<Insight> cache(const Report& rep) {
    auto c = cache_need(rep);
    if (!c) return std::nullopt;
    const double pool = double(c->pool), per = c->per_request, need = c->total();
    std::string about = per != std::trunc(per) ? "about " : "";
    std::string load = fmt::format("{} requests of {}{} tokens", c->concurrency, about, grouped(per));
    if (need > pool) {
        std::vector<std::string> did;
        if (auto peak = short_peak(rep))
            did.push_back(fmt::format("ran at most {} at once and queued the rest", g(*peak)));
        if (auto pre = preempted(rep)) did.push_back(*pre);
        std::string then;
        if (!did.empty()) {
            then = " To make room, it " + did[0];
            for (std::size_t i = 1; i < did.size(); ++i) then += ", and " + did[i];
            then += ".";
        }
        return Insight{"cache", "The KV cache was too small for the load",
                       fmt::format("The cache holds {} tokens; {} need {} to run to the end together, so {} fit at "
                                   "full length.{}",
                                   grouped(pool), load, grouped(need),
                                   static_cast<long long>(std::floor(pool / c->allocated)), then),
                       Tone::limit};
    }
    if (auto short_ = concurrency_short(rep)) {
        return Insight{"cache", "The cache had room; something else held requests back",
                       fmt::format("The cache holds {} tokens, enough for {} ({}). {}", grouped(pool), load,
                                   grouped(need), short_->text),
                       Tone::limit};
    }
    return Insight{"cache", "The KV cache held the whole load",
                   fmt::format("The cache holds {} tokens; {} need {}, {:.0f}% of it.", grouped(pool), load,
                               grouped(need), need / pool * 100),
                   Tone::ok};
}

std::optional<Insight> waiting(const Report& rep) {
    const auto& b = rep.bench;
    bool queued = short_peak(rep).has_value();
    if (b && b->median_ttft_ms && *b->median_ttft_ms && b->p99_ttft_ms && *b->p99_ttft_ms) {
        double med = *b->median_ttft_ms, p99 = *b->p99_ttft_ms;
        if (p99 > std::max(3 * med, med + 1000))
            return Insight{
                "waiting", "Some requests waited much longer to start",
                fmt::format("Half the requests got their first token within {}, but the slowest (p99) "
                            "waited {}{}.",
                            ms(med), ms(p99), queued ? ": they were queued until running requests ended" : ""),
                Tone::limit};
        if (med >= 2000)
            return Insight{"waiting", "Requests waited long to start",
                           fmt::format("Half the requests waited more than {} for their first token, the slowest "
                                       "(p99) {}{}.",
                                       ms(med), ms(p99), queued ? ", most of it in the queue" : ""),
                           Tone::limit};
        return Insight{"waiting", "No request waited long to start",
                       fmt::format("Time to first token: {} for half the requests, {} at p99.", ms(med), ms(p99)),
                       Tone::ok};
    }
    auto q = rep.summary.mean_queue_s;
    if (q && *q >= 1.0)
        return Insight{"waiting", "Requests waited in the queue",
                       fmt::format("A request waited {} s on average before the server started it.", grouped(*q, 1)),
                       Tone::limit};
    return std::nullopt;
}

std::optional<Insight> pace(const Report& rep) {
    auto n_opt = concurrency(rep);
    if (!n_opt || *n_opt == 0) return std::nullopt;
    const long long n = *n_opt;
    auto bz = busy(rep);
    std::optional<double> client;
    if (rep.bench && rep.bench->output_throughput && *rep.bench->output_throughput)
        client = rep.bench->output_throughput;
    std::string measured =
        client ? fmt::format(" The load tool measured {} output tokens/s over the whole run.", grouped(*client)) : "";
    double avg;
    std::string title, text;
    if (bz) {
        avg = bz->mean_running;
        title = fmt::format("On average {} of {} requests ran at once", static_cast<long long>(std::nearbyint(avg)), n);
        if (client || !bz->tokens_per_s || *bz->tokens_per_s == 0) {
            text = fmt::format(
                "The load kept {} requests open; the server's recording shows {:.1f} running on "
                "average while it was busy.{}",
                n, avg, measured);
        } else {
            text = fmt::format(
                "The load kept {} requests open; while the server was busy, its recording shows "
                "{:.1f} running on average and {} output tokens/s.",
                n, avg, grouped(*bz->tokens_per_s));
        }
    } else {
        auto tpot = tpot_ms(rep);
        if (!client || !tpot) return std::nullopt;
        avg = std::min(*client * *tpot / 1000, double(n));
        title = fmt::format("On average {} of {} requests were part-way through their output",
                            static_cast<long long>(std::nearbyint(avg)), n);
        text = fmt::format(
            "{} From its first token to its last, a request took {:.1f} ms per token (TPOT), so on "
            "average {:.1f} of the {} requests the load kept open were in that stretch ({} x {:.4f} "
            "s), including any paused mid-output.",
            measured.substr(1), *tpot, avg, n, grouped(*client), *tpot / 1000);
        if (rep.series && rep.engine->gauges_lag)
            text += fmt::format(
                " {} updates its running gauge only when a request completes, so the recording "
                "does not give the number running.",
                rep.engine->name);
    }
    if (avg >= 0.9 * double(n)) return Insight{"pace", "The run kept its requests busy", text, Tone::ok};
    return Insight{"pace", title, text, Tone::limit};
}

}  // namespace

std::optional<double> per_request_tokens(const Report& rep) {
    const Summary& sm = rep.summary;
    auto done = sm.done();
    if (done && *done && sm.prompt_tokens && sm.output_tokens)
        return double(*sm.prompt_tokens + *sm.output_tokens) / double(*done);
    const auto& b = rep.bench;
    if (b && b->completed && *b->completed && b->input_tokens && b->output_tokens)
        return double(*b->input_tokens + *b->output_tokens) / double(*b->completed);
    return std::nullopt;
}

std::optional<CacheNeed> cache_need(const Report& rep) {
    const parse::BootFacts* f = first_boot(rep);
    std::optional<long long> pool = f ? f->kv_pool_tokens : std::nullopt;
    auto per = per_request_tokens(rep);
    auto n = concurrency(rep);
    if (!pool || *pool == 0 || !per || *per == 0 || !n || *n == 0 || hybrid(rep)) return std::nullopt;
    CacheNeed c;
    c.pool = *pool;
    c.per_request = *per;
    c.block = block_of(rep);
    c.allocated = c.block ? std::ceil(*per / double(*c.block)) * double(*c.block) : *per;
    c.concurrency = *n;
    return c;
}

std::optional<Busy> busy(const Report& rep) {
    if (!rep.series || rep.series->samples.size() < 2 || rep.engine->gauges_lag) return std::nullopt;
    if (const auto& d = rep.series->digest) {  // a long recording: the sums over every reading
        bool mono = d->all_mono();
        const DigestBusy& b = mono ? d->busy_mono : d->busy_wall;
        if (b.span_s <= 0) return std::nullopt;
        bool counted = mono ? d->busy_counted_mono : d->busy_counted_wall;
        double tokens = mono ? d->busy_tokens_mono : d->busy_tokens_wall;
        return Busy{b.span_s, b.weighted / b.span_s, counted ? std::optional<double>(tokens / b.span_s) : std::nullopt};
    }
    const auto& samples = rep.series->samples;
    bool exact = std::all_of(samples.begin(), samples.end(), [](const auto& x) { return x.t_mono_ns.has_value(); });
    double span = 0, weighted = 0, tokens = 0;
    bool counted = false;
    for (std::size_t i = 0; i + 1 < samples.size(); ++i) {
        const auto& a = samples[i];
        const auto& b = samples[i + 1];
        if (!a.running || *a.running <= 0) continue;
        double dt = exact ? double(*b.t_mono_ns - *a.t_mono_ns) / 1e9 : b.t_wall - a.t_wall;
        if (dt <= 0) continue;
        span += dt;
        weighted += *a.running * dt;
        if (a.generation_tokens && b.generation_tokens) {
            tokens += std::max(*b.generation_tokens - *a.generation_tokens, 0.0);
            counted = true;
        }
    }
    if (span <= 0) return std::nullopt;
    return Busy{span, weighted / span, counted ? std::optional<double>(tokens / span) : std::nullopt};
}

std::vector<Insight> limits(const Report& rep) {
    if (rep.summary.restarted) return {};
    std::vector<Insight> out;
    auto first = cache(rep);
    if (!first) first = concurrency_short(rep);
    if (first) out.push_back(std::move(*first));
    if (auto w = waiting(rep)) out.push_back(std::move(*w));
    if (auto p = pace(rep)) out.push_back(std::move(*p));
    if (out.size() > 3) out.resize(3);
    return out;
}

}  // namespace inferlint::report
