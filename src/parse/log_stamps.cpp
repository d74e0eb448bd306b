// Log stamps and the boot time they give.
#include "inferlint/parse/log_stamps.hpp"

#include <algorithm>
#include <iterator>

namespace inferlint::parse {

namespace {

bool stamp_digit(char c) { return c >= '0' && c <= '9'; }
bool stamp_word_char(char c) {
    return stamp_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

std::optional<long long> stamp_seconds(std::string_view line) {
    constexpr std::string_view shape = "dd-dd dd:dd:dd";
    if (line.size() < shape.size()) return std::nullopt;
    // A stamp's first '-' is two bytes in: the shape is tried only there, in the same order.
    for (auto dash = line.find('-', 2); dash != std::string_view::npos; dash = line.find('-', dash + 1)) {
        const std::size_t i = dash - 2;
        if (i + shape.size() > line.size()) break;
        if (i > 0 && stamp_word_char(line[i - 1])) continue;
        bool ok = true;
        for (std::size_t k = 0; k < shape.size() && ok; ++k)
            ok = shape[k] == 'd' ? stamp_digit(line[i + k]) : line[i + k] == shape[k];
        if (!ok) continue;
        std::size_t end = i + shape.size();
        if (end < line.size() && stamp_word_char(line[end])) continue;
        auto two = [&](std::size_t at) { return (line[i + at] - '0') * 10 + (line[i + at + 1] - '0'); };
        int mo = two(0), d = two(3), h = two(6), mi = two(9), se = two(12);
        // 2000 is a leap year, so 02-29 is a date.
        static constexpr int days_in[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (mo < 1 || mo > 12 || d < 1 || d > days_in[mo - 1] || h > 23 || mi > 59 || se > 59) return std::nullopt;
        long long day = d - 1;
        for (int m = 1; m < mo; ++m) day += days_in[m - 1];
        return ((day * 24 + h) * 60 + mi) * 60 + se;
    }
    return std::nullopt;
}

void StampTrail::line(std::string_view line, long long lineno) {
    // A stamp sits near the start of a line; a very long line is not searched whole.
    auto t = stamp_seconds(line.substr(0, 512));
    if (t && (changes_.empty() || changes_.back().second != *t)) changes_.emplace_back(lineno, *t);
}

std::optional<double> StampTrail::boot_seconds(std::optional<long long> ready_lineno) const {
    if (!ready_lineno || changes_.empty() || changes_.front().first > *ready_lineno) return std::nullopt;
    // The last change at or before the ready line holds the stamp that line ran under.
    auto after = std::upper_bound(changes_.begin(), changes_.end(), *ready_lineno,
                                  [](long long n, const auto& change) { return n < change.first; });
    long long first = changes_.front().second, last = std::prev(after)->second;
    if (last < first) return std::nullopt;  // a boot across New Year: not guessed
    return static_cast<double>(last - first);
}

}  // namespace inferlint::parse
