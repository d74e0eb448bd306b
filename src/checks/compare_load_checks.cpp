// The comparability checks about the load and the runs themselves: the client and the
// workload each arm was measured under, the tripwires a run failed, the runs that did not
// complete.
#include "compare_internal.hpp"

#include <fmt/format.h>

#include <set>

namespace inferlint::checks::compare_detail {

namespace {

std::set<std::string> load_values(const Arm& arm,
                                  const std::function<std::optional<std::string>(const LoadShape&)>& f) {
    std::set<std::string> out;
    for (const ArmRun* r : arm.completed())
        if (auto v = f(r->load)) out.insert(*v);
    return out;
}

std::string shown_set(const std::set<std::string>& v) {
    return v.empty() ? "unknown" : join(std::vector<std::string>(v.begin(), v.end()), " / ");
}

// Arms measured by different tools: what each tool's figures were read as (their metric
// names mapped to one definition each, docs/load-tools.md), so the reader sees the figures
// compared are the same quantities even where the tools name them apart; nullopt when every
// run came from the same tool.
std::optional<std::string> definitions_said(const Arm& a, const Arm& b, Json& ev) {
    std::set<std::string> tools;
    std::vector<std::string> parts;
    Json defs = Json::object();
    for (const Arm* arm : {&a, &b}) {
        std::set<std::string> notes;
        for (const ArmRun* run : arm->completed()) {
            if (run->load.client) tools.insert(*run->load.client);
            notes.insert(run->load.definitions.begin(), run->load.definitions.end());
        }
        defs[arm->name] = std::vector<std::string>(notes.begin(), notes.end());
        if (!notes.empty()) parts.push_back(fmt::format("{}: {}", arm->name, join({notes.begin(), notes.end()}, "; ")));
    }
    if (tools.size() < 2) return std::nullopt;
    ev["definitions"] = std::move(defs);
    return fmt::format(". Their latencies were read into one definition each (docs/load-tools.md){}",
                       parts.empty() ? std::string() : " (" + join(parts, "; ") + ")");
}

ComparisonResult load_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C4, Status::unknown, "", Json::object()};
    using Get = std::function<std::optional<std::string>(const LoadShape&)>;
    auto num = [](std::optional<long long> LoadShape::*field) -> Get {
        return [field](const LoadShape& s) -> std::optional<std::string> {
            return (s.*field) ? std::optional(std::to_string(*(s.*field))) : std::nullopt;
        };
    };
    const std::vector<std::pair<std::string, Get>> parts = {
        {"load client", [](const LoadShape& s) { return s.client; }},
        {"endpoint", [](const LoadShape& s) { return s.endpoint; }},
        {"input tokens", num(&LoadShape::input_len)},
        {"output tokens", num(&LoadShape::output_len)},
        {"concurrency", num(&LoadShape::concurrency)},
    };
    std::vector<std::string> differ, unknown;
    Json ev = Json::object();
    for (const auto& [name, get] : parts) {
        auto va = load_values(a, get), vb = load_values(b, get);
        ev[name] = {{a.name, std::vector<std::string>(va.begin(), va.end())},
                    {b.name, std::vector<std::string>(vb.begin(), vb.end())}};
        if (va.empty() || vb.empty()) {
            unknown.push_back(name);
            continue;
        }
        bool same = va == vb;
        // A random dataset's lengths vary a little from run to run: within 10% is the same shape.
        if (!same && name.find("tokens") != std::string::npos && va.size() == 1 && vb.size() == 1) {
            long long x = std::stoll(*va.begin()), y = std::stoll(*vb.begin());
            same = std::llabs(x - y) <= std::max<long long>(1, std::max(x, y) / 10);
        }
        if (!same) differ.push_back(fmt::format("{} ({} against {})", name, shown_set(vb), shown_set(va)));
    }
    r.evidence = std::move(ev);
    if (!differ.empty()) {
        r.status = Status::fail;
        r.message = "the arms were measured under different loads: " + join(differ, "; ") +
                    "; the same server can measure 1.7x apart under two clients";
        if (auto said = definitions_said(a, b, r.evidence)) r.message += *said;
    } else if (!unknown.empty()) {
        r.message = "no load tool's result says the " + join(unknown) + " of every run";
    } else {
        r.status = Status::pass;
        const LoadShape& s = a.completed().front()->load;
        r.message = fmt::format("same load: {} on {}, {}", *s.client, *s.endpoint, s.text());
    }
    return r;
}

ComparisonResult shapes_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C5, Status::unknown, "", Json::object()};
    std::vector<LoadShape> shapes;
    for (const Arm* arm : {&a, &b})
        for (const ArmRun* run : arm->completed()) {
            const LoadShape& s = run->load;
            if (!s.input_len || !s.output_len) continue;
            bool seen = false;
            for (const auto& o : shapes) seen |= o.same_shape(s);
            if (!seen) shapes.push_back(s);
        }
    Json list = Json::array();
    for (const auto& s : shapes) list.push_back(s.text());
    r.evidence = {{"shapes", list}};
    if (shapes.empty()) {
        r.message = "no load tool's result gives the workload's lengths";
    } else if (shapes.size() == 1) {
        r.status = Status::warn;
        r.message = fmt::format(
            "only one workload shape measured ({}): prefill-heavy and decode-heavy shapes often "
            "disagree (-22% on one and +6.8% on the other in the recorded case)",
            shapes.front().text());
    } else {
        r.status = Status::pass;
        r.message = fmt::format("{} workload shapes measured", shapes.size());
    }
    return r;
}

ComparisonResult tripwires_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C6, Status::pass, "", Json::object()};
    std::vector<std::string> failed;
    Json ev = Json::array();
    std::size_t runs = 0;
    for (const Arm* arm : {&a, &b})
        for (const ArmRun* run : arm->completed()) {
            ++runs;
            for (const auto& v : run->verdicts) {
                if (v.status != Status::fail) continue;
                failed.push_back(fmt::format("{} in {}", code(v.tripwire), run->label));
                ev.push_back(
                    {{"arm", arm->name}, {"run", run->label}, {"tripwire", code(v.tripwire)}, {"message", v.message}});
            }
        }
    r.evidence = {{"failed", ev}};
    if (failed.empty()) {
        r.message = fmt::format("no tripwire failed in any of the {} completed runs", runs);
    } else {
        r.status = Status::fail;
        r.message = fmt::format("{} tripwire{} failed: {}; a figure from such a run measures the trap, not the setting",
                                failed.size(), failed.size() == 1 ? "" : "s", join(failed));
    }
    return r;
}

ComparisonResult failed_runs_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C7, Status::pass, "", Json::object()};
    std::vector<std::string> parts;
    for (const Arm* arm : {&a, &b}) {
        std::vector<std::string> why;
        for (const auto& run : arm->runs)
            if (!run.completed) why.push_back(fmt::format("{}: {}", run.label, run.failure));
        r.evidence[arm->name] = {{"runs", arm->runs.size()}, {"failed_runs", why.size()}};
        if (!why.empty())
            parts.push_back(fmt::format("{}: {} of {} runs did not complete ({})", arm->name, why.size(),
                                        arm->runs.size(), join(why, "; ")));
    }
    if (parts.empty()) {
        r.message = fmt::format("every run completed ({} {}, {} {})", a.runs.size(), a.name, b.runs.size(), b.name);
    } else {
        r.status = Status::fail;
        r.message = join(parts, "; ");
    }
    return r;
}

}  // namespace

std::vector<ComparisonResult> load_checks(const Arm& a, const Arm& b) {
    return {load_check(a, b), shapes_check(a, b), tripwires_check(a, b), failed_runs_check(a, b),
            failed_share_check(a, b)};
}

}  // namespace inferlint::checks::compare_detail
