// Reading inferlint.series/1 recordings: the file in 1 MiB blocks, split into lines here
// and each line read where it lies in the block, by simdjson On-Demand (series_line.cpp),
// one document stream a block: a recording of a long run is hundreds of MB of
// near-identical lines. Header lines, rare, are kept as nlohmann documents.
#include "inferlint/parse/series.hpp"

#include "json_walk.hpp"
#include "series_line.hpp"
#include "series_read.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace inferlint {

namespace {

namespace fs = std::filesystem;
using util::text::trim;
using series_line::kPadding;

constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// Reads lines one at a time and keeps only the scan's counts.
class Scanner {
public:
    Scanner(const std::string& source, const std::function<void(const SeriesSample&)>& on_sample)
        : source_(source), on_sample_(on_sample) {}

    // raw: one line without its newline, followed in memory by kPadding readable bytes.
    void line(std::string_view raw) {
        ++lineno_;
        std::string_view text = trim(raw);
        if (text.empty()) return;
        any_text_ = true;
        const series_line::LineRead& got = reader_.read_in_place(text, raw.data() + raw.size());
        switch (got.kind) {
            case series_line::LineKind::skip: return skip();
            case series_line::LineKind::header: {
                Json row = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
                if (row.is_discarded() || !row.is_object()) return skip();
                return header(std::move(row));
            }
            case series_line::LineKind::bad:
                throw InputError(fmt::format("{}: line {}: {}", source_, lineno_, got.error));
            case series_line::LineKind::sample: break;
        }
        ++scan_.samples;
        on_sample_(got.sample);
    }

    void too_long() const {
        throw InputError(fmt::format("{}: line {} is over {} bytes; not a series recording", source_,
                                     lineno_ + 1, kMaxLineBytes));
    }

    // The whole lines of a block, read next (LineReader::begin_block).
    void begin_block(std::string_view lines) { reader_.begin_block(lines); }
    void end_block() { reader_.end_block(); }

    bool any_text() const { return any_text_; }

    SeriesScan finish() {
        if (!have_header_)
            throw InputError(fmt::format("{}: not a series recording (no {} header line)", source_,
                                         kSeriesSchema));
        return std::move(scan_);
    }

private:
    void skip() {
        if (scan_.skipped_lines++ == 0) scan_.first_skipped_lineno = lineno_;
    }

    // Moved, not copied: nlohmann copies a document one call deeper a level.
    void header(Json&& row) {
        const Json& schema = row["schema"];
        if (!schema.is_string() || schema.get<std::string>() != kSeriesSchema)
            throw InputError(fmt::format("{}: line {}: schema {}, not a series recording ({})", source_,
                                         lineno_, json_walk::text(schema), kSeriesSchema));
        auto engine = row.find("engine");
        if (engine != row.end() && engine->is_string()) scan_.engine_key = engine->get<std::string>();
        else scan_.engine_key.reset();
        // A later header wins, as in the Python reader (one file, one recorder).
        scan_.header = std::move(row);
        have_header_ = true;
    }

    const std::string& source_;
    const std::function<void(const SeriesSample&)>& on_sample_;
    series_line::LineReader reader_;
    SeriesScan scan_;
    long long lineno_ = 0;
    bool have_header_ = false;
    bool any_text_ = false;
};

// Fills up to `size` bytes at `into` and says how many; 0 at the end.
using ReadSome = std::function<std::size_t(char* into, std::size_t size)>;

// One buffer with kPadding bytes after its capacity, the bytes not yet split into lines at
// its front: every line is read where it lies, the next bytes or the padding behind it.
class Block {
public:
    explicit Block(std::size_t capacity) { grow(capacity, 0); }

    char* data() { return data_.get(); }

    // Room for `need` bytes, the first `keep` kept.
    void reserve(std::size_t need, std::size_t keep) {
        if (need > capacity_) grow(need, keep);
    }

private:
    void grow(std::size_t capacity, std::size_t keep) {
        // Not value-initialised: only the pages the reads reach are touched.
        std::unique_ptr<char[]> bigger(new char[capacity + kPadding]);
        if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep);
        data_ = std::move(bigger);
        capacity_ = capacity;
    }

    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0;
};

// Reads `read_some` to its end a block at a time, handing each line to the scanner. The
// first read fills the binary probe (64 KiB, or the whole input) before any line is read,
// so what a file is refused for does not depend on the block size.
void scan_blocks(const ReadSome& read_some, const std::string& source, Scanner& scanner,
                 const series_read::Blocks& blocks) {
    const std::size_t block_bytes = std::max<std::size_t>(blocks.block_bytes, 1);
    const std::size_t probe_bytes = std::max<std::size_t>(blocks.probe_bytes, 1);
    Block block(std::max(2 * block_bytes, probe_bytes));
    std::size_t have = 0;  // bytes at the front not yet split into lines
    bool first = true;
    for (;;) {
        const std::size_t want = first ? probe_bytes : block_bytes;
        block.reserve(have + want, have);
        char* begin = block.data();
        std::size_t got = 0;
        for (;;) {
            std::size_t n = read_some(begin + have + got, want - got);
            got += n;
            if (n == 0 || !first || got == want) break;
        }
        if (first && std::memchr(begin, '\0', got) != nullptr)
            throw InputError(fmt::format("{}: binary data, not a series recording", source));
        first = false;
        // What lies past the bytes read is read by simdjson, never used: keep it defined.
        std::memset(begin + have + got, 0, kPadding);
        if (got == 0) break;
        const char* end = begin + have + got;
        const char* line_begin = begin;
        const char* scan_from = begin + have;
        const char* last_nl = static_cast<const char*>(::memrchr(scan_from, '\n', got));
        if (last_nl != nullptr && blocks.lines == series_read::Lines::streamed)
            scanner.begin_block(std::string_view(begin, static_cast<std::size_t>(last_nl + 1 - begin)));
        while (const char* nl = static_cast<const char*>(
                   std::memchr(scan_from, '\n', static_cast<std::size_t>(end - scan_from)))) {
            std::string_view line(line_begin, static_cast<std::size_t>(nl - line_begin));
            if (line.size() > kMaxLineBytes) scanner.too_long();
            scanner.line(line);
            line_begin = nl + 1;
            scan_from = line_begin;
        }
        scanner.end_block();
        have = static_cast<std::size_t>(end - line_begin);
        if (have > kMaxLineBytes) scanner.too_long();
        if (have > 0 && line_begin != begin) std::memmove(begin, line_begin, have);
    }
    // A run killed mid-write: the cut line is skipped and counted. What follows it in the
    // buffer is its padding.
    if (have > 0) scanner.line(std::string_view(block.data(), have));
}

}  // namespace

const Engine* Series::named_engine() const { return engine_key ? &by_key(*engine_key) : nullptr; }
const Engine& Series::engine() const { return engine_key ? by_key(*engine_key) : vllm(); }

std::optional<double> Series::peak_running() const {
    std::optional<double> peak;
    for (const auto& s : samples)
        if (s.running && !std::isnan(*s.running) && (!peak || *s.running > *peak)) peak = s.running;
    return peak;
}

std::optional<SeriesSample> parse_sample_line(std::string_view line) {
    std::string_view text = trim(line);
    if (text.empty()) return std::nullopt;
    static thread_local series_line::LineReader reader;
    series_line::LineRead got = reader.read(text);
    switch (got.kind) {
        case series_line::LineKind::skip: return std::nullopt;
        case series_line::LineKind::sample: return got.sample;
        case series_line::LineKind::bad: throw std::invalid_argument(got.error);
        case series_line::LineKind::header: break;
    }
    // A header read as a sample (as before: its t_wall, if it has one, and its gauges).
    got = reader.read(text, series_line::SchemaKey::ignored);
    if (got.kind == series_line::LineKind::bad) throw std::invalid_argument(got.error);
    return got.sample;
}

namespace series_read {

SeriesScan scan_text(std::string_view text, const std::string& source,
                     const std::function<void(const SeriesSample&)>& on_sample, const Blocks& blocks) {
    if (trim(text).empty()) throw InputError(fmt::format("{}: empty file", source));
    Scanner scanner(source, on_sample);
    scan_blocks(
        [&text](char* into, std::size_t size) {
            std::size_t n = std::min(size, text.size());
            std::memcpy(into, text.data(), n);
            text.remove_prefix(n);
            return n;
        },
        source, scanner, blocks);
    return scanner.finish();
}

SeriesScan scan_file(const fs::path& path, const std::function<void(const SeriesSample&)>& on_sample,
                     const Blocks& blocks) {
    const std::string source = path.string();
    util::InputFile file(path);
    Scanner scanner(source, on_sample);
    scan_blocks([&](char* into, std::size_t size) { return file.read_some(into, size); }, source, scanner, blocks);
    if (!scanner.any_text()) throw InputError(fmt::format("{}: empty file", source));
    return scanner.finish();
}

}  // namespace series_read

SeriesScan scan_series_text(std::string_view text, const std::string& source,
                            const std::function<void(const SeriesSample&)>& on_sample) {
    return series_read::scan_text(text, source, on_sample);
}

SeriesScan scan_series(const fs::path& path, const std::function<void(const SeriesSample&)>& on_sample) {
    return series_read::scan_file(path, on_sample);
}

namespace {

Series series_of(SeriesScan&& scan, std::vector<SeriesSample>&& samples, const std::string& source) {
    Series out;
    out.header = std::move(scan.header);
    out.engine_key = std::move(scan.engine_key);
    out.samples = std::move(samples);
    out.skipped_lines = scan.skipped_lines;
    out.source = source;
    return out;
}

}  // namespace

Series read_series(const fs::path& path) {
    std::vector<SeriesSample> samples;
    auto scan = scan_series(path, [&](const SeriesSample& s) { samples.push_back(s); });
    return series_of(std::move(scan), std::move(samples), path.string());
}

Series series_from_text(std::string_view text, const std::string& source) {
    std::vector<SeriesSample> samples;
    auto scan = scan_series_text(text, source, [&](const SeriesSample& s) { samples.push_back(s); });
    return series_of(std::move(scan), std::move(samples), source);
}

}  // namespace inferlint
