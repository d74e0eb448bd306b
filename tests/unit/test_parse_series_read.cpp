// The block reader (parse/series_read.hpp): lines cut across blocks, longer than a block, a
// last line without its newline, NUL bytes, CRLF, and lines the document stream over a
// block must not read differently from the line alone. Each recording is read with blocks
// from 1 byte up and both ways (streamed, alone), and must read as with the default block.
#include "support.hpp"

#include "parse/series_read.hpp"
#include "inferlint/parse/series.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

const char* kBlocksHeader = R"({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000", "interval_s": 0.25})";

std::string blocks_sample(int i) {
    return fmt::format(R"({{"t_wall": {}.25, "t_mono_ns": {}, "running": {}.0, "waiting": null, "kv_usage": {}}})",
                       1790470252 + i, 208651898175LL + i * 250000000LL, i % 11, (i % 53) / 52.0);
}

// Enough samples to take the reads past the first one (the binary probe's 64 KiB), so
// that the small blocks below cut lines.
std::string blocks_recording(int samples, const std::string& eol = "\n") {
    std::string text = std::string(kBlocksHeader) + eol;
    for (int i = 0; i < samples; ++i) text += blocks_sample(i) + eol;
    return text;
}

// What a scan read: every sample's fields (as bits), the counts, or the error.
std::string blocks_reading(const std::function<SeriesScan(const std::function<void(const SeriesSample&)>&)>& scan) {
    std::string out;
    auto bits = [](const std::optional<double>& v) {
        return v ? fmt::format("{:x}", std::bit_cast<std::uint64_t>(*v)) : std::string("-");
    };
    try {
        SeriesScan got = scan([&](const SeriesSample& s) {
            out += fmt::format("{} {} {} {} {}\n", bits(s.t_wall), s.t_mono_ns ? std::to_string(*s.t_mono_ns) : "-",
                               bits(s.running), bits(s.waiting), bits(s.kv_usage));
        });
        out +=
            fmt::format("samples {} skipped {} first {}\n", got.samples, got.skipped_lines, got.first_skipped_lineno);
    } catch (const InputError& e) {
        out += std::string("error ") + e.what() + "\n";
    }
    return out;
}

std::string read_in_blocks(const std::string& text, std::size_t block_bytes = series_read::kBlockBytes,
                           series_read::Lines lines = series_read::Lines::streamed, int threads = 1) {
    return blocks_reading([&](const auto& on_sample) {
        return series_read::scan_text(text, "mem", on_sample,
                                      {.block_bytes = block_bytes, .lines = lines, .threads = threads});
    });
}

// Every block size and both ways read `text` as the default does; returns that reading.
std::string same_in_every_block(const std::string& text) {
    const std::string expected = read_in_blocks(text);
    for (std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{100}, std::size_t{4096}})
        for (auto lines : {series_read::Lines::streamed, series_read::Lines::alone}) {
            INFO("block " << block << (lines == series_read::Lines::alone ? ", lines alone" : ", streamed"));
            CHECK(read_in_blocks(text, block, lines) == expected);
        }
    CHECK(read_in_blocks(text, series_read::kBlockBytes, series_read::Lines::alone) == expected);
    // By position on several threads: each block reads the lines that start in it.
    for (std::size_t block : {std::size_t{64}, std::size_t{100}, std::size_t{4096}, std::size_t{65536}})
        for (int threads : {2, 3}) {
            INFO("block " << block << ", " << threads << " threads");
            CHECK(read_in_blocks(text, block, series_read::Lines::streamed, threads) == expected);
        }
    CHECK(read_in_blocks(text, 64, series_read::Lines::alone, 2) == expected);
    return expected;
}

std::string last_line(const std::string& reading_text) {
    auto end = reading_text.rfind('\n');
    auto start = reading_text.rfind('\n', end - 1);
    return reading_text.substr(start + 1, end - start - 1);
}

}  // namespace

TEST_CASE("series blocks: lines cut across blocks and longer than a block read as in one block", "[series][parse]") {
    std::string text = blocks_recording(1000);
    // longer than the small blocks, and than the 4 KiB one; a string field keeps it a sample
    text += R"({"t_wall": 7.5, "running": 2.0, "note": ")" + std::string(6000, 'n') + "\"}\n";
    text += blocks_recording(200).substr(std::string(kBlocksHeader).size() + 1);
    REQUIRE(text.size() > 2 * 65536);
    std::string got = same_in_every_block(text);
    CHECK(last_line(got) == "samples 1201 skipped 0 first 0");
    CHECK(got.find(fmt::format("{:x} - {:x}", std::bit_cast<std::uint64_t>(7.5), std::bit_cast<std::uint64_t>(2.0))) !=
          std::string::npos);
}

TEST_CASE("series blocks: the last line without its newline", "[series][parse]") {
    std::string whole = blocks_recording(800);
    whole.pop_back();  // a whole sample, no newline after it: read
    CHECK(last_line(same_in_every_block(whole)) == "samples 800 skipped 0 first 0");
    std::string cut = blocks_recording(800) + R"({"t_wall": 9.5, "runn)";  // a run killed mid-write
    CHECK(last_line(same_in_every_block(cut)) == "samples 800 skipped 1 first 802");
}

TEST_CASE("series blocks: a NUL byte ends a line; in the first 64 KiB it is binary", "[series][parse]") {
    std::string text = blocks_recording(800);
    text += std::string("{\"t_wall\": 5.5} \0junk\n", 22);        // read up to the NUL
    text += std::string("{\"t_wall\": 6.5, \"a\0b\": 2}\n", 26);  // cut inside a key: skipped
    text += blocks_sample(900) + "\n";
    std::string got = same_in_every_block(text);
    CHECK(last_line(got) == "samples 802 skipped 1 first 803");
    CHECK(got.find(fmt::format("{:x} -", std::bit_cast<std::uint64_t>(5.5))) != std::string::npos);
    std::string early =
        std::string(kBlocksHeader) + "\n" + std::string("{\"t_wall\": 1}\0\n", 15) + blocks_recording(800);
    CHECK_THAT(last_line(same_in_every_block(early)), Catch::Contains("mem: binary data"));
}

TEST_CASE("series blocks: a CRLF recording reads as the LF one", "[series][parse]") {
    std::string lf = same_in_every_block(blocks_recording(900));
    std::string crlf = same_in_every_block(blocks_recording(900, "\r\n"));
    CHECK(crlf == lf);
    CHECK(last_line(lf) == "samples 900 skipped 0 first 0");
}

TEST_CASE("series blocks: what the document stream over a block must read as the line alone", "[series][parse]") {
    const std::string s = blocks_sample(3);
    const std::string open = s.substr(0, s.size() - 1);  // without its closing brace
    enum Reads { sample, skipped, header };
    const std::vector<std::pair<std::string, Reads>> odd = {
        {s + " " + s, skipped},  // two objects on one line
        {s + s, skipped},
        {open + ", \"waiting\": 3}.0, \"x\": 1}", skipped},  // the object closes early
        {s + " 5", skipped},
        {s + " \f", sample},  // white space the reader trims, JSON does not
        {"\v" + s, sample},
        {s + "}", skipped},
        {"{" + s, skipped},
        {open + ", \"x\": \"a}{\\\"\"}", sample},  // braces and an escaped quote in a string
        {open + ", \"x\": \"\\\\\"}", sample},
        {"\xEF\xBB\xBF" + s, sample},                                                           // a byte-order mark
        {open + ", \"x\": " + std::string(1024, '[') + std::string(1024, ']') + "}", sample},   // as deep as may be
        {open + ", \"x\": " + std::string(1025, '[') + std::string(1025, ']') + "}", skipped},  // too deep
        {open + ", \"x\": " + std::string(1100, '[') + std::string(1100, ']') + "}", skipped},
        {R"({"t_wall": 1, "x": NaN})", skipped},
        {R"({"t_wall": 1, "running": NaN})", sample},
        {R"({"schema": "inferlint.series/1", "engine": "vllm"})", header},  // a header again
    };
    for (const auto& [line, reads] : odd) {
        INFO(line.substr(0, 120));
        // Twice, as lines 702 and 704: over the block sizes each falls at a block's start,
        // in its middle and as its last whole line.
        std::string text = blocks_recording(700) + line + "\n" + blocks_sample(701) + "\n" + line + "\n";
        std::string got = same_in_every_block(text);
        CHECK(last_line(got) == fmt::format("samples {} skipped {} first {}", reads == sample ? 703 : 701,
                                            reads == skipped ? 2 : 0, reads == skipped ? 702 : 0));
    }
    // A line cut inside a string leaves the quotes of the rest of its block uneven: the
    // lines after it are still read.
    // An object the next line closes: the stream would read the two lines as one.
    for (const std::string& unclosed : {open, open + ", \"x\": {\"y\": 1}"}) {
        INFO(unclosed);
        std::string text = blocks_recording(700) + unclosed + "\n}" + s + "\n" + blocks_sample(701) + "\n";
        CHECK(last_line(same_in_every_block(text)) == "samples 701 skipped 2 first 702");
    }
    std::string cut = blocks_recording(700) + open.substr(0, 40) + "\"abc\n" +
                      blocks_recording(300).substr(std::string(kBlocksHeader).size() + 1);
    CHECK(last_line(same_in_every_block(cut)) == "samples 1000 skipped 1 first 702");
}

TEST_CASE("series blocks: the file reader reads in the same blocks", "[series][parse]") {
    auto dir = testsupport::scratch_dir("series-read-test");
    auto path = dir / "run.series.jsonl";
    std::string text = blocks_recording(900, "\r\n") + R"({"t_wall": 9.5, "runn)";
    util::write_file(path, text);
    const std::string expected = read_in_blocks(text);
    for (std::size_t block : {std::size_t{1}, std::size_t{100}, std::size_t{4096}, series_read::kBlockBytes})
        for (int threads : {0, 1, 2}) {
            if (block == 1 && threads != 1) continue;  // a thread's turn a byte: slow, and read below
            INFO("block " << block << ", threads " << threads);
            auto scan = [&](const auto& on_sample) {
                return series_read::scan_file(path, on_sample, {.block_bytes = block, .threads = threads});
            };
            CHECK(blocks_reading(scan) == expected);
        }
    CHECK(last_line(expected) == "samples 900 skipped 1 first 902");
    // Nothing in the file, or white space only: refused, on any number of threads.
    for (const std::string& empty : {std::string(), std::string(" \n\n\t\n")}) {
        util::write_file(path, empty);
        for (int threads : {1, 2}) {
            INFO("threads " << threads << ", " << empty.size() << " bytes");
            auto scan = [&](const auto& on_sample) {
                return series_read::scan_file(path, on_sample, {.block_bytes = 2, .threads = threads});
            };
            CHECK_THAT(blocks_reading(scan), Catch::Contains("run.series.jsonl: empty file"));
        }
    }
    fs::remove_all(dir);
}

TEST_CASE("series blocks: on several threads the first error in the file is the one named", "[series][parse]") {
    // A line of the wrong type in block 40 and another in block 3 of 4 KiB: whichever
    // thread reads first, the fold names line 3's block first.
    std::string text = blocks_recording(2000);
    auto nth_line = [&](int n) {  // the offset of line n (from 1)
        std::size_t at = 0;
        for (int i = 1; i < n; ++i) at = text.find('\n', at) + 1;
        return at;
    };
    const std::string bad = R"({"t_wall": "soon"})";
    text.insert(nth_line(1500), bad + "\n");
    text.insert(nth_line(90), R"({"t_wall": 1.5, "running": "two"})"
                              "\n");
    const std::string expected = read_in_blocks(text);
    CHECK_THAT(expected, Catch::Contains("mem: line 90: \"running\" is not a number"));
    for (int i = 0; i < 20; ++i) CHECK(read_in_blocks(text, 4096, series_read::Lines::streamed, 2) == expected);
    // A line over 1 MiB, after the first block: named by its number, the lines before it read.
    std::string huge = blocks_recording(3000) + std::string((1u << 20) + 10, 'x') + "\n" + blocks_sample(1) + "\n";
    const std::string too_long = read_in_blocks(huge);
    CHECK_THAT(too_long, Catch::Contains("mem: line 3002 is over 1048576 bytes"));
    CHECK(read_in_blocks(huge, 65536, series_read::Lines::streamed, 2) == too_long);
    CHECK(read_in_blocks(huge, 1u << 20, series_read::Lines::streamed, 3) == too_long);
    // ... and as the cut last line.
    huge.resize(huge.size() - blocks_sample(1).size() - 2);
    CHECK(read_in_blocks(huge, 65536, series_read::Lines::streamed, 2) == read_in_blocks(huge));
    CHECK_THAT(read_in_blocks(huge), Catch::Contains("line 3002 is over"));
}

TEST_CASE("series blocks: a recording read on several threads calls on_sample in file order, one call at a time",
          "[series][parse]") {
    auto dir = testsupport::scratch_dir("series-order-test");
    auto path = dir / "run.series.jsonl";
    util::write_file(path, blocks_recording(20000));
    std::atomic<int> inside{0};
    bool overlapped = false;
    long long last = -1;
    bool in_order = true;
    SeriesScan scan = series_read::scan_file(path,
                                             [&](const SeriesSample& s) {
                                                 overlapped = overlapped || inside.fetch_add(1) != 0;
                                                 const auto ns = *s.t_mono_ns;
                                                 in_order = in_order && ns > last;
                                                 last = ns;
                                                 inside.fetch_sub(1);
                                             },
                                             {.block_bytes = 8192, .threads = 4});
    CHECK(scan.samples == 20000);
    CHECK(in_order);
    CHECK_FALSE(overlapped);
    CHECK(last == 208651898175LL + 19999 * 250000000LL);
    fs::remove_all(dir);
}
