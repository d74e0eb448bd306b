// T22: a start that matches a row of the known-bug table (core/known_bugs.cpp).
#include "inferlint/checks/t22_known_engine_bug.hpp"

#include "inferlint/core/known_bugs.hpp"

#include "util/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <string_view>
#include <vector>

namespace inferlint::checks {

namespace {

const Json* t22_arg(const std::optional<Json>& args, std::string_view key) {
    if (!args || !args->is_object()) return nullptr;
    auto it = args->find(key);
    return it == args->end() ? nullptr : &*it;
}

std::optional<bool> t22_json_bool(const Json* v) {
    if (!v || !v->is_boolean()) return std::nullopt;
    return v->get<bool>();
}

// "deepseek_mtp", "qwen3_next_mtp" and SGLang's "NEXTN" are MTP; "[ngram]" is n-gram.
std::string t22_method_name(std::string text) {
    text = util::text::lower(text);
    if (text.find("mtp") != std::string::npos || text == "nextn") return "mtp";
    if (text.find("ngram") != std::string::npos) return "ngram";
    return text;
}

std::optional<std::string> t22_vllm_speculative_method(const parse::BootFacts& f) {
    if (f.speculative == false) return "none";
    // vLLM's non-default args: {'speculative_config': {'method': 'mtp', ...}} (vllm/entrypoints/utils.py
    // log_non_default_args), else its engine config line: speculative_config=SpeculativeConfig(method='mtp', ...).
    if (const Json* spec = t22_arg(f.non_default_args, "speculative_config"); spec && spec->is_object()) {
        auto m = spec->find("method");
        if (m != spec->end() && m->is_string()) return t22_method_name(m->get<std::string>());
    }
    auto it = f.realized.engine_config.find("speculative_config");
    if (it != f.realized.engine_config.end() && it->is_string()) {
        static const std::regex rx(R"(method='?([A-Za-z0-9_]+))");
        std::smatch m;
        const std::string text = it->get<std::string>();
        if (std::regex_search(text, m, rx)) return t22_method_name(m[1].str());
        if (text == "None") return "none";
    }
    return std::nullopt;
}

// vLLM prints "Setting attention block size to N tokens to ensure that attention page size is
// >= mamba page size" and "Padding mamba page size by X%" only for hybrid models
// (vLLM 0.28 logs them from [interface.py:911] and [interface.py:935]); a start that
// reached ready without either served a model without Mamba layers.
std::optional<bool> t22_vllm_hybrid(const parse::BootFacts& f) {
    if (f.mamba_page_padding_pct || f.attention_block_size) return true;
    if (f.non_default_args && f.non_default_args->is_object())
        for (const auto& [key, value] : f.non_default_args->items())
            if (key.starts_with("mamba_")) return true;
    if (f.ready) return false;
    return std::nullopt;
}

// SGLang's server_args: uses_mamba_radix_cache is set for a hybrid model whose radix cache is
// on (python/sglang/srt/server_args.py, 0.5.20); a hybrid model whose running limit the
// mamba state cache lowered says so at start-up.
void t22_sglang_settings(const parse::BootFacts& f, KnownBugFacts& out) {
    if (const Json* spec = t22_arg(f.server_args, "speculative_algorithm"))
        out.speculative_method = spec->is_string() ? t22_method_name(spec->get<std::string>()) : "none";
    if (auto off = t22_json_bool(t22_arg(f.server_args, "disable_radix_cache"))) out.prefix_cache = !*off;
    auto mamba_radix = t22_json_bool(t22_arg(f.server_args, "uses_mamba_radix_cache"));
    const bool capped_by_mamba =
        f.running_cap_reason && util::text::lower(*f.running_cap_reason).find("mamba") != std::string::npos;
    if (mamba_radix == true || capped_by_mamba)
        out.hybrid_model = true;
    else if (mamba_radix == false && out.prefix_cache == true)
        out.hybrid_model = false;
}

// The V1 model runner: not where the log says "Using V2 Model Runner"; yes before 0.29 (V2
// was opt-in) and on a complete start of 0.29 or later that does not say it (a fallback, or
// V1 forced); nullopt for a part of a log.
std::optional<bool> t22_vllm_v1_runner(const parse::BootFacts& f, const std::optional<std::string>& version) {
    if (f.realized.model_runner == "V2") return false;
    if (version && compare_versions(*version, "0.29") < 0) return true;
    if (version && f.ready) return true;
    return std::nullopt;
}

}  // namespace

KnownBugFacts known_bug_facts(const parse::BootFacts& f) {
    KnownBugFacts out;
    out.version = f.version();
    if (f.engine == "vllm") {
        out.engine = EngineId::vllm;
        out.speculative_method = t22_vllm_speculative_method(f);
        out.hybrid_model = t22_vllm_hybrid(f);
        out.v1_model_runner = t22_vllm_v1_runner(f, out.version);
    } else if (f.engine == "sglang") {
        out.engine = EngineId::sglang;
        t22_sglang_settings(f, out);
    } else if (f.engine == "trtllm") {
        out.engine = EngineId::trtllm;
    }
    return out;
}

namespace {

enum class T22Match { no, yes, unknown };

struct T22RowMatch {
    T22Match match = T22Match::yes;
    std::vector<std::string> missing;  // what the log does not say, for unknown
};

void t22_need(T22RowMatch& m, BugNeeds wanted, const std::optional<bool>& have, std::string_view name) {
    if (wanted == BugNeeds::either || m.match == T22Match::no) return;
    if (!have) {
        m.match = T22Match::unknown;
        m.missing.emplace_back(name);
    } else if (*have != (wanted == BugNeeds::on)) {
        m.match = T22Match::no;
    }
}

T22RowMatch t22_match_row(const KnownBug& bug, const KnownBugFacts& f) {
    T22RowMatch m;
    if (f.engine != bug.engine) return {T22Match::no, {}};
    if (!bug.speculative_method.empty()) {
        if (!f.speculative_method)
            m = {T22Match::unknown, {"the speculative-decoding method"}};
        else if (*f.speculative_method != bug.speculative_method)
            return {T22Match::no, {}};
    }
    t22_need(m, bug.hybrid_model, f.hybrid_model, "whether the model is hybrid");
    t22_need(m, bug.prefix_cache, f.prefix_cache, "whether the prefix cache is on");
    t22_need(m, bug.v1_model_runner, f.v1_model_runner, "the model runner");
    if (m.match == T22Match::no) return m;
    if (!f.version) {
        m.match = T22Match::unknown;
        m.missing.insert(m.missing.begin(), "the version");
    } else if (!version_in_range(bug, *f.version)) {
        return {T22Match::no, {}};
    }
    return m;
}

std::string t22_engine_words(const KnownBugFacts& f) {
    std::string e = f.engine ? engine(*f.engine).name : "the engine";
    return f.version ? fmt::format("{} {}", e, *f.version) : e;
}

}  // namespace

CheckResult check_known_engine_bug(const KnownBugFacts& facts) {
    CheckResult r{.tripwire = TripwireId::T22};
    if (!facts.engine) {
        r.message = "Can't tell: the log does not say which engine it is";
        return r;
    }
    std::vector<std::string> hits, unsure, missing, ranges;
    Json matched = Json::array(), undecided = Json::array();
    for (const auto& bug : known_engine_bugs()) {
        T22RowMatch m = t22_match_row(bug, facts);
        if (m.match == T22Match::yes) {
            hits.push_back(
                fmt::format("{} with {}: {}; {}", t22_engine_words(facts), bug.configuration, bug.effect, bug.fix));
            matched.push_back(std::string(bug.key));
        } else if (m.match == T22Match::unknown) {
            unsure.push_back(fmt::format("{} has a known bug in {}, and the log does not say {}", bug.configuration,
                                         bug_versions_text(bug), fmt::join(m.missing, " or ")));
            undecided.push_back(std::string(bug.key));
            ranges.push_back(bug_versions_text(bug));
            for (const auto& what : m.missing)
                if (std::find(missing.begin(), missing.end(), what) == missing.end()) missing.push_back(what);
        }
    }
    r.evidence = {{"engine", engine(*facts.engine).key},
                  {"version", or_null(facts.version)},
                  {"speculative_method", or_null(facts.speculative_method)},
                  {"hybrid_model", or_null(facts.hybrid_model)},
                  {"prefix_cache", or_null(facts.prefix_cache)},
                  {"v1_model_runner", or_null(facts.v1_model_runner)},
                  {"matched", matched},
                  {"undecided", undecided}};
    if (!hits.empty()) {
        r.status = Status::warn;
        r.message = fmt::format("known bug: {}", fmt::join(hits, ". Also: "));
    } else if (!unsure.empty()) {
        // One row: said whole. Several: what the log leaves out, and which rows need it.
        r.message = unsure.size() == 1 ? fmt::format("Can't tell: {}", unsure.front())
                                       : fmt::format(
                                             "Can't tell: the log does not say {}, which {} known bugs need ({}; "
                                             "`inferlint explain T22` lists them)",
                                             fmt::join(missing, " or "), unsure.size(), fmt::join(ranges, ", "));
    } else {
        r.status = Status::pass;
        r.message = fmt::format("no known bug for {} in this configuration", t22_engine_words(facts));
    }
    return r;
}

CheckResult check_known_engine_bug(const parse::BootFacts& facts) {
    return check_known_engine_bug(known_bug_facts(facts));
}

}  // namespace inferlint::checks
