// T11: the memory left for the KV cache can differ between starts of one configuration
// (CUDA-graph capture memory varies), and a small loss can drop the pool a whole level.
// Where vLLM prints how it split its budget, the message says which part moved.
#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/parse/pyliteral.hpp"

#include <fmt/format.h>

#include <set>

namespace inferlint::checks {

namespace {

using Group = std::vector<std::pair<std::string, const parse::BootFacts*>>;

template <typename Get>
Json per_start(const Group& g, Get get) {
    Json out = Json::object();
    for (const auto& [name, f] : g) {
        auto v = get(*f);
        out[name] = or_null(v);
    }
    return out;
}

// Which part of vLLM's memory split moved between starts, as vLLM printed it.
std::string memory_split_note(const Group& g) {
    std::vector<std::string> parts;
    auto spread = [&](const char* label, auto get) {
        std::set<double> known;
        for (const auto& [name, f] : g)
            if (auto v = get(*f)) known.insert(*v);
        if (known.size() > 1)
            parts.push_back(fmt::format("{} {} to {} GiB", label, parse::py_float_repr(*known.begin()),
                                        parse::py_float_repr(*known.rbegin())));
    };
    spread("weights and non-torch memory", [](const parse::BootFacts& f) { return f.consumed_gib; });
    spread("peak activation", [](const parse::BootFacts& f) { return f.peak_activation_gib; });
    std::size_t fresh = 0, cached = 0;
    for (const auto& [name, f] : g) {
        if (f->compiled_fresh == true) ++fresh;
        if (f->compiled_fresh == false) ++cached;
    }
    if (fresh && cached)
        parts.push_back(fmt::format("{} of {} starts compiled the model from scratch", fresh, g.size()));
    if (parts.empty()) return "";
    std::string joined;
    for (const auto& p : parts) joined += (joined.empty() ? "" : "; ") + p;
    return " (" + joined + ")";
}

}  // namespace

std::vector<CheckResult> check_kv_memory_stable(const std::vector<parse::BootFacts>& facts,
                                                const std::vector<std::string>& labels) {
    StartGroups sg = group_starts(facts, labels);
    std::vector<CheckResult> out;
    for (const auto& g : sg.groups) {
        Json ev{
            {"available_kv_cache_gib",
             per_start(g, [](const parse::BootFacts& f) { return f.available_kv_cache_gib; })},
            {"cudagraph_actual_gib", per_start(g, [](const parse::BootFacts& f) { return f.cudagraph_actual_gib; })},
            {"not_compared", sg.not_compared}};
        std::set<double> vals;
        bool missing = false;
        for (const auto& [name, f] : g) {
            if (f->available_kv_cache_gib)
                vals.insert(*f->available_kv_cache_gib);
            else
                missing = true;
        }
        if (missing) {
            out.push_back(
                {TripwireId::T11, Status::unknown, "a boot log lacks 'Available KV cache memory'", std::move(ev)});
            continue;
        }
        if (vals.size() == 1) {
            out.push_back(
                {TripwireId::T11, Status::pass,
                 fmt::format("same flags, {} GiB for KV cache on every boot", parse::py_float_repr(*vals.begin())),
                 std::move(ev)});
            continue;
        }
        ev["consumed_gib"] = per_start(g, [](const parse::BootFacts& f) { return f.consumed_gib; });
        ev["peak_activation_gib"] = per_start(g, [](const parse::BootFacts& f) { return f.peak_activation_gib; });
        ev["compiled_fresh"] = per_start(g, [](const parse::BootFacts& f) { return f.compiled_fresh; });
        out.push_back({TripwireId::T11, Status::warn,
                       fmt::format("same flags, KV cache memory varied: {} to {} GiB",
                                   parse::py_float_repr(*vals.begin()), parse::py_float_repr(*vals.rbegin())) +
                           memory_split_note(g),
                       std::move(ev)});
    }
    return out;
}

}  // namespace inferlint::checks
