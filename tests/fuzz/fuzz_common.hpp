// What every fuzz target shares. Each target feeds libFuzzer's bytes to the same entry
// point the program uses on a file's or an answer's text. The clean ways out are the
// ones the program turns into "inferlint: ...: why" and exit 2 (InputError); any other
// exception escapes, and libFuzzer reports it as a crash, as it does every sanitizer
// finding, leak and timeout.
#pragma once

#include "inferlint/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace inferlint::fuzz {

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Runs f, letting only the program's own one-line input errors through.
template <typename F>
void expect_clean(F&& f) {
    try {
        f();
    } catch (const InputError&) {}
}

}  // namespace inferlint::fuzz
