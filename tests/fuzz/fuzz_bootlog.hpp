// The body the three boot-log targets share: a log read as one engine's (the engine
// named, as --engine does), and as whichever engine the text names.
#pragma once

#include "fuzz_common.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/bootlog.hpp"

namespace inferlint::fuzz {

inline int one_bootlog(const Engine& engine, const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    auto facts = parse::parse_boot_log(text, &engine);
    (void)parse::to_json(facts).dump(-1, ' ', false, Json::error_handler_t::replace);
    (void)parse::untested_version(facts);
    (void)parse::parse_boot_log(text, nullptr);
    return 0;
}

}  // namespace inferlint::fuzz
