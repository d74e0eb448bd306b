// The tripwires' codes as a type. Codes are permanent, in the order the tripwires were
// found; the catalog (core/catalog.hpp) holds one entry per code, in this order, and a
// test holds the two together.
#pragma once

#include <array>
#include <cstddef>
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
    T20,  // beyond the reference: failed-requests
    T21,  // beyond the reference: streams-vs-running
    T22,  // beyond the reference: known-engine-bug
};
// The last code: a new tripwire is one more enumerator, and this names it.
inline constexpr TripwireId kLastTripwire = TripwireId::T22;

namespace tripwire_id_detail {
inline constexpr std::size_t kCount = static_cast<std::size_t>(kLastTripwire);
// "T1" .. "T22", made from the numbers: no second list of the codes to keep in step.
struct CodeTexts {
    std::array<std::array<char, 4>, kCount + 1> text{};
    std::array<std::uint8_t, kCount + 1> size{};
};
constexpr CodeTexts make_code_texts() {
    CodeTexts t;
    for (std::size_t i = 1; i <= kCount; ++i) {
        t.text[i][0] = 'T';
        std::uint8_t n = 1;
        if (i >= 10) t.text[i][n++] = static_cast<char>('0' + i / 10);
        t.text[i][n++] = static_cast<char>('0' + i % 10);
        t.size[i] = n;
    }
    return t;
}
inline constexpr CodeTexts kCodeTexts = make_code_texts();
}  // namespace tripwire_id_detail

// Every tripwire, in code order, T1 to the last: each has its catalog row (core/catalog.hpp;
// a test holds the two together).
inline constexpr auto kTripwireIds = [] {
    std::array<TripwireId, tripwire_id_detail::kCount> ids{};
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<TripwireId>(i + 1);
    return ids;
}();

// "T1" .. "T22": what scripts read in --json and people read on the terminal.
constexpr std::string_view code(TripwireId id) {
    const auto i = static_cast<std::size_t>(id);
    if (i == 0 || i > tripwire_id_detail::kCount) return "T?";
    return {tripwire_id_detail::kCodeTexts.text[i].data(), tripwire_id_detail::kCodeTexts.size[i]};
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
