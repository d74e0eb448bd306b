// Python literals, as vLLM and SGLang print their settings with repr():
// {'model': 'x', 'enforce_eager': True, 'max_model_len': 16384, 'bs': (1, 2)}.
// A real parser (the subset ast.literal_eval accepts) so quotes, commas and brackets
// inside strings cannot split a value.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/util/pyfloat.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace inferlint::parse {

struct PyLiteralError {
    std::size_t offset = 0;  // byte offset in the input where parsing stopped
    std::string what;
};

// Nesting deeper than this is refused rather than recursed into: a line of 100,000
// brackets must not overflow the stack.
inline constexpr int kPyLiteralMaxDepth = 200;

// The value as JSON the way Python's json.dumps(..., default=str) would write it:
// tuples become arrays, dict keys strings (True -> "true", None -> "null", 1 -> "1"),
// and values JSON cannot hold (bytes, complex numbers, sets) the text of their repr.
// nullopt (with `error` filled when given) when the text is not one literal.
std::optional<Json> parse_py_literal(std::string_view text, PyLiteralError* error = nullptr);

// What Python's repr() prints for a value held as JSON (strings in single quotes, True,
// None, floats as repr does). Tuples cannot be told from lists here and print as lists.
std::string py_repr(const Json& value);
// str(): like repr, but a string prints bare.
std::string py_str(const Json& value);
// repr(float), kept here for the callers that print parsed values.
using util::py_float_repr;

}  // namespace inferlint::parse
