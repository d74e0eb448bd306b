// /proc/<pid>/stat and /proc/<pid>/cmdline, as teardown and gpu-inspect read them.
// The first byte chooses which; the rest is the file.
#include "fuzz_common.hpp"
#include "inferlint/parse/procfs.hpp"

namespace inferlint::fuzz {

inline int one_procfs(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    auto text = bytes(data + 1, size - 1);
    if (data[0] & 1) {
        if (auto st = procfs::parse_stat(text)) (void)st->comm.size();
    } else {
        procfs::Proc p;
        p.argv = procfs::parse_cmdline(text);
        (void)p.cmdline();
    }
    return 0;
}

}  // namespace inferlint::fuzz

#ifndef INFERLINT_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return inferlint::fuzz::one_procfs(data, size);
}
#endif
