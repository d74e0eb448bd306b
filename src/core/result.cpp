#include "inferlint/core/result.hpp"

#include <fmt/format.h>

#include <array>

namespace inferlint {

std::string_view status_value(Status s) {
    switch (s) {
        case Status::pass:
            return "pass";
        case Status::warn:
            return "warn";
        case Status::fail:
            return "fail";
        case Status::unknown:
            return "unknown";
        case Status::not_applicable:
            return "not_applicable";
    }
    return "unknown";
}

std::string_view status_label(Status s) {
    switch (s) {
        case Status::pass:
            return "PASS";
        case Status::warn:
            return "WARN";
        case Status::fail:
            return "TRIPWIRE-FAILED";
        case Status::unknown:
            return "????";
        case Status::not_applicable:
            return "N/A";
    }
    return "????";
}

Json CheckResult::to_json() const {
    Json j = Json::object();
    j["tripwire"] = std::string(code(tripwire));
    j["status"] = std::string(status_value(status));
    j["message"] = message;
    j["evidence"] = evidence;
    return j;
}

int exit_code(const std::vector<CheckResult>& results, Strict strict) {
    bool any_fail = false, any_warn = false, any_unknown = false;
    for (const auto& r : results) {
        any_fail |= r.status == Status::fail;
        any_warn |= r.status == Status::warn;
        any_unknown |= r.status == Status::unknown;
    }
    if (any_fail || (strict == Strict::yes && any_warn)) return 1;
    if (any_unknown) return 2;
    return 0;
}

std::string terminal_line(const CheckResult& r) {
    return fmt::format("[{:>3}] {}  {}", code(r.tripwire), status_label(r.status), r.message);
}

std::string results_json(const std::vector<CheckResult>& results) {
    Json arr = Json::array();
    for (const auto& r : results) arr.push_back(r.to_json());
    // Invalid UTF-8 from a log line must not throw: replace it.
    return arr.dump(1, ' ', false, Json::error_handler_t::replace);
}

std::string counts_summary(const std::vector<CheckResult>& results) {
    constexpr std::array order{Status::pass, Status::warn, Status::fail, Status::unknown};
    std::string summary;
    std::size_t na = 0;
    for (const auto& r : results) na += r.status == Status::not_applicable;
    for (Status s : order) {
        std::size_t n = 0;
        for (const auto& r : results) n += r.status == s;
        if (!n) continue;
        std::string word = s == Status::unknown ? "unknown" : std::string(status_label(s));
        for (auto& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!summary.empty()) summary += ", ";
        summary += fmt::format("{} {}", n, word);
    }
    std::string text = fmt::format("{} checks ({})", results.size() - na, summary);
    if (na) text += fmt::format("; {} {} not apply", na, na == 1 ? "does" : "do");
    return text;
}

}  // namespace inferlint
