// A boot log read as trtllm's (the engine named, as --engine trtllm does), and as
// whichever engine the text names.
#include "fuzz_common.hpp"
#include "inferlint/core/engines.hpp"
#include "inferlint/parse/bootlog.hpp"

namespace inferlint::fuzz {

inline int one_bootlog_trtllm(const std::uint8_t* data, std::size_t size) {
    auto text = bytes(data, size);
    auto facts = parse::parse_boot_log(text, &trtllm());
    (void)parse::to_json(facts).dump(-1, ' ', false, Json::error_handler_t::replace);
    (void)parse::untested_version(facts);
    (void)parse::parse_boot_log(text, nullptr);
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_bootlog_trtllm(data, size);
}
#endif
