// T6: --attention-backend sets the target model's backend, but a speculative-decoding
// drafter picks its own from a candidate list, so a backend known to fail on the machine
// can be in use while the log shows the requested one honoured.
#include "inferlint/checks/bootlog_checks.hpp"

#include <fmt/format.h>

#include <set>

namespace inferlint::checks {

namespace {
std::string joined(const std::set<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// TensorRT-LLM 1.1 prints no "LLM Args" line, but its PyTorchConfig line states the
// attention backend the target runs and its runtime features that no draft model is there:
// then nothing can have been ignored, whatever was requested.
std::optional<CheckResult> trtllm_without_args(const parse::BootFacts& facts) {
    if (facts.engine != "trtllm" || facts.selected_backends.empty() || facts.speculative != false) return std::nullopt;
    Json ev{{"requested", nullptr},
            {"target", facts.selected_backends},
            {"drafter", facts.drafter_backends},
            {"speculative", false}};
    return CheckResult{TripwireId::T6, Status::pass,
                       fmt::format("nothing to check: TensorRT-LLM's config line says the target runs attn_backend {} "
                                   "and there was no draft model, so nothing could be ignored (the log has no "
                                   "'LLM Args:' line to say what was requested)",
                                   facts.selected_backends.back()),
                       std::move(ev)};
}

}  // namespace

std::string missing_args_line(const std::optional<std::string>& engine) {
    if (engine == "sglang") return "SGLang's server_args= line (printed at start-up at the default --log-level info)";
    if (engine == "trtllm")
        return "TensorRT-LLM's 'LLM Args:' line (printed by trtllm-serve at --log_level info; 1.1 and older print "
               "none)";
    return "vLLM's 'non-default args:' line (printed by vllm serve at the default VLLM_LOGGING_LEVEL=INFO)";
}

CheckResult check_backend_honoured(const parse::BootFacts& facts) {
    if (!facts.config_args()) {
        if (auto r = trtllm_without_args(facts)) return *r;
        return {TripwireId::T6, Status::unknown,
                fmt::format("no arguments line in the log; cannot tell what was requested: it needs {}",
                            missing_args_line(facts.engine)),
                Json::object()};
    }
    const std::string& server = by_key(facts.engine.value_or("")).name;
    std::string flag = facts.engine == "trtllm" ? "attn_backend" : "--attention-backend";
    Json ev{{"requested", or_null(facts.requested_backend)},
            {"target", facts.selected_backends},
            {"drafter", facts.drafter_backends},
            {"speculative", or_null(facts.speculative)}};
    if (!facts.requested_backend) {
        std::string chosen;
        for (const auto& b : facts.selected_backends) chosen += (chosen.empty() ? "" : ", ") + b;
        std::string msg = fmt::format(
            "nothing to check: the server was started without {}, so {} chose its own ({}) and nothing could be "
            "ignored",
            flag, server, chosen.empty() ? "one" : chosen);
        if (facts.speculative == false) msg += "; there was no draft model either";
        return {TripwireId::T6, Status::pass, msg, std::move(ev)};
    }
    const std::string& req = *facts.requested_backend;
    if (facts.selected_backends.empty() && facts.drafter_backends.empty())
        return {TripwireId::T6, Status::unknown, "no backend selection line in the log", std::move(ev)};
    std::set<std::string> off_target, off_drafter;
    for (const auto& b : facts.selected_backends)
        if (b != req) off_target.insert(b);
    for (const auto& b : facts.drafter_backends)
        if (b != req) off_drafter.insert(b);
    if (!off_target.empty())
        return {TripwireId::T6, Status::fail,
                fmt::format("{} was requested, but the main model used {}", req, joined(off_target)), std::move(ev)};
    if (!off_drafter.empty())
        return {TripwireId::T6, Status::fail,
                fmt::format("{} was requested and the main model uses it, but the draft model (speculative "
                            "decoding) picked {}",
                            req, joined(off_drafter)),
                std::move(ev)};
    return {TripwireId::T6, Status::pass, fmt::format("{} was requested and used", req), std::move(ev)};
}

}  // namespace inferlint::checks
