// The one fuzzing program: every target of fuzz_targets.hpp, compiled and linked once
// (cmake/fuzz.cmake). Each target is a link to it named fuzz_<target>, and the program
// fuzzes the target whose name it is run as: `build-san/fuzz_prom corpus/` fuzzes prom.
#include "fuzz_targets.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

inferlint::fuzz::FuzzOne chosen = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    std::string_view self = *argc > 0 ? (*argv)[0] : "";
    if (auto slash = self.rfind('/'); slash != std::string_view::npos) self.remove_prefix(slash + 1);
    const std::string name(self.starts_with("fuzz_") ? self.substr(5) : self);
    const auto& all = inferlint::fuzz::targets();
    if (auto it = all.find(name); it != all.end()) {
        chosen = it->second;
        return 0;
    }
    std::fprintf(stderr, "%s: not a fuzz target's name; run it as one of:", std::string(self).c_str());
    for (const auto& [target, one] : all) std::fprintf(stderr, " fuzz_%s", target.c_str());
    std::fprintf(stderr, "\n");
    std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return chosen(data, size); }
