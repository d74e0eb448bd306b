// What the load-result fuzz targets share: the bytes through one reader (when its
// content test takes them) and through the dispatcher, as `--bench-result` reads a file.
#pragma once

#include "fuzz_common.hpp"
#include "inferlint/parse/load_result.hpp"
#include "parse/load_readers.hpp"

namespace inferlint::fuzz {

template <typename Is, typename Read>
void one_load(const std::uint8_t* data, std::size_t size, Is is, Read read) {
    const std::string_view text = bytes(data, size);
    expect_clean([&] {
        const loadjson::Fields f("fuzz-load.json");
        if (auto doc = loadjson::try_document(loadjson::accept_nonfinite(text)); doc && is(*doc)) (void)read(*doc, f);
    });
    expect_clean([&] { (void)parse_load_result(text, "fuzz-load.json").has_counts(); });
}

}  // namespace inferlint::fuzz
