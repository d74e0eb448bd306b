#include "inferlint/util/clock.hpp"

#include "inferlint/util/error.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>

namespace inferlint::util {

std::string local_time_text() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char buf[64];
    std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M %Z", &tm);
    std::string out(buf, n);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

double epoch_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

// Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
long long clock_days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

std::optional<double> clock_rfc3339(const std::string& s) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
    double sec = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%n", &y, &mo, &d, &h, &mi, &n) != 5 || n == 0)
        return std::nullopt;
    const char* p = s.c_str() + n;
    char* end = nullptr;
    if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9')) return std::nullopt;
    sec = std::strtod(p, &end);
    int offset_min = 0;
    if (*end == 'Z' || *end == 'z') {
        ++end;
    } else if (*end == '+' || *end == '-') {
        int oh = 0, om = 0, m = 0;
        if (std::sscanf(end + 1, "%2d:%2d%n", &oh, &om, &m) != 2 || m != 5) return std::nullopt;
        offset_min = (*end == '-' ? -1 : 1) * (oh * 60 + om);
        end += 1 + m;
    } else {
        return std::nullopt;  // RFC 3339 wants a zone
    }
    if (*end != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
        return std::nullopt;
    const long long days = clock_days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + sec - offset_min * 60.0;
}

}  // namespace

double parse_moment(std::string_view text, std::string_view option) {
    const std::string s(text);
    char* end = nullptr;
    const double unix_s = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size() && s.find_first_not_of("0123456789.") == std::string::npos &&
        std::isfinite(unix_s))
        return unix_s;
    if (auto t = clock_rfc3339(s)) return *t;
    throw InputError(
        fmt::format("{}: '{}' is not a time: give Unix seconds (1764624000) or RFC 3339 "
                    "(2026-12-01T21:00:00Z)",
                    option, s.substr(0, 60)));
}

}  // namespace inferlint::util
