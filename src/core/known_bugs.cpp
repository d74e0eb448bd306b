// T22's rows. Each comes from a field note: what was run, what broke, what avoided it.
#include "inferlint/core/known_bugs.hpp"

#include <fmt/format.h>

#include <cctype>
#include <optional>

namespace inferlint {

const std::vector<KnownBug>& known_engine_bugs() {
    static const std::vector<KnownBug> rows = {
        {.key = "vllm-mtp-hybrid-v1",
         .engine = EngineId::vllm,
         .before_version = "0.30",
         .speculative_method = "mtp",
         .hybrid_model = BugNeeds::on,
         .v1_model_runner = BugNeeds::on,
         .configuration = "MTP speculative decoding on a hybrid (Mamba/linear-attention) model with the V1 "
                          "model runner (vLLM's default before 0.29; a start that logs \"Using V2 Model Runner\" ran V2)",
         .effect = "replies repeat or skip tokens: 29 of 385 replies changed, up to 11.9 accuracy points lost",
         .fix = "upgrade to vLLM 0.30 or later and keep its V2 model runner, or turn speculative decoding off",
         .source = "field note: MTP on a hybrid model, vLLM 0.28-0.29 against 0.30 (issue 30)"},
        {.key = "vllm-mtp-hybrid-v1-forced",
         .engine = EngineId::vllm,
         .from_version = "0.30",
         .speculative_method = "mtp",
         .hybrid_model = BugNeeds::on,
         .v1_model_runner = BugNeeds::on,
         .configuration = "MTP speculative decoding on a hybrid model with the V1 model runner forced",
         .effect = "replies repeat or skip tokens as before 0.30 (seen forced on 0.32)",
         .fix = "let vLLM use its V2 model runner (unset what forces V1), or turn speculative decoding off",
         .source = "field note: the V1 runner forced on vLLM 0.32 (issue 30)"},
        {.key = "vllm-ngram-hybrid",
         .engine = EngineId::vllm,
         .before_version = "0.32.0",
         .speculative_method = "ngram",
         .hybrid_model = BugNeeds::on,
         .configuration = "n-gram speculative decoding on a hybrid model",
         .effect = "79-80 of 385 replies changed (18.2 accuracy points); no flag avoided it",
         .fix = "upgrade to vLLM 0.32.0 or later, or turn n-gram speculative decoding off",
         .source = "field note: n-gram on a hybrid model, vLLM before 0.32.0 (issue 30)"},
        {.key = "sglang-hybrid-prefix-cache-one-running",
         .engine = EngineId::sglang,
         .from_version = "0.5.20",
         .before_version = "0.5.21",
         .versions_words = "0.5.20",
         .hybrid_model = BugNeeds::on,
         .prefix_cache = BugNeeds::on,
         .configuration = "a hybrid model with the prefix (radix) cache on",
         .effect = "the running limit drops to one request, said once at start-up (\"max_running_requests is "
                   "capped to 1 by the mamba state cache\"): every request queues behind the one running",
         .fix = "turn the prefix cache off (--disable-radix-cache) or give the mamba state cache more room "
                "(--max-mamba-cache-size, --mamba-full-memory-ratio), and check the start-up line",
         .source = "field note: SGLang 0.5.20 with a hybrid model (issue 30; fixture sglang-0.5/capped)"},
    };
    return rows;
}

int compare_versions(std::string_view a, std::string_view b) {
    auto next = [](std::string_view& s) -> std::optional<long long> {
        if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;
        long long n = 0;
        while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front())) && n < 1'000'000'000) {
            n = n * 10 + (s.front() - '0');
            s.remove_prefix(1);
        }
        if (!s.empty() && s.front() == '.')
            s.remove_prefix(1);
        else
            s = {};  // "0.19dev": the numbers end here
        return n;
    };
    if (!a.empty() && (a.front() == 'v' || a.front() == 'V')) a.remove_prefix(1);
    if (!b.empty() && (b.front() == 'v' || b.front() == 'V')) b.remove_prefix(1);
    while (!a.empty() || !b.empty()) {
        long long x = next(a).value_or(0), y = next(b).value_or(0);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

bool version_in_range(const KnownBug& bug, std::string_view version) {
    if (!bug.from_version.empty() && compare_versions(version, bug.from_version) < 0) return false;
    if (!bug.before_version.empty() && compare_versions(version, bug.before_version) >= 0) return false;
    return true;
}

std::string bug_versions_text(const KnownBug& bug) {
    const std::string_view name = engine(bug.engine).name;
    if (bug.from_version.empty() && bug.before_version.empty()) return fmt::format("{}, every version", name);
    if (bug.from_version.empty()) return fmt::format("{} before {}", name, bug.before_version);
    if (bug.before_version.empty()) return fmt::format("{} {} and later", name, bug.from_version);
    if (!bug.versions_words.empty()) return fmt::format("{} {}", name, bug.versions_words);
    return fmt::format("{} {} to before {}", name, bug.from_version, bug.before_version);
}

std::string known_bugs_text() {
    std::string out;
    int n = 0;
    for (const auto& b : known_engine_bugs())
        out += fmt::format("{}({}) {}, {}: {}. Do: {}. Source: {}.", out.empty() ? "" : " ", ++n, bug_versions_text(b),
                           b.configuration, b.effect, b.fix, b.source);
    return out;
}

}  // namespace inferlint
