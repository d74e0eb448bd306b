// Python's repr() of a float, which the Python tool's every printed and recorded number
// goes through: the shortest digits that read back, "1.0", "1e-05", "1e+16".
#pragma once

#include <string>

namespace inferlint::util {

// Positional for decimal exponents -4 .. 15, else d.ddde+XX; "nan", "inf", "-inf" as repr
// prints them (json.dumps writes NaN and Infinity instead: its callers say those first).
std::string py_float_repr(double value);

}  // namespace inferlint::util
