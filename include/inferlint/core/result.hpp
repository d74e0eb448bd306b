// The one result type every check returns (port of result.py).
#pragma once

#include "inferlint/core/tripwire_id.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint {

// Evidence keeps insertion order, as the Python tool's dicts do.
using Json = nlohmann::ordered_json;

// A value that may be absent, as JSON: the value, or null. Never 0 for a missing reading.
template <typename T>
Json or_null(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

// A member of T and the key members_json writes it under: member("engine", &BootFacts::engine).
template <class T, class M>
struct Member {
    const char* key;
    M T::*field;
};
template <class T, class M>
constexpr Member<T, M> member(const char* key, M T::*field) {
    return {key, field};
}

// The members named, in that order, as one JSON object; an empty optional is null.
template <class T, class... M>
Json members_json(const T& obj, const Member<T, M>&... members) {
    Json j = Json::object();
    auto value = [](const auto& v) -> Json {
        if constexpr (requires { v.has_value(); })
            return or_null(v);
        else
            return Json(v);
    };
    ((j[members.key] = value(obj.*members.field)), ...);
    return j;
}

enum class Status {
    pass,
    warn,
    // The tripwire caught its problem (for T7/T12: the server failed).
    fail,
    // The instrument could not decide. Never folded into pass.
    unknown,
    // The tripwire is about a behaviour this engine does not have.
    not_applicable,
};

// "pass", "warn", "fail", "unknown", "not_applicable": what scripts read in --json.
std::string_view status_value(Status s);
// "PASS", "WARN", "TRIPWIRE-FAILED", "????", "N/A": what a person reads.
std::string_view status_label(Status s);

struct CheckResult {
    TripwireId tripwire{};
    Status status = Status::unknown;
    std::string message;
    Json evidence = Json::object();

    bool ok() const { return status == Status::pass || status == Status::warn || status == Status::not_applicable; }
    Json to_json() const;
};

enum class Strict { no, yes };

// 1 if any fail (or any warn when strict), else 2 if any unknown, else 0.
int exit_code(const std::vector<CheckResult>& results, Strict strict);

// "[ T1] TRIPWIRE-FAILED  22 preemptions during the run"
std::string terminal_line(const CheckResult& r);

// The --json document: an array of {tripwire, status, message, evidence}, indent 1.
std::string results_json(const std::vector<CheckResult>& results);

// "8 checks (4 pass, 2 warn, 2 tripwire-failed)", and how many do not apply.
std::string counts_summary(const std::vector<CheckResult>& results);

}  // namespace inferlint
