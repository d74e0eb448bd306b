// Reading a recording a block at a time (internal to parse/). scan_series and
// scan_series_text are these with the default block; the tests and the fuzz targets use
// small blocks, so that lines are cut across blocks and run longer than one.
#pragma once

#include "inferlint/parse/series.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace inferlint::series_read {

// What one read asks for. The buffer holds at most this plus the longest line allowed
// (1 MiB), and the lines are read where they lie in it.
inline constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
// The first read, before any line is read: a NUL byte in it is binary data, refused.
inline constexpr std::size_t kProbeBytes = 65536;

// How a block's lines are read: through one simdjson document stream over the block (a
// line the stream does not read as the line alone is read alone), or each alone. Both
// read every line the same; the tests and fuzz targets hold them to it.
enum class Lines { streamed, alone };

struct Blocks {
    std::size_t block_bytes = kBlockBytes;
    std::size_t probe_bytes = kProbeBytes;  // smaller only in tests: what is binary changes
    Lines lines = Lines::streamed;
    // The threads that read blocks' lines (each a block of its own; one folds them, in
    // file order, so what is read is the same on any number). 0: for scan_file, the
    // machine's CPUs (up to 4) on a regular file of at least 4 blocks, else 1; for
    // scan_text, 1. Above 1, the input is read by position (a block's lines are those that
    // start in it), not in one pass.
    int threads = 0;
};

SeriesScan scan_file(const std::filesystem::path& path, const std::function<void(const SeriesSample&)>& on_sample,
                     const Blocks& blocks = {});

SeriesScan scan_text(std::string_view text, const std::string& source,
                     const std::function<void(const SeriesSample&)>& on_sample, const Blocks& blocks = {});

}  // namespace inferlint::series_read
