// Python literals (the dicts vLLM and SGLang print of their arguments).
#include "fuzz_common.hpp"
#include "inferlint/parse/pyliteral.hpp"

namespace inferlint::fuzz {

inline int one_pyliteral(const std::uint8_t* data, std::size_t size) {
    parse::PyLiteralError error;
    if (auto v = parse::parse_py_literal(bytes(data, size), &error)) {
        (void)parse::py_repr(*v);
        (void)parse::py_str(*v);
    }
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_pyliteral(data, size);
}
#endif
