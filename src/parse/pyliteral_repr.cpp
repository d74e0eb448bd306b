// repr() and str() of a value held as JSON, as Python prints them: the other direction of
// parse_py_literal, for settings and facts shown the way the log wrote them.
#include "inferlint/parse/pyliteral.hpp"

#include <cstdio>

namespace inferlint::parse {

namespace {

void repr_string(std::string& out, const std::string& s) {
    char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
    out += q;
    for (unsigned char c : s) {
        if (c == static_cast<unsigned char>(q) || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += q;
}

void repr_into(std::string& out, const Json& v) {
    switch (v.type()) {
        case Json::value_t::null:
            out += "None";
            break;
        case Json::value_t::boolean:
            out += v.get<bool>() ? "True" : "False";
            break;
        case Json::value_t::number_float:
            out += py_float_repr(v.get<double>());
            break;
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            out += v.dump();
            break;
        case Json::value_t::string:
            repr_string(out, v.get_ref<const std::string&>());
            break;
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& x : v) {
                if (!first) out += ", ";
                first = false;
                repr_into(out, x);
            }
            out += ']';
            break;
        }
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [k, x] : v.items()) {
                if (!first) out += ", ";
                first = false;
                repr_string(out, k);
                out += ": ";
                repr_into(out, x);
            }
            out += '}';
            break;
        }
        default:
            out += v.dump();
            break;
    }
}

}  // namespace

std::string py_repr(const Json& value) {
    std::string out;
    repr_into(out, value);
    return out;
}

std::string py_str(const Json& value) {
    if (value.is_string()) return value.get<std::string>();
    return py_repr(value);
}

}  // namespace inferlint::parse
