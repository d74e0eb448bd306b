// Internal to the boot-log parsers: the extractors the engines' field tables are made of,
// each from a pattern alone (bootlog_sglang.cpp, bootlog_trtllm.cpp, bootlog_vllm.cpp).
#pragma once

#include "bootlog_text.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace inferlint::parse::detail {

// A pattern as a template argument: a string literal, or a constexpr char array.
template <std::size_t N>
struct Pattern {
    char text[N];
    constexpr Pattern(const char (&s)[N]) {  // NOLINT: implicit, so that text_of<R"(...)"> reads
        for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
    }
};

// Extractors made from a pattern alone (`P`, a string literal): its first group read by
// `Read` (group_text, group_int, ...), or true where it matches (flag_of).
template <Pattern P, auto Read>
std::optional<Json> pattern_fact(std::string_view line, std::size_t at) {
    static const Regex rx(P.text);
    return fact(Read(line, rx, at));
}
template <Pattern P>
constexpr Extractor text_of = pattern_fact<P, group_text>;
template <Pattern P>
constexpr Extractor int_of = pattern_fact<P, group_int>;
template <Pattern P>
constexpr Extractor float_of = pattern_fact<P, group_float>;
template <Pattern P>
constexpr Extractor int_commas_of = pattern_fact<P, group_int_commas>;
template <Pattern P>
constexpr Extractor float_commas_of = pattern_fact<P, group_float_commas>;
inline std::optional<bool> matched(std::string_view line, const Regex& rx, std::size_t at) {
    return matches(line, rx, at) ? std::optional<bool>(true) : std::nullopt;
}
template <Pattern P>
constexpr Extractor flag_of = pattern_fact<P, matched>;

// Extractors of a pattern's two groups, each read by its converter (`A` group 1, `B` group
// 2: to_int, to_float_commas, as_text, ...), as the fact [group 1, group 2], or with
// `Swap` [group 2, group 1]; nullopt where either does not convert.
inline std::optional<std::string> as_text(std::string_view s) { return std::string(s); }
template <Pattern P, auto A, auto B, bool Swap>
std::optional<Json> pair_fact(std::string_view line, std::size_t at) {
    static const Regex rx(P.text);
    Match m;
    if (!search_bounded(line, rx, m, at)) return std::nullopt;
    auto a = A(group(m, 1));
    auto b = B(group(m, 2));
    if (!a || !b) return std::nullopt;
    return Swap ? Json::array({*b, *a}) : Json::array({*a, *b});
}
template <Pattern P, auto A, auto B>
constexpr Extractor pair_of = pair_fact<P, A, B, false>;
template <Pattern P, auto A, auto B>
constexpr Extractor swapped_pair_of = pair_fact<P, A, B, true>;

}  // namespace inferlint::parse::detail
