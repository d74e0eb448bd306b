// T4: the KV pool is a property of the start, not of the configuration. Starts with
// identical flags can draw different pools, and pools come in discrete levels, so a small
// difference in tokens can be a whole allocation step.
#include "inferlint/checks/bootlog_checks.hpp"
#include "util/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace inferlint::checks {

namespace text = util::text;

namespace {

// The configuration as a canonical text (keys sorted), as json.dumps(sort_keys=True) makes
// it, so key order in the log does not make two starts differ.
std::string config_key(const parse::BootFacts& f) {
    Json pair = Json::array({or_null(f.engine), *f.config_args()});
    auto sorted = nlohmann::json::parse(pair.dump(-1, ' ', false, Json::error_handler_t::replace));
    return sorted.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

StartGroups group_starts(const std::vector<parse::BootFacts>& facts, const std::vector<std::string>& labels) {
    StartGroups out;
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, const parse::BootFacts*>>>> by_config;
    for (std::size_t i = 0; i < facts.size(); ++i) {
        std::string name = i < labels.size() ? labels[i] : fmt::format("boot{}", i);
        const parse::BootFacts& f = facts[i];
        if (!f.ready || !f.config_args()) {
            out.not_compared.push_back(name);
            continue;
        }
        std::string key = config_key(f);
        auto it = std::find_if(by_config.begin(), by_config.end(), [&](const auto& e) { return e.first == key; });
        if (it == by_config.end()) it = by_config.insert(by_config.end(), {key, {}});
        it->second.emplace_back(name, &f);
    }
    for (auto& [key, group] : by_config)
        if (group.size() > 1) out.groups.push_back(std::move(group));
    return out;
}

std::vector<CheckResult> check_same_pool(const std::vector<parse::BootFacts>& facts,
                                         const std::vector<std::string>& labels) {
    StartGroups g = group_starts(facts, labels);
    std::vector<CheckResult> out;
    for (const auto& group : g.groups) {
        Json pools = Json::object();
        std::vector<std::string> missing;
        std::set<long long> distinct;
        std::string label;
        for (const auto& [name, f] : group) {
            pools[name] = or_null(f->kv_pool_tokens);
            if (!f->kv_pool_tokens)
                missing.push_back(name);
            else
                distinct.insert(*f->kv_pool_tokens);
            label += (label.empty() ? "" : ", ") + name;
        }
        Json ev{{"pools", pools}, {"not_compared", g.not_compared}};
        if (!missing.empty()) {
            std::string names;
            for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
            out.push_back({TripwireId::T4, Status::unknown, "no KV pool line in: " + names, std::move(ev)});
            continue;
        }
        long long lo = *distinct.begin(), hi = *distinct.rbegin();
        if (distinct.size() == 1) {
            out.push_back({TripwireId::T4, Status::pass,
                           fmt::format("same flags, same pool ({} tokens): {}", text::with_commas(lo), label),
                           std::move(ev)});
            continue;
        }
        ev["levels"] = std::vector<long long>(distinct.begin(), distinct.end());
        double apart_pct = 100.0 * static_cast<double>(hi - lo) / static_cast<double>(lo);
        out.push_back({TripwireId::T4, Status::warn,
                       fmt::format("same flags, {} different pools: {} to {} tokens ({:.2f}% apart) across {}; "
                                   "compare results only within one pool",
                                   distinct.size(), text::with_commas(lo), text::with_commas(hi), apart_pct, label),
                       std::move(ev)});
    }
    return out;
}

}  // namespace inferlint::checks
