#include "inferlint/util/pyfloat.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace inferlint::util {

std::string py_float_repr(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
    // Shortest digits that read back, then Python's layout: positional for exponents
    // -4 .. 15, scientific otherwise.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    std::string sci(buf, r.ptr);
    bool neg = sci[0] == '-';
    if (neg) sci.erase(0, 1);
    auto epos = sci.find('e');
    int exp = std::atoi(sci.c_str() + epos + 1);
    std::string digits;
    for (char c : sci.substr(0, epos))
        if (c != '.') digits += c;
    std::string out = neg ? "-" : "";
    if (exp < -4 || exp >= 16) {
        out += digits[0];
        if (digits.size() > 1) out += "." + digits.substr(1);
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return out + eb;
    }
    if (exp < 0) return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    auto int_len = static_cast<std::size_t>(exp + 1);
    if (digits.size() <= int_len) return out + digits + std::string(int_len - digits.size(), '0') + ".0";
    return out + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

}  // namespace inferlint::util
