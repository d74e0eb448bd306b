// The tripwires' codes as a type. Codes are permanent, in the order the tripwires were
// found; the catalog (core/catalog.hpp) holds one entry per code, in this order, and a
// test holds the two together.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace inferlint {

enum class TripwireId : std::uint8_t {
    T1 = 1,
    T2,
    T3,
    T4,
    T5,
    T6,
    T7,
    T8,
    T9,
    T10,
    T11,
    T12,
    T13,
    T14,
    T15,
    T16,  // beyond the reference: prefix-cache-hits
    T17,  // beyond the reference: realized-config
    T18,  // beyond the reference: chunks-not-tokens
    T19,  // beyond the reference: gpu-shared
    T20,  // issue 30, on another branch: failed-requests (not in kTripwireIds until its catalog row lands)
    T21,  // beyond the reference: streams-vs-running
    T22,  // beyond the reference: known-engine-bug
};

inline constexpr std::array kTripwireIds = {
    TripwireId::T1,  TripwireId::T2,  TripwireId::T3,  TripwireId::T4,  TripwireId::T5,
    TripwireId::T6,  TripwireId::T7,  TripwireId::T8,  TripwireId::T9,  TripwireId::T10,
    TripwireId::T11, TripwireId::T12, TripwireId::T13, TripwireId::T14, TripwireId::T15,
    TripwireId::T16, TripwireId::T17, TripwireId::T18, TripwireId::T19, TripwireId::T21, TripwireId::T22,
};

// "T1" .. "T22": what scripts read in --json and people read on the terminal.
constexpr std::string_view code(TripwireId id) {
    constexpr std::array<std::string_view, 23> codes = {"T?",  "T1",  "T2",  "T3",  "T4",  "T5",  "T6",  "T7",
                                                        "T8",  "T9",  "T10", "T11", "T12", "T13", "T14", "T15",
                                                        "T16", "T17", "T18", "T19", "T20", "T21", "T22"};
    auto i = static_cast<std::size_t>(id);
    return i < codes.size() ? codes[i] : "T?";
}

// The id a code names, exactly as code() writes it ("T8"); nullopt for any other text.
constexpr std::optional<TripwireId> tripwire_id(std::string_view text) {
    for (TripwireId id : kTripwireIds)
        if (code(id) == text) return id;
    return std::nullopt;
}

// For text that names a tripwire (a JSON document, a user's argument): the code's text.
constexpr bool operator==(TripwireId id, std::string_view text) { return code(id) == text; }

// The tripwires a list names: codes and ranges, separated by commas ("T1-T15", "T1,T8,T14",
// any case), "all", or "reference": the Python tool's fifteen (T1-T15), for scripts that
// need its output line for line. nullopt when a part names no tripwire or a range runs
// backwards.
std::optional<std::vector<TripwireId>> parse_tripwire_selection(std::string_view text);

}  // namespace inferlint
