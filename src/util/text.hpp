// Internal to util: the small text helpers the HTTP client and the address reader share.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace inferlint::util::text {

// Without the spaces, tabs and line ends around it (what HTTP allows around a value).
inline std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// ASCII lower case (header names, URL schemes).
inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace inferlint::util::text
