// Reading inferlint.series/1 recordings: the file in large reads, split into lines here;
// each line read by simdjson On-Demand (series_line.cpp: a recording of a long run is
// hundreds of MB of near-identical lines). Header lines, rare, are kept as nlohmann
// documents.
#include "inferlint/parse/series.hpp"

#include "series_line.hpp"

#include "inferlint/util/error.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace inferlint {

namespace {

namespace fs = std::filesystem;
using util::text::trim;

constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
constexpr std::size_t kReadChunk = std::size_t{4} << 20;
constexpr std::size_t kBinaryProbe = 65536;

// Reads lines one at a time and keeps only the scan's counts.
class Scanner {
public:
    Scanner(const std::string& source, const std::function<void(const SeriesSample&)>& on_sample)
        : source_(source), on_sample_(on_sample) {}

    void line(std::string_view raw) {
        ++lineno_;
        std::string_view text = trim(raw);
        if (text.empty()) return;
        series_line::LineRead got = reader_.read(text);
        switch (got.kind) {
            case series_line::LineKind::skip: return skip();
            case series_line::LineKind::header: {
                Json row = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
                if (row.is_discarded() || !row.is_object()) return skip();
                return header(row);
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

    void header(const Json& row) {
        const Json& schema = row["schema"];
        if (!schema.is_string() || schema.get<std::string>() != kSeriesSchema)
            throw InputError(fmt::format("{}: line {}: schema {}, not a series recording ({})", source_,
                                         lineno_, schema.dump(), kSeriesSchema));
        // A later header wins, as in the Python reader (one file, one recorder).
        scan_.header = row;
        auto engine = row.find("engine");
        if (engine != row.end() && engine->is_string()) scan_.engine_key = engine->get<std::string>();
        else scan_.engine_key.reset();
        have_header_ = true;
    }

    const std::string& source_;
    const std::function<void(const SeriesSample&)>& on_sample_;
    series_line::LineReader reader_;
    SeriesScan scan_;
    long long lineno_ = 0;
    bool have_header_ = false;
};

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

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

SeriesScan scan_series_text(std::string_view text, const std::string& source,
                            const std::function<void(const SeriesSample&)>& on_sample) {
    if (trim(text).empty()) throw InputError(fmt::format("{}: empty file", source));
    if (text.substr(0, kBinaryProbe).find('\0') != std::string_view::npos)
        throw InputError(fmt::format("{}: binary data, not a series recording", source));
    Scanner scanner(source, on_sample);
    while (!text.empty()) {
        auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (line.size() > kMaxLineBytes) scanner.too_long();
        scanner.line(line);
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return scanner.finish();
}

SeriesScan scan_series(const fs::path& path, const std::function<void(const SeriesSample&)>& on_sample) {
    const std::string source = path.string();
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(fmt::format("{}: no such file", source));
    if (fs::is_directory(st)) throw InputError(fmt::format("{}: is a folder, not a file", source));
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw InputError(fmt::format("{}: cannot read ({})", source, std::strerror(errno)));

    Scanner scanner(source, on_sample);
    std::vector<char> buf(kReadChunk + kMaxLineBytes);
    std::size_t have = 0;          // bytes in buf not yet split into lines
    std::size_t total = 0;         // bytes read so far
    bool any_text = false;
    for (;;) {
        ssize_t n = ::read(fd.get(), buf.data() + have, buf.size() - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw InputError(fmt::format("{}: read error ({})", source, std::strerror(errno)));
        }
        if (n == 0) break;
        auto got = static_cast<std::size_t>(n);
        if (total < kBinaryProbe) {
            std::size_t probe = std::min(got, kBinaryProbe - total);
            if (std::memchr(buf.data() + have, '\0', probe) != nullptr)
                throw InputError(fmt::format("{}: binary data, not a series recording", source));
        }
        total += got;
        const char* begin = buf.data();
        const char* scan_from = buf.data() + have;
        const char* end = buf.data() + have + got;
        while (const char* nl = static_cast<const char*>(std::memchr(scan_from, '\n', static_cast<std::size_t>(end - scan_from)))) {
            std::string_view line(begin, static_cast<std::size_t>(nl - begin));
            if (line.size() > kMaxLineBytes) scanner.too_long();
            if (!any_text && !trim(line).empty()) any_text = true;
            scanner.line(line);
            begin = nl + 1;
            scan_from = begin;
        }
        have = static_cast<std::size_t>(end - begin);
        if (have > kMaxLineBytes) scanner.too_long();
        if (have > 0 && begin != buf.data()) std::memmove(buf.data(), begin, have);
    }
    if (have > 0) {
        std::string_view last(buf.data(), have);
        if (!trim(last).empty()) any_text = true;
        scanner.line(last);  // a run killed mid-write: the cut line is skipped and counted
    }
    if (total == 0 || !any_text) throw InputError(fmt::format("{}: empty file", source));
    return scanner.finish();
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
