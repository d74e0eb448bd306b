// Reading inferlint.series/1 recordings. Sample lines go through a hand-written scanner
// (a recording of a long run is hundreds of MB of near-identical lines); anything it does
// not expect falls back to nlohmann, so odd but valid lines read the same either way.
#include "inferlint/parse/series.hpp"

#include "inferlint/util/error.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
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

enum class Field { t_wall, t_mono_ns, running, waiting, kv_usage, preemptions, generation_tokens,
                   prompt_tokens, paused, other };

Field field_of(std::string_view key) {
    switch (key.size()) {
        case 6: return key == "t_wall" ? Field::t_wall : key == "paused" ? Field::paused : Field::other;
        case 7: return key == "running" ? Field::running : key == "waiting" ? Field::waiting : Field::other;
        case 8: return key == "kv_usage" ? Field::kv_usage : Field::other;
        case 9: return key == "t_mono_ns" ? Field::t_mono_ns : Field::other;
        case 11: return key == "preemptions" ? Field::preemptions : Field::other;
        case 13: return key == "prompt_tokens" ? Field::prompt_tokens : Field::other;
        case 17: return key == "generation_tokens" ? Field::generation_tokens : Field::other;
        default: return Field::other;
    }
}

std::optional<double>* gauge_slot(SeriesSample& s, Field f) {
    switch (f) {
        case Field::running: return &s.running;
        case Field::waiting: return &s.waiting;
        case Field::kv_usage: return &s.kv_usage;
        case Field::preemptions: return &s.preemptions;
        case Field::generation_tokens: return &s.generation_tokens;
        case Field::prompt_tokens: return &s.prompt_tokens;
        case Field::paused: return &s.paused;
        default: return nullptr;
    }
}

// A whole number of nanoseconds from a JSON number, as Python's int() takes it.
std::optional<long long> whole(double v) {
    if (!std::isfinite(v) || std::abs(v) >= 9.2e18) return std::nullopt;
    return static_cast<long long>(std::trunc(v));
}

// The common line: {"key": number-or-null, ...} with plain keys. Returns false for
// anything else (strings, escapes, nesting, a missing t_wall), which the slow path reads.
bool fast_parse(std::string_view line, SeriesSample& out) {
    const char* p = line.data();
    const char* end = p + line.size();
    auto skip_ws = [&] { while (p < end && (*p == ' ' || *p == '\t')) ++p; };
    if (p == end || *p != '{') return false;
    ++p;
    bool have_t_wall = false;
    for (;;) {
        skip_ws();
        if (p == end || *p != '"') return false;
        const char* key_begin = ++p;
        while (p < end && *p != '"' && *p != '\\') ++p;
        if (p == end || *p != '"') return false;
        Field f = field_of(std::string_view(key_begin, static_cast<std::size_t>(p - key_begin)));
        ++p;
        skip_ws();
        if (p == end || *p != ':') return false;
        ++p;
        skip_ws();
        if (p == end) return false;
        const char* v_begin = p;
        while (p < end && *p != ',' && *p != '}' && *p != ' ' && *p != '\t') ++p;
        std::string_view token(v_begin, static_cast<std::size_t>(p - v_begin));
        if (f == Field::other) {
            // Unknown keys are ignored, but only numbers and null are skipped here.
            char c = token.empty() ? '\0' : token[0];
            if (!(c == '-' || (c >= '0' && c <= '9') || token == "null")) return false;
        } else if (token == "null") {
            if (f == Field::t_wall) return false;
            if (f == Field::t_mono_ns) out.t_mono_ns.reset();
            else gauge_slot(out, f)->reset();
        } else if (f == Field::t_mono_ns && token.find_first_of(".eEIN") == std::string_view::npos) {
            long long ns = 0;
            auto r = std::from_chars(token.data(), token.data() + token.size(), ns);
            if (r.ec != std::errc() || r.ptr != token.data() + token.size()) return false;
            out.t_mono_ns = ns;
        } else {
            double v = 0.0;
            if (token == "NaN") v = std::nan("");
            else if (token == "Infinity") v = HUGE_VAL;
            else if (token == "-Infinity") v = -HUGE_VAL;
            else {
                char c = token.empty() ? '\0' : token[0];
                if (!(c == '-' || (c >= '0' && c <= '9'))) return false;
                auto r = std::from_chars(token.data(), token.data() + token.size(), v);
                if (r.ec != std::errc() || r.ptr != token.data() + token.size()) return false;
            }
            if (f == Field::t_wall) {
                out.t_wall = v;
                have_t_wall = true;
            } else if (f == Field::t_mono_ns) {
                auto ns = whole(v);
                if (!ns) return false;
                out.t_mono_ns = ns;
            } else {
                *gauge_slot(out, f) = v;
            }
        }
        skip_ws();
        if (p == end) return false;
        if (*p == ',') {
            ++p;
            continue;
        }
        if (*p != '}') return false;
        ++p;
        skip_ws();
        return p == end && have_t_wall;
    }
}

std::optional<double> number_field(const Json& row, const char* key) {
    auto it = row.find(key);
    if (it == row.end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) throw std::invalid_argument(fmt::format("\"{}\" is not a number", key));
    return it->get<double>();
}

SeriesSample sample_from_row(const Json& row) {
    SeriesSample s;
    auto t = number_field(row, "t_wall");
    if (!t) throw std::invalid_argument("a sample without \"t_wall\"");
    s.t_wall = *t;
    auto mono = row.find("t_mono_ns");
    if (mono != row.end() && !mono->is_null()) {
        if (mono->is_number_integer()) s.t_mono_ns = mono->get<long long>();
        else if (mono->is_number_float()) s.t_mono_ns = whole(mono->get<double>());
        if (!s.t_mono_ns) throw std::invalid_argument("\"t_mono_ns\" is not a whole number");
    }
    s.running = number_field(row, "running");
    s.waiting = number_field(row, "waiting");
    s.kv_usage = number_field(row, "kv_usage");
    s.preemptions = number_field(row, "preemptions");
    s.generation_tokens = number_field(row, "generation_tokens");
    s.prompt_tokens = number_field(row, "prompt_tokens");
    s.paused = number_field(row, "paused");
    return s;
}

// Reads lines one at a time and keeps only the scan's counts.
class Scanner {
public:
    Scanner(const std::string& source, const std::function<void(const SeriesSample&)>& on_sample)
        : source_(source), on_sample_(on_sample) {}

    void line(std::string_view raw) {
        ++lineno_;
        std::string_view text = trim(raw);
        if (text.empty()) return;
        SeriesSample s;
        if (fast_parse(text, s)) {
            ++scan_.samples;
            on_sample_(s);
            return;
        }
        Json row = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
        if (row.is_discarded() || !row.is_object()) {
            skip();
            return;
        }
        if (row.contains("schema")) {
            header(row);
            return;
        }
        try {
            s = sample_from_row(row);
        } catch (const std::exception& e) {
            throw InputError(fmt::format("{}: line {}: {}", source_, lineno_, e.what()));
        }
        ++scan_.samples;
        on_sample_(s);
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
    SeriesSample s;
    if (fast_parse(text, s)) return s;
    Json row = Json::parse(text.begin(), text.end(), nullptr, false);
    if (row.is_discarded() || !row.is_object()) return std::nullopt;
    return sample_from_row(row);
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
