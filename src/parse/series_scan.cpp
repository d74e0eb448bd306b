// Scanning a recording (series_read.hpp): the input read in blocks, each block's lines read
// by simdjson (series_line.cpp) into a list of what each line was, and the lists folded in
// file order into the scan's counts, its header and the calls of on_sample. Reading lines
// and folding them are apart so that, in a regular file, several threads can each read a
// block of their own while one folds: the fold sees the same lines in the same order as on
// one thread, so the counts, the samples and the first error are the same.
#include "json_walk.hpp"
#include "series_line.hpp"
#include "series_read.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

namespace inferlint::series_read {

namespace {

namespace fs = std::filesystem;
using series_line::kPadding;
using util::text::trim;

constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// A line that is not a sample. `line`: its number within its block, from 1; `before`:
// how many of the block's samples come before it.
struct LineEvent {
    enum class Kind { skip, header, bad, too_long };
    Kind kind = Kind::skip;
    long long line = 0;
    std::size_t before = 0;
    std::string text;  // header: the line's text; bad: what is wrong with it
};

// A block's lines: its samples, what its other lines read as (empty ones leave nothing),
// and how many lines there were.
struct BlockRead {
    std::vector<SeriesSample> samples;
    std::vector<LineEvent> others;
    long long lines = 0;
    bool any_text = false;
    std::exception_ptr error;  // reading the block failed (a read error): folded as thrown

    void clear() {
        samples.clear();
        others.clear();
        lines = 0;
        any_text = false;
        error = nullptr;
    }

    void add(LineEvent::Kind kind, std::string text = {}) {
        others.push_back({kind, lines, samples.size(), std::move(text)});
    }
};

// Reads a block's lines into a BlockRead; one per thread (it holds simdjson's parsers).
class LineParser {
public:
    explicit LineParser(Lines mode) : mode_(mode) {}

    // whole: whole lines, each ending in '\n', followed in memory by kPadding readable
    // bytes. Appends to out.
    void lines(std::string_view whole, BlockRead& out) {
        if (whole.empty()) return;
        if (mode_ == Lines::streamed) reader_.begin_block(whole);
        const char* from = whole.data();
        const char* end = whole.data() + whole.size();
        while (const char* nl =
                   static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)))) {
            std::string_view raw(from, static_cast<std::size_t>(nl - from));
            ++out.lines;
            if (raw.size() > kMaxLineBytes) {
                too_long(out);
                break;  // the fold stops there: nothing after it is read
            }
            line(raw, nl, out);
            from = nl + 1;
        }
        reader_.end_block();
    }

    // A last line without its newline (a run killed mid-write), followed by kPadding bytes.
    void last_line(std::string_view raw, BlockRead& out) {
        ++out.lines;
        if (raw.size() > kMaxLineBytes) return too_long(out);
        line(raw, nullptr, out);
    }

    // The block's next line is over 1 MiB (counted here).
    static void too_long_next(BlockRead& out) {
        ++out.lines;
        too_long(out);
    }

private:
    static void too_long(BlockRead& out) { out.add(LineEvent::Kind::too_long); }

    void line(std::string_view raw, const char* line_end, BlockRead& out) {
        std::string_view text = trim(raw);
        if (text.empty()) return;
        out.any_text = true;
        const series_line::LineRead& got =
            reader_.read_in_place(text, line_end != nullptr ? line_end : raw.data() + raw.size());
        switch (got.kind) {
            case series_line::LineKind::sample:
                return out.samples.push_back(got.sample);
            case series_line::LineKind::skip:
                return out.add(LineEvent::Kind::skip);
            case series_line::LineKind::header:
                return out.add(LineEvent::Kind::header, std::string(text));
            case series_line::LineKind::bad:
                return out.add(LineEvent::Kind::bad, got.error);
        }
    }

    Lines mode_;
    series_line::LineReader reader_;
};

// Folds blocks, in file order, into the scan's counts and the calls of on_sample.
class Scanner {
public:
    Scanner(const std::string& source, const std::function<void(const SeriesSample&)>& on_sample)
        : source_(source), on_sample_(on_sample) {}

    void fold(const BlockRead& block) {
        if (block.error) std::rethrow_exception(block.error);
        any_text_ = any_text_ || block.any_text;
        std::size_t done = 0;
        auto samples_to = [&](std::size_t end) {
            for (; done < end; ++done) {
                ++scan_.samples;
                on_sample_(block.samples[done]);
            }
        };
        for (const LineEvent& e : block.others) {
            samples_to(e.before);
            const long long lineno = lineno_ + e.line;
            switch (e.kind) {
                case LineEvent::Kind::skip:
                    skip(lineno);
                    break;
                case LineEvent::Kind::header: {
                    Json row = Json::parse(e.text.begin(), e.text.end(), nullptr, /*allow_exceptions=*/false);
                    if (row.is_discarded() || !row.is_object())
                        skip(lineno);
                    else
                        header(std::move(row), lineno);
                    break;
                }
                case LineEvent::Kind::bad:
                    throw InputError(fmt::format("{}: line {}: {}", source_, lineno, e.text));
                case LineEvent::Kind::too_long:
                    throw InputError(fmt::format("{}: line {} is over {} bytes; not a series recording", source_,
                                                 lineno, kMaxLineBytes));
            }
        }
        samples_to(block.samples.size());
        lineno_ += block.lines;
    }

    SeriesScan finish(bool whole_file) {
        if (whole_file && !any_text_) throw InputError(fmt::format("{}: empty file", source_));
        if (!have_header_)
            throw InputError(fmt::format("{}: not a series recording (no {} header line)", source_, kSeriesSchema));
        return std::move(scan_);
    }

private:
    void skip(long long lineno) {
        if (scan_.skipped_lines++ == 0) scan_.first_skipped_lineno = lineno;
    }

    // Moved, not copied: nlohmann copies a document one call deeper a level.
    void header(Json&& row, long long lineno) {
        const Json& schema = row["schema"];
        if (!schema.is_string() || schema.get<std::string>() != kSeriesSchema)
            throw InputError(fmt::format("{}: line {}: schema {}, not a series recording ({})", source_, lineno,
                                         json_walk::text(schema), kSeriesSchema));
        auto engine = row.find("engine");
        if (engine != row.end() && engine->is_string())
            scan_.engine_key = engine->get<std::string>();
        else
            scan_.engine_key.reset();
        // A later header wins, as in the Python reader (one file, one recorder).
        scan_.header = std::move(row);
        have_header_ = true;
    }

    const std::string& source_;
    const std::function<void(const SeriesSample&)>& on_sample_;
    SeriesScan scan_;
    long long lineno_ = 0;
    bool have_header_ = false;
    bool any_text_ = false;
};

// One buffer with kPadding bytes after its capacity: every line is read where it lies,
// the next bytes or the padding behind it.
class Buffer {
public:
    explicit Buffer(std::size_t capacity) { grow(capacity, 0); }

    char* data() { return data_.get(); }

    // Room for `need` bytes, the first `keep` kept.
    void reserve(std::size_t need, std::size_t keep) {
        if (need > capacity_) grow(std::max(need, 2 * capacity_), keep);
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

// Fills up to `size` bytes at `into` and says how many; 0 at the end.
using ReadSome = std::function<std::size_t(char* into, std::size_t size)>;

void refuse_binary(const char* bytes, std::size_t size, const std::string& source) {
    if (std::memchr(bytes, '\0', size) != nullptr)
        throw InputError(fmt::format("{}: binary data, not a series recording", source));
}

// Reads `read_some` to its end a block at a time on this thread. The first read fills the
// binary probe (64 KiB, or the whole input) before any line is read, so what a file is
// refused for does not depend on the block size.
void scan_in_order(const ReadSome& read_some, const std::string& source, Scanner& scanner, const Blocks& blocks) {
    const std::size_t block_bytes = std::max<std::size_t>(blocks.block_bytes, 1);
    const std::size_t probe_bytes = std::max<std::size_t>(blocks.probe_bytes, 1);
    Buffer buffer(std::max(2 * block_bytes, probe_bytes));
    LineParser parser(blocks.lines);
    BlockRead read;
    std::size_t have = 0;  // bytes at the front not yet split into lines
    bool first = true;
    for (;;) {
        const std::size_t want = first ? probe_bytes : block_bytes;
        buffer.reserve(have + want, have);
        char* begin = buffer.data();
        std::size_t got = 0;
        for (;;) {
            std::size_t n = read_some(begin + have + got, want - got);
            got += n;
            if (n == 0 || !first || got == want) break;
        }
        if (first) refuse_binary(begin, got, source);
        first = false;
        // What lies past the bytes read is read by simdjson, never used: keep it defined.
        std::memset(begin + have + got, 0, kPadding);
        if (got == 0) break;
        const char* last_nl = static_cast<const char*>(::memrchr(begin + have, '\n', got));
        const std::size_t whole = last_nl != nullptr ? static_cast<std::size_t>(last_nl + 1 - begin) : 0;
        read.clear();
        parser.lines(std::string_view(begin, whole), read);
        have = have + got - whole;
        if (have > kMaxLineBytes) LineParser::too_long_next(read);
        scanner.fold(read);
        if (have > 0 && whole > 0) std::memmove(begin, begin + whole, have);
    }
    // A run killed mid-write: the cut line is skipped and counted. What follows it in the
    // buffer is its padding.
    if (have > 0) {
        read.clear();
        parser.last_line(std::string_view(buffer.data(), have), read);
        scanner.fold(read);
    }
}

// Reads the bytes from `offset`, fewer only at the end (0 past it).
using ReadAt = std::function<std::size_t(char* into, std::size_t size, std::uint64_t offset)>;

// Block k of a positional input: the lines that start in bytes [k*B, (k+1)*B), read to
// their ends wherever those lie. Its first line starts after the first newline at or after
// byte k*B - 1, so it reads from there: each line is read by exactly one block.
class BlockReader {
public:
    BlockReader(const ReadAt& read_at, const Blocks& blocks)
        : read_at_(read_at),
          block_bytes_(std::max<std::size_t>(blocks.block_bytes, 1)),
          parser_(blocks.lines),
          buffer_(block_bytes_ + 1) {}

    // Reads block k into out; false when the input ends before it (out then holds
    // nothing). end: the input ends in or right after this block, so no later block
    // holds a line.
    bool read(std::uint64_t k, BlockRead& out, bool& end) {
        out.clear();
        end = false;
        const std::uint64_t start = k * block_bytes_;
        const std::uint64_t from = k == 0 ? 0 : start - 1;
        const std::size_t want = block_bytes_ + (k == 0 ? 0 : 1);
        std::size_t got = read_at_(buffer_.data(), want, from);
        const std::size_t lead = k == 0 ? 0 : 1;  // the byte before the block
        if (got <= lead) {
            end = true;
            return false;
        }
        end = got < want;
        char* b = buffer_.data();
        std::memset(b + got, 0, kPadding);
        // Where the block's first line starts (at its start, or after a newline in it).
        std::size_t first = 0;
        if (k > 0) {
            const char* nl = static_cast<const char*>(std::memchr(b, '\n', got));
            if (nl == nullptr) return true;  // inside a line that started before
            first = static_cast<std::size_t>(nl + 1 - b);
            if (first >= got) return true;  // the block's last byte ends a line: the next one starts past it
        }
        // The last line that starts here, read to its newline or the input's end.
        const char* last_nl = static_cast<const char*>(::memrchr(b + first, '\n', got - first));
        std::size_t whole_end = last_nl != nullptr ? static_cast<std::size_t>(last_nl + 1 - b) : first;
        std::size_t have = got;
        if (whole_end < got && !end) {
            // It runs past the block: read on until its newline, at most 1 MiB and a byte.
            for (;;) {
                const std::size_t line_so_far = have - whole_end;
                if (line_so_far > kMaxLineBytes) break;
                const std::size_t more = std::min(block_bytes_, kMaxLineBytes + 1 - line_so_far);
                buffer_.reserve(have + more, have);
                b = buffer_.data();
                const std::size_t n = read_at_(b + have, more, from + have);
                const char* nl = static_cast<const char*>(std::memchr(b + have, '\n', n));
                have += n;
                if (nl != nullptr) {
                    have = static_cast<std::size_t>(nl + 1 - b);  // what lies after it is the next block's
                    break;
                }
                if (n < more) {
                    end = true;
                    break;
                }
            }
            std::memset(b + have, 0, kPadding);
            const char* nl = static_cast<const char*>(::memrchr(b + whole_end, '\n', have - whole_end));
            if (nl != nullptr) whole_end = static_cast<std::size_t>(nl + 1 - b);
        }
        parser_.lines(std::string_view(b + first, whole_end - first), out);
        if (have > whole_end) {
            // A line with no newline: over 1 MiB, or the input's cut last line.
            if (have - whole_end > kMaxLineBytes)
                LineParser::too_long_next(out);
            else
                parser_.last_line(std::string_view(b + whole_end, have - whole_end), out);
        }
        return true;
    }

private:
    const ReadAt& read_at_;
    std::size_t block_bytes_;
    LineParser parser_;
    Buffer buffer_;
};

// The blocks of a positional input on `threads` threads (this one among them): each
// claims the next block, reads it, and waits for its turn to fold it.
void scan_by_blocks(const ReadAt& read_at, const std::string& source, Scanner& scanner, const Blocks& blocks,
                    int threads) {
    {
        const std::size_t probe_bytes = std::max<std::size_t>(blocks.probe_bytes, 1);
        std::vector<char> probe(probe_bytes);
        refuse_binary(probe.data(), read_at(probe.data(), probe_bytes, 0), source);
    }
    std::atomic<std::uint64_t> next_block{0};
    std::atomic<std::uint64_t> last_block{UINT64_MAX};  // no block after it holds a line
    std::mutex mutex;
    std::condition_variable turn;
    std::uint64_t to_fold = 0;   // under mutex
    std::exception_ptr failure;  // under mutex: the fold's first error
    bool stop = false;           // under mutex

    auto work = [&] {
        BlockRead out;
        try {
            BlockReader reader(read_at, blocks);
            for (;;) {
                const std::uint64_t k = next_block.fetch_add(1);
                if (k > last_block.load()) return;
                bool end = false;
                bool any = false;
                try {
                    any = reader.read(k, out, end);
                } catch (...) {
                    out.clear();
                    out.error = std::current_exception();
                    any = end = true;
                }
                if (end) {
                    // The input ends here (or before, when this block holds nothing).
                    const std::uint64_t last = any || k == 0 ? k : k - 1;
                    std::uint64_t seen = last_block.load();
                    while (last < seen && !last_block.compare_exchange_weak(seen, last)) {}
                }
                std::unique_lock lock(mutex);
                turn.wait(lock, [&] { return stop || to_fold == k || k > last_block.load(); });
                if (stop || k > last_block.load()) return;
                if (any) scanner.fold(out);
                ++to_fold;
                if (k == last_block.load()) stop = true;
                turn.notify_all();
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            stop = true;
            turn.notify_all();
        }
    };

    std::vector<std::thread> helpers;
    for (int i = 1; i < threads; ++i) {
        try {
            helpers.emplace_back(work);
        } catch (const std::system_error&) {
            break;  // no more threads: the ones there are read every block
        }
    }
    work();
    for (auto& t : helpers) t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

SeriesScan scan_text(std::string_view text, const std::string& source,
                     const std::function<void(const SeriesSample&)>& on_sample, const Blocks& blocks) {
    if (trim(text).empty()) throw InputError(fmt::format("{}: empty file", source));
    Scanner scanner(source, on_sample);
    if (blocks.threads > 1) {
        ReadAt at = [&text](char* into, std::size_t size, std::uint64_t offset) -> std::size_t {
            if (offset >= text.size()) return 0;
            const std::size_t n = std::min<std::size_t>(size, text.size() - offset);
            std::memcpy(into, text.data() + offset, n);
            return n;
        };
        scan_by_blocks(at, source, scanner, blocks, blocks.threads);
    } else {
        ReadSome some = [&text](char* into, std::size_t size) {
            std::size_t n = std::min(size, text.size());
            std::memcpy(into, text.data(), n);
            text.remove_prefix(n);
            return n;
        };
        scan_in_order(some, source, scanner, blocks);
    }
    return scanner.finish(false);
}

SeriesScan scan_file(const fs::path& path, const std::function<void(const SeriesSample&)>& on_sample,
                     const Blocks& blocks) {
    const std::string source = path.string();
    util::InputFile file(path);
    Scanner scanner(source, on_sample);
    const std::optional<std::uint64_t> size = file.regular_size();
    int threads = blocks.threads;
    // Automatic: a regular file of more than a few blocks, on the CPUs this process may use (at most 4).
    if (threads == 0) threads = size && *size >= 4 * blocks.block_bytes ? std::clamp(util::usable_cpus(), 1, 4) : 1;
    if (threads > 1 && size) {
        ReadAt at = [&file](char* into, std::size_t size, std::uint64_t offset) {
            return file.read_at(into, size, offset);
        };
        scan_by_blocks(at, source, scanner, blocks, threads);
    } else {
        scan_in_order([&](char* into, std::size_t size) { return file.read_some(into, size); }, source, scanner,
                      blocks);
    }
    return scanner.finish(true);
}

}  // namespace inferlint::series_read
