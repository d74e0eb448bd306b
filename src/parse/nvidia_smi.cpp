#include "inferlint/parse/nvidia_smi.hpp"

#include "util/text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace inferlint::nvidia_smi {

namespace {

using util::text::kSpace;
using util::text::trim;

template <typename T>
bool parse_int(std::string_view s, T& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size();
}

// Compute capability prefix -> family; the more specific prefixes come first.
struct FamilyRule {
    std::array<int, 2> prefix;
    std::size_t len;
    const char* name;
};
constexpr std::array<FamilyRule, 10> kFamilies{{
    {{6, 0}, 1, "Pascal"},
    {{7, 0}, 2, "Volta"},
    {{7, 2}, 2, "Volta"},
    {{7, 5}, 2, "Turing"},
    {{8, 9}, 2, "Ada Lovelace"},
    {{8, 0}, 1, "Ampere"},
    {{9, 0}, 1, "Hopper"},
    {{10, 0}, 1, "Blackwell"},
    {{11, 0}, 1, "Blackwell"},
    {{12, 0}, 1, "Blackwell"},
}};

// A field nvidia-smi filled in: empty, "[N/A]" and "[Not Supported]" are not values.
std::optional<std::string> value(std::string_view s) {
    s = trim(s);
    if (s.empty() || s.front() == '[') return std::nullopt;
    return std::string(s);
}

// Memory in MiB; nvidia-smi prints whole numbers, but a decimal is truncated, not refused.
std::optional<long long> mib(std::string_view s) {
    auto v = value(s);
    if (!v) return std::nullopt;
    long long whole = 0;
    if (parse_int(std::string_view(*v), whole)) return whole;
    const char* begin = v->c_str();
    char* end = nullptr;
    double d = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || !std::isfinite(d) || std::fabs(d) > 9.0e18) return std::nullopt;
    return static_cast<long long>(d);
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= '\x1c' && c <= '\x1e')) {
            lines.push_back(text.substr(start, i - start));
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            start = i + 1;
        }
    }
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

}  // namespace

std::optional<std::string> family(std::optional<std::string_view> compute_cap) {
    if (!compute_cap || compute_cap->empty()) return std::nullopt;
    std::vector<int> parts;
    std::string_view rest = *compute_cap;
    for (;;) {
        auto dot = rest.find('.');
        int n = 0;
        if (!parse_int(trim(rest.substr(0, dot)), n)) return std::nullopt;
        parts.push_back(n);
        if (dot == std::string_view::npos) break;
        rest.remove_prefix(dot + 1);
    }
    for (const auto& rule : kFamilies) {
        if (parts.size() < rule.len) continue;
        bool match = true;
        for (std::size_t i = 0; i < rule.len; ++i) match = match && parts[i] == rule.prefix[i];
        if (match) return std::string(rule.name);
    }
    return std::nullopt;
}

std::optional<std::string> GpuInfo::family() const {
    if (!compute_cap) return std::nullopt;
    return nvidia_smi::family(std::string_view(*compute_cap));
}

std::vector<GpuInfo> parse_gpus(std::string_view text, WithCap with_cap) {
    const std::size_t n = with_cap == WithCap::yes ? 7 : 6;
    const std::size_t tail_len = n - 2;  // memory total, used, free, driver[, cap]
    std::vector<GpuInfo> gpus;
    for (std::string_view line : split_lines(text)) {
        std::vector<std::string_view> parts;
        std::size_t start = 0;
        for (;;) {
            auto comma = line.find(',', start);
            parts.push_back(trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (parts.size() < n) continue;
        GpuInfo g;
        if (!parse_int(parts[0], g.index)) continue;
        const std::size_t name_end = parts.size() - tail_len;
        for (std::size_t i = 1; i < name_end; ++i) {
            if (i > 1) g.name += ", ";
            g.name += parts[i];
        }
        g.memory_total_mib = mib(parts[name_end]);
        g.memory_used_mib = mib(parts[name_end + 1]);
        g.memory_free_mib = mib(parts[name_end + 2]);
        g.driver = value(parts[name_end + 3]);
        if (with_cap == WithCap::yes) g.compute_cap = value(parts[name_end + 4]);
        gpus.push_back(std::move(g));
    }
    return gpus;
}

std::optional<std::vector<long long>> parse_used_mib(std::string_view text) {
    std::vector<long long> used;
    std::size_t i = 0;
    while (i < text.size()) {
        i = text.find_first_not_of(kSpace, i);
        if (i == std::string_view::npos) break;
        auto end = text.find_first_of(kSpace, i);
        if (end == std::string_view::npos) end = text.size();
        long long v = 0;
        if (!parse_int(text.substr(i, end - i), v)) return std::nullopt;
        used.push_back(v);
        i = end;
    }
    return used;
}

}  // namespace inferlint::nvidia_smi
