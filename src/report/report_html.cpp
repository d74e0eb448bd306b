// The page: one HTML document with its stylesheet and script inside, so it opens
// offline and can be attached to a ticket. Every string from an input file is escaped.
#include "html_parts.hpp"

#include "inferlint/core/catalog.hpp"
#include "inferlint/parse/pyliteral.hpp"
#include "inferlint/report/insights.hpp"
#include "inferlint/util/pyfloat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace inferlint::report {

namespace {

using namespace html;
using util::py_float_repr;

const std::array kCrashTripwires{TripwireId::T7, TripwireId::T12};

bool quiet(Status s) { return s == Status::pass || s == Status::not_applicable; }

std::string limits_section(const Report& rep) {
    auto found = limits(rep);
    if (found.empty()) return "";
    std::string items;
    for (const auto& i : found)
        items += fmt::format("<li class=\"limit {}\"><div class=\"l-title\">{}</div><p>{}</p></li>",
                             i.tone == Tone::limit ? "limit" : "ok", escape_html(i.title), escape_html(i.text));
    return "<section class=\"limits\" aria-labelledby=\"h-limits\"><h2 id=\"h-limits\">What limited this run</h2>"
           "<ul class=\"limit-list\">" +
           items + "</ul></section>";
}

std::string finding(const CheckResult& r) {
    const Tripwire* tw = find_tripwire(r.tripwire);
    std::string name = tw ? std::string(tw->name) : std::string(code(r.tripwire));
    std::string what = tw && !quiet(r.status) ? "<p class=\"what\">" + escape_html(tw->why) + "</p>" : "";
    return fmt::format(
        "<li class=\"finding {}\"><div class=\"f-status\">{}</div><div class=\"f-body\"><div class=\"f-title\">"
        "<span class=\"tw\">{}</span>{}</div><p class=\"msg\">{}</p>{}</div></li>",
        status_value(r.status), pill(r.status), escape_html(code(r.tripwire)), escape_html(name),
        escape_html(r.message), what);
}

std::string findings(const Report& rep) {
    std::vector<const CheckResult*> ordered;
    for (const auto& r : rep.results) ordered.push_back(&r);
    std::stable_sort(ordered.begin(), ordered.end(), [](const CheckResult* a, const CheckResult* b) {
        return std::pair(status_rank(a->status), tripwire_number(a->tripwire)) <
               std::pair(status_rank(b->status), tripwire_number(b->tripwire));
    });
    std::string shown, folded;
    int n_pass = 0, n_na = 0;
    for (const CheckResult* r : ordered) {
        if (!quiet(r->status)) {
            shown += finding(*r);
        } else {
            folded += finding(*r);
            (r->status == Status::pass ? n_pass : n_na) += 1;
        }
    }
    std::string out = shown.empty() ? "" : "<ol class=\"findings\">" + shown + "</ol>";
    if (!folded.empty()) {
        std::string label =
            shown.empty() ? fmt::format("All {} checks passed", n_pass) : fmt::format("{} passed", n_pass);
        if (n_na)
            label +=
                fmt::format("; {} {} not apply to {}", n_na, n_na == 1 ? "does" : "do", escape_html(rep.engine->name));
        out += "<details class=\"gloss passed\"><summary>" + label + "</summary><ol class=\"findings\">" + folded +
               "</ol></details>";
    }
    return out;
}

std::string verdict(const Report& rep) {
    std::string chips;
    for (Status s : {Status::fail, Status::warn, Status::unknown, Status::pass, Status::not_applicable}) {
        long n = std::count_if(rep.results.begin(), rep.results.end(), [s](const auto& r) { return r.status == s; });
        if (n == 0 && s == Status::not_applicable) continue;
        chips += fmt::format("<li class=\"count {}\"><span class=\"n\">{}</span>{}</li>", status_value(s), n, pill(s));
    }
    return "<ul class=\"verdict\" aria-label=\"Check results\">" + chips + "</ul>";
}

std::string status_note(const Report& rep) {
    std::vector<TripwireId> crashed;
    bool any_fail = false;
    for (const auto& r : rep.results) {
        if (r.status != Status::fail) continue;
        any_fail = true;
        if (std::find(kCrashTripwires.begin(), kCrashTripwires.end(), r.tripwire) != kCrashTripwires.end() &&
            std::find(crashed.begin(), crashed.end(), r.tripwire) == crashed.end())
            crashed.push_back(r.tripwire);
    }
    if (!any_fail) return "";
    std::sort(crashed.begin(), crashed.end(),
              [](const auto& a, const auto& b) { return tripwire_number(a) < tripwire_number(b); });
    std::string text;
    if (!crashed.empty()) {
        std::string names(code(crashed[0]));
        for (std::size_t i = 1; i < crashed.size(); ++i) names += fmt::format(" and {}", code(crashed[i]));
        text = names + ": the server itself failed. Any other failed tripwire is about the measurement.";
    } else {
        text =
            "The server worked; the failed tripwires are about the measurement. Some numbers from this run "
            "cannot be taken at face value.";
        const Summary& sm = rep.summary;
        auto done = sm.done();
        if (done && *done && !sm.finished.empty() && sm.finished_with("error") == 0)
            text += fmt::format(" The server finished {} requests with no errors.", grouped(double(*done)));
    }
    return "<p class=\"status-note\">" + escape_html(text) + "</p>";
}

// SGLang prints all of its ~500 settings; these change what a benchmark measures.
constexpr std::array<std::string_view, 15> kSglangSettings{
    "attention_backend",   "chunked_prefill_size", "context_length",          "disable_cuda_graph",
    "disable_radix_cache", "kv_cache_dtype",       "mamba_full_memory_ratio", "max_mamba_cache_size",
    "max_queued_requests", "max_running_requests", "max_total_tokens",        "mem_fraction_static",
    "page_size",           "schedule_policy",      "speculative_algorithm"};

std::string settings_text(const parse::BootFacts& f) {
    std::vector<std::pair<std::string, std::string>> kv;
    if (f.non_default_args && f.non_default_args->is_object()) {
        for (const auto& [k, v] : f.non_default_args->items())
            if (k != "model" && k != "model_tag") kv.emplace_back(k, parse::py_str(v));
    } else if (f.server_args && f.server_args->is_object()) {
        for (std::string_view k : kSglangSettings) {
            auto it = f.server_args->find(std::string(k));
            if (it != f.server_args->end()) kv.emplace_back(std::string(k), parse::py_str(*it));
        }
    }
    std::sort(kv.begin(), kv.end());
    std::string out;
    for (const auto& [k, v] : kv) out += (out.empty() ? "" : ", ") + k + "=" + v;
    return out.empty() ? std::string(kDash) : out;
}

// The model's folder or repository name, from the start's arguments.
std::string model_name(const parse::BootFacts& f) {
    auto args = f.config_args();
    if (!args || !args->is_object()) return "";
    const Json* path = nullptr;
    if (args->contains("model"))
        path = &(*args)["model"];
    else if (args->contains("model_path"))
        path = &(*args)["model_path"];
    if (!path || path->is_null()) return "";
    std::string p = path->is_string() ? path->get<std::string>() : parse::py_str(*path);
    while (!p.empty() && p.back() == '/') p.pop_back();
    auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string boot_section(const Report& rep) {
    if (rep.boots.empty()) return "";
    const auto& [name, f] = rep.boots.front();
    std::string model = model_name(f);
    std::string dash(kDash);
    std::string block =
        f.page_size ? fmt::format("{} token{} (page size)", grouped(double(*f.page_size)), *f.page_size != 1 ? "s" : "")
        : f.attention_block_size && *f.attention_block_size ? grouped(double(*f.attention_block_size)) + " tokens"
                                                            : std::string("16 tokens (default)");
    auto joined = [](const std::vector<std::string>& v, std::string_view none) {
        std::string out;
        for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
        return out.empty() ? std::string(none) : out;
    };
    std::string graphs = f.cudagraphs == false    ? "off"
                         : f.cudagraph_actual_gib ? "on, " + py_float_repr(*f.cudagraph_actual_gib) + " GiB"
                                                  : "on";
    std::vector<std::pair<std::string, std::string>> items{
        {rep.engine->name, f.version().value_or(dash)},
        {"Model", model.empty() ? dash : model},
        {"KV pool", f.kv_pool_tokens && *f.kv_pool_tokens ? grouped(double(*f.kv_pool_tokens)) + " tokens" : dash},
        {"Attention block", block},
        {"Attention backend", joined(f.selected_backends, kDash)},
        {"Draft model backend", joined(f.drafter_backends, "none")},
        {"Memory for KV cache", f.available_kv_cache_gib && *f.available_kv_cache_gib
                                    ? py_float_repr(*f.available_kv_cache_gib) + " GiB"
                                    : dash},
        {"CUDA graphs", graphs},
        {"Boot line 'maximum concurrency'",
         f.max_concurrency && *f.max_concurrency && f.max_concurrency_request_len && *f.max_concurrency_request_len
             ? fmt::format("{}x at {} tokens", py_float_repr(*f.max_concurrency),
                           grouped(double(*f.max_concurrency_request_len)))
             : dash},
        {"Model load", f.model_load_gib && *f.model_load_gib && f.model_load_s && *f.model_load_s
                           ? fmt::format("{} GiB in {:.0f} s", py_float_repr(*f.model_load_gib), *f.model_load_s)
                           : dash},
        {"Server settings", settings_text(f)},
    };
    std::string dl;
    for (const auto& [k, v] : items) dl += "<dt>" + escape_html(k) + "</dt><dd>" + escape_html(v) + "</dd>";
    return "<section class=\"boot\"><h2>The server that ran</h2><p class=\"note\">From <code>" + escape_html(name) +
           "</code>. Quote these with every result: they can change from one start of the server to the next.</p>"
           "<dl>" +
           dl + "</dl>" + memory_chart(f) + "</section>";
}

std::string guide(const Engine& engine) {
    std::string items;
    for (const auto& t : tripwires()) {
        std::string note;
        if (auto n = t.note(engine.id); !n.empty())
            note = "<p class=\"why\">On " + escape_html(engine.name) + ": " + escape_html(n) + "</p>";
        items += fmt::format(
            "<li><div class=\"g-head\"><span class=\"tw\">{}</span>{}<span class=\"slug\">{}</span></div><p>{}</p>"
            "<p class=\"why\">{}</p>{}<code>{}</code></li>",
            escape_html(t.id), escape_html(t.name), escape_html(t.slug), escape_html(t.what), escape_html(t.why), note,
            escape_html(t.command));
    }
    return fmt::format(
        "<section class=\"guide\" id=\"guide\"><h2>The {} tripwires</h2><details class=\"gloss\"><summary>What each "
        "one catches, and how to check it</summary><div class=\"g-body\"><p class=\"note\">Each is a way a "
        "benchmark of an inference server can report a wrong number without any error.</p>"
        "<ol class=\"g-list\">{}</ol></div></details></section>",
        tripwires().size(), items);
}

}  // namespace

std::string render_report_html(const Report& rep) {
    const parse::BootFacts* boot = rep.boots.empty() ? nullptr : &rep.boots.front().second;
    std::vector<std::string> meta;
    if (boot) {
        auto v = boot->version();
        meta.push_back(v && !v->empty() ? rep.engine->name + " " + *v : rep.engine->name);
        if (auto m = model_name(*boot); !m.empty()) meta.push_back(m);
        if (boot->kv_pool_tokens && *boot->kv_pool_tokens)
            meta.push_back(grouped(double(*boot->kv_pool_tokens)) + "-token KV pool");
    }
    if (rep.requested && *rep.requested) meta.push_back(fmt::format("concurrency asked for: {}", *rep.requested));
    std::string meta_html;
    for (const auto& m : meta) meta_html += (meta_html.empty() ? "" : " \u00b7 ") + escape_html(m);
    std::string note_html;
    if (boot)
        if (auto note = parse::untested_version(*boot))
            note_html = "<p class=\"version-note\">" + escape_html(*note) + "</p>";
    std::string charts = html::cache_chart(rep) + html::run_charts(rep) + html::pools_chart(rep);

    std::string body;
    body.reserve(1 << 16);
    body += limits_section(rep);
    body += html::happened_section(rep);
    body += "<section class=\"results\" aria-labelledby=\"h-results\"><h2 id=\"h-results\">Results</h2>" +
            verdict(rep) + status_note(rep) + html::status_glossary() + findings(rep) + "</section>";
    body += html::fleet_section(rep);
    if (!charts.empty())
        body += "<section class=\"charts\"><h2>What the server did</h2>" + html::tput_note(rep) + charts + "</section>";
    body += boot_section(rep);
    body += guide(*rep.engine);
    return html::page(rep.title, meta_html, note_html, body,
                      "Made " + escape_html(rep.generated) +
                          " by inferlint " INFERLINT_VERSION ". Every chart is drawn from the run's own files.");
}

}  // namespace inferlint::report
