// The comparability checks: whether two arms of runs measured the thing their names say,
// so that a difference between them can be put on the configuration.
#include "compare_internal.hpp"

#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace inferlint::checks {

namespace {

constexpr std::array<std::string_view, 9> kComparisonCodes = {"C?", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"};
constexpr std::array<std::string_view, 9> kComparisonTitles = {
    "?",
    "Settings that differ between the arms",
    "KV cache capacity",
    "Prefix-cache hit rate",
    "Load client, endpoint and workload shape",
    "Workload shapes measured",
    "Tripwires that failed in a run",
    "Runs that did not complete",
    "Failed requests in each arm",
};

using compare_detail::join;

// One field's values in an arm: what was asked and what ran, as JSON texts.
std::set<std::string> cmp_values(const Arm& arm, std::string_view field) {
    std::set<std::string> out;
    for (const ArmRun* r : arm.completed())
        for (const auto& f : r->config)
            if (f.name == field) out.insert(Json::array({f.asked, f.realized}).dump());
    return out;
}

std::string cmp_shown(const std::set<std::string>& values) {
    std::vector<std::string> shown;
    for (const auto& v : values) {
        Json pair = Json::parse(v);
        const Json& pick = pair[1].is_null() ? pair[0] : pair[1];
        shown.push_back(pick.is_string() ? pick.get<std::string>() : pick.dump());
    }
    return join(shown, " / ");
}

ComparisonResult settings_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C1, Status::unknown, "", Json::object()};
    std::vector<std::string> no_boot;
    for (const Arm* arm : {&a, &b})
        for (const ArmRun* run : arm->completed())
            if (!run->has_boot) no_boot.push_back(run->label);
    if (!no_boot.empty()) {
        r.message = "no boot log in " + join(no_boot) + ": the settings each run ran cannot be compared";
        return r;
    }
    const ArmRun* any = a.completed().empty() ? nullptr : a.completed().front();
    if (!any || b.completed().empty()) {
        r.message = "an arm has no completed run";
        return r;
    }
    std::vector<std::string> differ;
    Json fields = Json::object();
    std::size_t compared = 0;
    for (const auto& f : any->config) {
        // The pool follows from the settings and the card, and C2 weighs it on its own.
        if (f.name == "kv_capacity_tokens") continue;
        ++compared;
        auto va = cmp_values(a, f.name), vb = cmp_values(b, f.name);
        if (va == vb) continue;
        differ.emplace_back(f.name);
        fields[std::string(f.name)] = {{a.name, cmp_shown(va)}, {b.name, cmp_shown(vb)}};
        differ.back() += fmt::format(" ({} against {})", cmp_shown(vb), cmp_shown(va));
    }
    r.evidence = {{"fields", fields}, {"compared", compared}};
    if (differ.empty()) {
        r.status = Status::pass;
        r.message = fmt::format("the arms ran the same settings ({} compared, T17's fields)", compared);
    } else if (differ.size() == 1) {
        r.status = Status::pass;
        r.message = "one setting differs: " + differ.front();
    } else {
        r.status = Status::warn;
        r.message =
            fmt::format("{} settings differ between the arms: {}; a difference cannot be put on any one of them",
                        differ.size(), join(differ, "; "));
    }
    return r;
}

std::optional<double> cmp_median(std::vector<double> v) {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::optional<double> kv_tokens(const Arm& arm) {
    std::vector<double> v;
    for (const ArmRun* r : arm.completed())
        for (const auto& f : r->config)
            if (f.name == "kv_capacity_tokens" && f.realized.is_number()) v.push_back(f.realized.get<double>());
    return cmp_median(std::move(v));
}

ComparisonResult kv_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C2, Status::unknown, "", Json::object()};
    auto ka = kv_tokens(a), kb = kv_tokens(b);
    r.evidence = {{"kv_tokens", {{a.name, or_null(ka)}, {b.name, or_null(kb)}}}};
    // Where each arm's pool was read: its boot logs, else /metrics (cache_config_info, ...).
    Json sources = Json::object();
    for (const Arm* arm : {&a, &b}) {
        std::vector<std::string> seen;
        for (const ArmRun* run : arm->completed())
            if (!run->kv_source.empty() && std::find(seen.begin(), seen.end(), run->kv_source) == seen.end())
                seen.push_back(run->kv_source);
        sources[arm->name] = seen;
    }
    r.evidence["kv_source"] = sources;
    if (!ka || !kb || *ka <= 0 || *kb <= 0) {
        r.message = "an arm states no KV cache size: neither a boot log nor /metrics (vllm:cache_config_info, "
                    "trtllm_kv_cache_max_blocks) gives one";
        return r;
    }
    const double factor = *kb / *ka;
    r.evidence["factor"] = factor;
    auto tokens = [](double t) { return util::text::with_commas(std::llround(t)); };
    std::string sizes = fmt::format("{} {} tokens, {} {}", a.name, tokens(*ka), b.name, tokens(*kb));
    if (std::max(factor, 1.0 / factor) - 1.0 > kPoolStepShare) {
        r.status = Status::warn;
        r.message = fmt::format(
            "KV capacity differs by more than one pool step: {} ({:.3f}x); {} and the KV cache "
            "dtype, not only the setting under test, can make the difference",
            sizes, factor, b.name);
        auto dtypes_a = cmp_values(a, "kv_cache_dtype"), dtypes_b = cmp_values(b, "kv_cache_dtype");
        if (dtypes_a != dtypes_b)
            r.message = fmt::format(
                "KV capacity differs by more than one pool step: {} ({:.3f}x), with the KV "
                "cache in {} against {}",
                sizes, factor, cmp_shown(dtypes_b), cmp_shown(dtypes_a));
    } else {
        r.status = Status::pass;
        r.message = fmt::format("KV capacity within one pool step: {} ({:.3f}x)", sizes, factor);
    }
    return r;
}

ComparisonResult prefix_check(const Arm& a, const Arm& b) {
    ComparisonResult r{ComparisonId::C3, Status::unknown, "", Json::object()};
    std::vector<std::string> failed;
    std::map<std::string, std::optional<double>> mean_rate;
    for (const Arm* arm : {&a, &b}) {
        std::vector<double> rates;
        for (const ArmRun* run : arm->completed())
            for (const auto& v : run->verdicts) {
                if (v.tripwire != TripwireId::T16) continue;
                if (v.status == Status::fail) failed.push_back(run->label);
                if (run->figures.prefix_hit_rate) rates.push_back(*run->figures.prefix_hit_rate);
            }
        mean_rate[arm->name] = rates.empty() ? std::nullopt : std::optional(stats::mean_of(rates));
    }
    auto ra = mean_rate[a.name], rb = mean_rate[b.name];
    r.evidence = {{"hit_rate", {{a.name, or_null(ra)}, {b.name, or_null(rb)}}}, {"t16_failed", failed}};
    if (!failed.empty()) {
        r.status = Status::warn;
        r.message = "T16 failed in " + join(failed) + ": the prefix cache served prompts meant to be unique";
        return r;
    }
    if (!ra || !rb) {
        r.message = "no prefix-cache hit rate (T16) in an arm";
        return r;
    }
    std::string rates = fmt::format("{} {:.1f}%, {} {:.1f}%", a.name, *ra * 100, b.name, *rb * 100);
    const bool apart = std::fabs(*ra - *rb) > kPrefixHitPoints;
    r.status = apart ? Status::warn : Status::pass;
    r.message = apart ? fmt::format(
                            "prefix-cache hit rates differ by {:.1f} points ({}): the cache, not the setting "
                            "under test, can make the difference",
                            std::fabs(*ra - *rb) * 100, rates)
                      : "prefix-cache hit rates within 5 points: " + rates;
    return r;
}

}  // namespace

std::string_view code(ComparisonId id) { return kComparisonCodes[static_cast<std::size_t>(id)]; }
std::string_view comparison_title(ComparisonId id) { return kComparisonTitles[static_cast<std::size_t>(id)]; }

Json ComparisonResult::to_json() const {
    return Json{{"check", code(id)},
                {"title", comparison_title(id)},
                {"status", status_value(status)},
                {"message", message},
                {"evidence", evidence}};
}

std::string ComparisonResult::terminal_line() const {
    return fmt::format("[{:>3}] {}  {}", code(id), status_label(status), message);
}

std::vector<const ArmRun*> Arm::completed() const {
    std::vector<const ArmRun*> out;
    for (const auto& r : runs)
        if (r.completed) out.push_back(&r);
    return out;
}

std::string compare_detail::join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
    return out;
}

std::vector<ComparisonResult> comparability_checks(const Arm& a, const Arm& b) {
    std::vector<ComparisonResult> out{settings_check(a, b), kv_check(a, b), prefix_check(a, b)};
    for (auto& r : compare_detail::load_checks(a, b)) out.push_back(std::move(r));
    return out;
}

}  // namespace inferlint::checks
