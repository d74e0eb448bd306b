// The small text helpers every layer shares (internal: not part of the public headers).
#pragma once

#include <cctype>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace inferlint::util::text {

// The ASCII white space of C's isspace() and Python's bytes.strip().
inline constexpr std::string_view kSpace = " \t\n\v\f\r";
// What HTTP allows around a value, and the line ends a header may keep.
inline constexpr std::string_view kHttpSpace = " \t\n\r";
// What Python's str.strip() takes off ASCII text: isspace's and the separators 0x1c-0x1f.
inline constexpr std::string_view kPySpace = " \t\n\v\f\r\x1c\x1d\x1e\x1f";

// Without the characters of `space` around it.
inline std::string_view trim(std::string_view s, std::string_view space = kSpace) {
    auto b = s.find_first_not_of(space);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(space) - b + 1);
}

// The value of one hex digit (either case), -1 for any other character.
inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// ASCII lower case (header names, URL schemes).
inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// 32000 -> "32,000", as Python's "{:,}" writes an integer.
inline std::string with_commas(long long n) {
    std::string digits = std::to_string(n < 0 ? -(n + 1) + 1ULL : static_cast<unsigned long long>(n));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

// One character and the text that stands for it when escaped.
using Escape = std::pair<char, std::string_view>;

// `text` with each character that `escapes` names replaced by its text ("" drops it).
inline std::string escape_chars(std::string_view text, std::span<const Escape> escapes) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char c : text) {
        const Escape* hit = nullptr;
        for (const Escape& e : escapes)
            if (e.first == c) hit = &e;
        if (hit)
            out += hit->second;
        else
            out += c;
    }
    return out;
}

}  // namespace inferlint::util::text
