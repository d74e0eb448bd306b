// "What happened": a plain account of the run, its headline tiles, and the facts of the
// test and its setup, all from the run's own files.
#include "html_parts.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace inferlint::report {

std::pair<std::string, std::string> checked_line(const Report& rep) {
    std::set<TripwireId> na, ran;
    for (const auto& r : rep.results)
        if (r.status == Status::not_applicable) na.insert(r.tripwire);
    for (const auto& r : rep.results)
        if (find_tripwire(r.tripwire) && !na.count(r.tripwire)) ran.insert(r.tripwire);
    std::vector<std::pair<std::string, std::vector<std::string>>> missing;  // why -> ids, first seen first
    for (const auto& t : tripwires()) {
        if (ran.count(t.key)) continue;
        std::string why(html::needs(t.key));
        if (rep.shown && std::find(rep.shown->begin(), rep.shown->end(), t.key) == rep.shown->end())
            why = "left out by --tripwires";
        else if (na.count(t.key) || (t.key == TripwireId::T14 && rep.engine->metrics.cache_info.empty()))
            why = "do not apply to " + rep.engine->name;
        const std::string id(t.id);
        auto it = std::find_if(missing.begin(), missing.end(), [&](const auto& m) { return m.first == why; });
        if (it == missing.end())
            missing.push_back({why, {id}});
        else
            it->second.push_back(id);
    }
    std::vector<std::string> groups;
    for (auto [why, ids] : missing) {
        if (ids.size() == 1) {
            auto space = why.find(' ');
            std::string verb = why.substr(0, space), rest = space == std::string::npos ? "" : why.substr(space + 1);
            if (verb == "need" || verb == "run")
                why = verb + "s " + rest;
            else if (verb == "do")
                why = "does " + rest;
        }
        std::string names = ids.front();
        if (ids.size() > 1) {
            names = ids[0];
            for (std::size_t i = 1; i + 1 < ids.size(); ++i) names += ", " + ids[i];
            names += " and " + ids.back();
        }
        groups.push_back(fmt::format("{} ({})", names, why));
    }
    std::string text = fmt::format("{} of {}", ran.size(), tripwires().size());
    if (!groups.empty()) {
        text += ". Not here: " + groups[0];
        for (std::size_t i = 1; i < groups.size(); ++i) text += ", " + groups[i];
    }
    return {"Tripwires checked", text};
}

namespace html {

namespace {

std::string count(long long n) { return grouped(double(n)); }

std::string tile(std::string_view label, const std::string& value, const std::string& sub,
                 std::optional<Status> status) {
    std::string badge = status && *status != Status::pass ? pill(*status) : "";
    return fmt::format(
        "<div class=\"tile\"><div class=\"tile-head\"><span class=\"tile-label\">{}</span>{}</div>"
        "<div class=\"tile-value\">{}</div><div class=\"tile-sub\">{}</div></div>",
        escape_html(label), badge, escape_html(value), escape_html(sub));
}

std::string tiles(const Report& rep) {
    std::string out;
    if (rep.series) {
        const CheckResult* t8 = rep.result(TripwireId::T8);
        bool asked = rep.requested && *rep.requested;
        std::string of = asked ? fmt::format(" of {}", *rep.requested) : "";
        std::string sub = asked ? fmt::format("The load tool kept {} requests open.", *rep.requested)
                                : "The most requests the server ran at once.";
        out += tile("Ran at once", fmt_n(rep.series->peak_running()) + of, sub, t8 ? t8->status : Status::pass);
    }
    const CheckResult* t1 = rep.result(TripwireId::T1);
    if (auto n = rep.measured.preemptions; t1 && n) {
        const Engine& e = *rep.engine;
        std::string logged = e.logs_preemptions
                                 ? e.name + " logs each one."
                                 : "Older releases log none; newer ones only count them in the periodic stats line.";
        out += tile(e.preemption == "retraction" ? "Retractions" : "Preemptions", fmt_n(*n),
                    "Requests evicted and recomputed. " + logged, t1->status);
    }
    const CheckResult* t10 = rep.result(TripwireId::T10);
    if (auto rate = rep.measured.output_rate_per_s; t10 && rate) {
        double span = rep.measured.span_s.value_or(0.0);
        std::string sub = fmt::format("over {:.1f} s", span);
        if (auto err = rep.measured.integer_second_error)
            sub += fmt::format("; a whole-second timer reads {:+.2f}%", *err * 100);
        const auto& b = rep.bench;
        if (b && b->output_throughput && *b->output_throughput && b->duration_s && *b->duration_s)
            sub = fmt::format(
                "the server's count over {:.1f} s, idle time included; the load tool measured {} "
                "over its {:.1f} s",
                span, grouped(*b->output_throughput, 1), *b->duration_s);
        out += tile("Output tokens per second", fmt_n(*rate, 1), sub, std::nullopt);
    }
    if (rep.bench && rep.bench->median_ttft_ms && rep.bench->p99_ttft_ms)
        out += tile("Time to first token, median", ms(*rep.bench->median_ttft_ms),
                    fmt::format("p99 {}; as the load tool measured it, queueing included", ms(*rep.bench->p99_ttft_ms)),
                    std::nullopt);
    const CheckResult* t14 = rep.result(TripwireId::T14);
    if (auto u = rep.measured.inferred_blocks; t14 && u && *u != 0) {
        const auto& blocks = rep.measured.reported_blocks;
        std::string reported = blocks ? std::to_string(*blocks) : std::string(kDash);
        std::string sub = reported + " reported, one held back";
        if (!rep.boots.empty() && rep.boots.front().second.attention_block_size &&
            *rep.boots.front().second.attention_block_size)
            sub += fmt::format("; {} tokens per block", count(*rep.boots.front().second.attention_block_size));
        out += tile("Usable KV blocks", fmt_n(static_cast<double>(*u)), sub, std::nullopt);
    }
    return out.empty() ? "" : "<section class=\"tiles\" aria-label=\"Headline numbers\">" + out + "</section>";
}

std::string finished_text(const Summary& sm) {
    long long done = sm.done().value_or(0);
    if (sm.finished.empty()) return count(done);
    std::vector<std::string> parts;
    for (const auto& [k, n] : sm.finished)
        if (n && k != "error") parts.push_back(fmt::format("{} {}", count(n), finish_reason_words(k)));
    long long errors = sm.finished_with("error");
    parts.push_back(errors ? fmt::format("{} {}", count(errors), finish_reason_words("error")) : "no errors");
    std::string out = count(done) + ": " + parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
    return out;
}

std::string facts(std::string_view title, const std::vector<std::pair<std::string, std::string>>& rows) {
    if (rows.empty()) return "";
    std::string dl;
    for (const auto& [k, v] : rows) dl += "<dt>" + escape_html(k) + "</dt><dd>" + escape_html(v) + "</dd>";
    return "<div class=\"facts-group\"><h3>" + escape_html(title) + "</h3><dl>" + dl + "</dl></div>";
}

}  // namespace

std::string story(const Report& rep) {
    const Summary& sm = rep.summary;
    if (sm.restarted)
        return "The server restarted between the before and after readings, so the counts between them mean "
               "nothing. Only the recording is summarised here.";
    std::vector<std::string> out;
    bool asked = rep.requested && *rep.requested;
    if (sm.span_s)
        out.push_back(asked
                          ? fmt::format("The load tool kept {} requests open for {}.", *rep.requested, dur(*sm.span_s))
                          : fmt::format("The test ran for {}.", dur(*sm.span_s)));
    auto done = sm.done();
    if (done && sm.output_tokens) {
        long long errors = sm.finished_with("error");
        if (sm.finished.empty()) {
            out.push_back(fmt::format("The server finished {} requests and generated {} tokens.", count(*done),
                                      count(*sm.output_tokens)));
        } else {
            std::string how = errors ? fmt::format("({} of them with an error)", count(errors)) : "with no errors";
            out.push_back(fmt::format("The server finished {} requests {} and generated {} tokens.", count(*done), how,
                                      count(*sm.output_tokens)));
        }
    }
    if (sm.peak_running && asked && *sm.peak_running < *rep.requested) {
        std::string wait = sm.mean_queue_s && *sm.mean_queue_s
                               ? fmt::format(", {:.0f} s on average before a request started", *sm.mean_queue_s)
                               : "";
        out.push_back(fmt::format("It never worked on more than {} at once. The rest waited in a queue{}.",
                                  *sm.peak_running, wait));
    }
    if (sm.preemptions && *sm.preemptions) {
        std::string times = *sm.preemptions == 1 ? "once" : count(*sm.preemptions) + " times";
        std::string verb = rep.engine->preemption == "retraction" ? "retracted" : "preempted";
        std::string logged = rep.engine->logs_preemptions ? rep.engine->name + " logs each one."
                                                          : "The server log does not mention this.";
        if (auto in_log = rep.measured.preemptions_in_log; in_log && rep.result(TripwireId::T1))
            logged = fmt::format("The server log's periodic stats lines count {}.", count(*in_log));
        out.push_back(
            fmt::format("It {} a running request {} to free KV cache: each one went back to the queue "
                        "and later recomputed its prompt and output so far. {}",
                        verb, times, logged));
    }
    std::string text;
    for (const auto& s : out) text += (text.empty() ? "" : " ") + s;
    return text;
}

std::string happened_section(const Report& rep) {
    const Summary& sm = rep.summary;
    std::vector<std::pair<std::string, std::string>> test, setup;
    if (sm.span_s) {
        std::string exact = *sm.span_s >= 60 ? fmt::format(" ({:.1f} s)", *sm.span_s) : "";
        test.emplace_back("Measured time", dur(*sm.span_s) + exact + ", from the before to the after reading");
    }
    if (sm.started && sm.ended) test.emplace_back("Clock time", clock_span(*sm.started, *sm.ended));
    if (sm.boot_s) test.emplace_back("Server start-up", dur(*sm.boot_s) + ", before the test (from the boot log)");
    auto done = sm.done();
    if (done) test.emplace_back("Requests finished", finished_text(sm));
    auto per = [&](long long n) {
        return done && *done ? fmt::format(" ({} per request)", grouped(double(n) / double(*done))) : std::string();
    };
    if (sm.output_tokens)
        test.emplace_back("Output tokens generated", count(*sm.output_tokens) + per(*sm.output_tokens));
    if (sm.prompt_tokens) test.emplace_back("Prompt tokens read", count(*sm.prompt_tokens) + per(*sm.prompt_tokens));
    if (sm.mean_latency_s) test.emplace_back("Average time per request", fmt::format("{:.1f} s", *sm.mean_latency_s));
    if (sm.mean_first_token_s) {
        std::string q = sm.mean_queue_s ? fmt::format(", {:.1f} s of it waiting in the queue", *sm.mean_queue_s) : "";
        test.emplace_back("Average wait for the first token", fmt::format("{:.1f} s", *sm.mean_first_token_s) + q);
    }
    bool watched = rep.series || (rep.before && rep.after);
    if (rep.requested && *rep.requested)
        setup.emplace_back("Concurrency asked for", fmt::format("{} requests at once", *rep.requested));
    if (watched)
        setup.emplace_back("Requests sent by",
                           "the load tool. inferlint sends none: it only reads the server's counters.");
    if (sm.interval_s && *sm.interval_s && sm.readings && *sm.readings)
        setup.emplace_back(
            "Recording", fmt::format("the server read every {:g} s, {} readings", *sm.interval_s, count(*sm.readings)));
    if (sm.url && !sm.url->empty()) setup.emplace_back("Server address", *sm.url);
    if (!rep.sources.empty()) {
        std::string made = rep.sources[0];
        for (std::size_t i = 1; i < rep.sources.size(); ++i) made += ", " + rep.sources[i];
        setup.emplace_back("Made from", made);
    }
    setup.push_back(checked_line(rep));
    std::string lede = story(rep);
    return "<section class=\"happened\" aria-labelledby=\"h-happened\"><h2 id=\"h-happened\">What happened</h2>" +
           (lede.empty() ? "" : "<p class=\"lede\">" + escape_html(lede) + "</p>") + tiles(rep) +
           "<div class=\"facts\">" + facts("The test", test) + facts("The setup", setup) + "</div>" +
           terms_glossary(*rep.engine) + "</section>";
}

}  // namespace html
}  // namespace inferlint::report
