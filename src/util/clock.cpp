#include "inferlint/util/clock.hpp"

#include <ctime>

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

}  // namespace inferlint::util
