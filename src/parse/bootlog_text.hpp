// Internal to the boot-log parsers: walking a log line by line as Python's
// str.splitlines() does, and the small scanners the field patterns share.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "util/text.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#include <cstddef>
#include <vector>
#include <optional>
#include <regex>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <string_view>

// A field's pattern, compiled on first use, as a regex run on a bounded window of the line.
#define INFERLINT_RX(var, text) static const ::inferlint::parse::detail::Regex var(text)

namespace inferlint::parse::detail {

// Where the first byte at or after `i` that can start a line break is (one below 0x1f, or
// 0xC2, 0xE2 that may begin U+0085, U+2028, U+2029), or `n`. Most of a log is plain text:
// eight bytes are tested at once.
inline std::size_t next_break_byte(const char* s, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
    // Sixteen at a time: d <= 0x1e is min(d, 0x1e) == d.
    const __m128i below = _mm_set1_epi8(0x1e), c2 = _mm_set1_epi8(static_cast<char>(0xC2)),
                  e2 = _mm_set1_epi8(static_cast<char>(0xE2));
    for (; i + 16 <= n; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, below), v),
                                         _mm_or_si128(_mm_cmpeq_epi8(v, c2), _mm_cmpeq_epi8(v, e2)));
        if (const int mask = _mm_movemask_epi8(hit))
            return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(mask)));
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, s + i, 8);
            // Per byte: below 0x1f, equal to 0xC2, equal to 0xE2. A borrow only runs upwards
            // from a byte that is a hit, so the lowest flag is exact.
            const std::uint64_t c2 = w ^ (ones * 0xC2), e2 = w ^ (ones * 0xE2);
            const std::uint64_t hit = ((w - ones * 0x1f) & ~w) | ((c2 - ones) & ~c2) | ((e2 - ones) & ~e2);
            if (hit & highs) return i + static_cast<std::size_t>(std::countr_zero(hit & highs)) / 8;
        }
    }
    for (; i < n; ++i) {
        const auto d = static_cast<unsigned char>(s[i]);
        if (d < 0x1f || d == 0xC2 || d == 0xE2) return i;
    }
    return n;
}

// Calls fn(line, lineno) for each whole line of `text`, with line numbers as
// str.splitlines() counts them: \n, \r\n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028 and
// U+2029 all end a line. `lineno` is the number of lines already seen (carried between
// pieces of one log). With at_end false, `text` is a piece of a longer text: the last,
// unfinished line (or a break that the next piece could extend, as a \r before \n) is left
// for the next piece, and the return value says where it starts. With at_end true,
// everything is consumed.
template <typename Fn>
std::size_t split_lines(std::string_view text, bool at_end, long long& lineno, Fn&& fn) {
    std::size_t start = 0, i = 0, n = text.size();
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    while (i < n) {
        unsigned char c = byte(i);
        std::size_t brk = 0;  // length of the line break at i, 0 if none
        if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e)) {
            brk = 1;
        } else if (c == '\r') {
            if (i + 1 < n)
                brk = byte(i + 1) == '\n' ? 2 : 1;
            else if (at_end)
                brk = 1;
            else
                return start;
        } else if (c == 0xC2) {
            if (i + 1 < n)
                brk = byte(i + 1) == 0x85 ? 2 : 0;
            else if (!at_end)
                return start;
        } else if (c == 0xE2) {
            if (i + 2 < n)
                brk = (byte(i + 1) == 0x80 && (byte(i + 2) == 0xA8 || byte(i + 2) == 0xA9)) ? 3 : 0;
            else if (!at_end)
                return start;
        }
        if (brk == 0) {
            // Plain bytes: jump to the next byte that can start a break.
            i = next_break_byte(text.data(), i + 1, n);
            continue;
        }
        fn(text.substr(start, i - start), ++lineno);
        i += brk;
        start = i;
    }
    if (!at_end) return start;
    if (start < n) fn(text.substr(start), ++lineno);
    return n;
}

// Every line of a whole text.
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
    long long lineno = 0;
    split_lines(text, true, lineno, fn);
}

// "(EngineCore pid=3475) ERROR 09-05 23:33:11 [core.py:1348] msg": the process and pid,
// and where the message starts; nullopt when the line has no such prefix.
struct LogPrefix {
    std::string_view proc;
    long long pid = 0;
    std::size_t message_at = 0;
};
std::optional<LogPrefix> match_log_prefix(std::string_view line);
// What match_log_prefix reads after "(proc pid=N)", which ends at `i`: sets p.message_at.
void log_prefix_rest(std::string_view line, std::size_t i, LogPrefix& p);

// The first `max_chars` characters (UTF-8 code points), as Python's s[:n] counts them.
std::string_view first_chars(std::string_view s, std::size_t max_chars);

// The text as valid UTF-8: each invalid byte becomes U+FFFD, as errors="replace" reads it.
std::string valid_utf8(std::string_view s);

// What a pattern matched: the whole match and its groups, as std::cmatch has them.
class Match {
public:
    static constexpr std::size_t kMost = 8;  // groups, the whole match with them
    // Group i ("" when it took no part), 0 the whole match.
    std::string_view group(std::size_t i) const { return i < size_ ? groups_[i] : std::string_view(); }
    bool matched(std::size_t i) const { return i < size_ && matched_[i]; }
    std::size_t size() const { return size_; }  // the groups and the whole match
    // Where the match starts, counted from the start of the text searched (the window).
    std::size_t position() const { return position_; }

    void reset(std::size_t size, std::size_t position) {
        size_ = size;
        position_ = position;
        matched_.fill(false);
        groups_.fill({});
    }
    void set(std::size_t i, std::string_view text) {
        groups_[i] = text;
        matched_[i] = true;
    }

private:
    std::array<std::string_view, kMost> groups_{};
    std::array<bool, kMost> matched_{};
    std::size_t size_ = 0, position_ = 0;
};
inline std::string_view group(const Match& m, std::size_t i) { return m.group(i); }

// A pattern, and two ways to run it faster than libstdc++'s regex_search, which runs its
// whole backtracking matcher from every position of a line, at some hundred instructions a
// character. `literal`: the fixed text every match starts with ("" where it starts with a
// class, a group, an alternative, ^); the matcher runs only where that text occurs, and
// finds the same leftmost match. `steps`: the pattern as fixed text and runs of one class
// ("(\\d+) GiB"), when each run is followed by text that starts outside its class, or by
// the end: then the run's longest reading is the only one that can match, as the
// backtracking matcher also finds it, and the steps are walked without it.
struct Regex {
    explicit Regex(const char* pattern);
    // One step of a pattern read as steps.
    struct Step {
        std::string text;            // fixed text, or empty for a run
        std::array<bool, 256> in{};  // a run: the bytes of its class
        std::size_t min = 0;         // a run: 0 for *, 1 for +
        int group = 0;               // a run: its capture group, 0 for none
        bool end = false;            // $: the end of the text
    };
    std::regex rx;
    std::string literal;
    std::optional<std::vector<Step>> steps;
    std::size_t groups = 0;  // capture groups

    // The match that starts exactly at `at` of `text`, walking the steps.
    bool steps_at(std::string_view text, std::size_t at, Match& m) const;
};
// The fixed text at the start of an ECMAScript pattern (a leading \b, zero-width, is skipped).
std::string literal_prefix(std::string_view pattern);
// The pattern as steps, when it is one of those Regex::steps can walk (`groups`: the
// capture groups it counts); nullopt otherwise.
std::optional<std::vector<Regex::Step>> pattern_steps(std::string_view pattern, std::size_t& groups);

// std::regex on a bounded piece of a line: libstdc++'s matcher recurses per character, so
// a 10 MB line fed whole could overflow the stack. Real lines that carry a fact are short.
inline constexpr std::size_t kRegexWindow = 4096;
// `near`: where the anchor was found, so the window keeps it. The groups point into `line`.
bool search_bounded(std::string_view line, const Regex& rx, Match& m, std::size_t near = 0);

// The first group of `rx` in the line (searched as search_bounded does, near `at`), as text
// or as a number read as Python reads it (below); nullopt where the line does not match or
// the group is not that number. matches(): whether the line matches at all.
std::optional<std::string> group_text(std::string_view line, const Regex& rx, std::size_t at);
std::optional<long long> group_int(std::string_view line, const Regex& rx, std::size_t at);
std::optional<double> group_float(std::string_view line, const Regex& rx, std::size_t at);
std::optional<long long> group_int_commas(std::string_view line, const Regex& rx, std::size_t at);
std::optional<double> group_float_commas(std::string_view line, const Regex& rx, std::size_t at);
bool matches(std::string_view line, const Regex& rx, std::size_t at);

// A fact of the boot-log tables (a JSON value) from a value read off a line; nullopt stays
// nullopt: the line does not say it.
template <class T>
std::optional<Json> fact(const std::optional<T>& v) {
    return v ? std::optional<Json>(Json(*v)) : std::nullopt;
}

// Python float() / int() of a captured number: strict, nullopt where Python raises.
std::optional<double> to_float(std::string_view s);
std::optional<long long> to_int(std::string_view s);
// The same with thousands separators removed first (_num/_int in the Python tool).
std::optional<double> to_float_commas(std::string_view s);
std::optional<long long> to_int_commas(std::string_view s);

// round(x, 2) as Python rounds: half-even on the exact binary value.
double round2(double x);

// ---- the field tables (one per engine)

// A value read from one line, or nullopt when the pattern does not match or its value
// does not convert (Python's ValueError/SyntaxError): the next pattern is then tried.
using Extractor = std::optional<Json> (*)(std::string_view line, std::size_t anchor_at);

// Whether a field is one of the Python tool's (its values are kept for `conflicts`, an
// unreadable line goes to `unparsed`) or read beyond it (RealizedFacts): those change
// neither, so `boot-facts` stays the Python tool's document.
enum class Reference { yes, beyond };

struct Field {
    std::string_view name;
    std::string_view anchor;                                // a fixed substring, looked for first
    bool (*anchor_check)(std::string_view line) = nullptr;  // the rest of an anchor that is a pattern
    std::vector<Extractor> patterns;                        // newest format first
    Reference reference = Reference::yes;
};

const std::vector<Field>& vllm_fields();
const std::vector<Field>& sglang_fields();
const std::vector<Field>& trtllm_fields();

// `prefix{...}` with nothing but whitespace after the closing brace, parsed as a Python
// dict; nullopt otherwise (also for a set or a list).
std::optional<Json> dict_after(std::string_view line, std::string_view prefix);

// TensorRT-LLM's settings from the line after "LLM Args:" (ANSI already removed).
Json trtllm_settings(std::string_view args_line);
// Requests the line shows answered with HTTP 200, and TensorRT-LLM pauses it logs.
int count_served(std::string_view line);
int count_pauses(std::string_view line);

// ---- one look at each line: every fixed string the walks test, found in one pass

// Where each needle of a NeedleSet first occurs in the last line scanned.
class NeedleHits {
public:
    std::size_t at(std::size_t id) const { return at_[id]; }
    bool has(std::size_t id) const { return at_[id] != std::string_view::npos; }
    // The needles found (in no particular order).
    const std::vector<std::uint16_t>& found() const { return found_; }

private:
    friend class NeedleSet;
    // A hit at `at` of needle `id`, kept if it is the needle's first in `at`.
    static void keep(std::vector<std::size_t>& at, std::vector<std::uint16_t>& found, std::uint16_t id,
                     std::size_t pos) {
        if (at[id] != std::string_view::npos) return;
        at[id] = pos;
        found.push_back(id);
    }
    std::vector<std::size_t> at_, later_at_;  // later_: the second half of a line, merged after
    std::vector<std::uint16_t> found_, later_found_;
};

// Finds where each of a fixed set of strings first occurs in a line, in one pass over the
// line's bytes instead of one find() per string. The pass is Wu-Manber's: with m the
// shortest needle, a table of byte pairs says how far the next m-byte window can move
// before its end could hold the end of a needle's first m bytes; only where it cannot
// move are the needles with the window's first four bytes (hashed) compared. Most lines of
// a big log (request lines) hold no needle and cost about one table look-up per m-1 bytes.
// Each look-up waits on the one before; a long line is walked as two halves at once.
class NeedleSet {
public:
    explicit NeedleSet(std::vector<std::string_view> needles);
    std::size_t size() const { return needles_.size(); }
    void scan(std::string_view line, NeedleHits& hits) const;

private:
    static std::uint32_t bucket(const char* p) {
        std::uint32_t w;
        std::memcpy(&w, p, 4);
        return (w * 2654435761U) >> 16;
    }
    // Two bytes as one table index (in the machine's byte order: the table is built the same way).
    static std::uint16_t pair_at(const char* p) {
        std::uint16_t w;
        std::memcpy(&w, p, 2);
        return w;
    }
    std::vector<std::string_view> needles_;
    std::size_t m_ = 0;                  // the shortest needle of four bytes or more
    std::vector<std::uint8_t> shift_;    // byte pair (ending a window) -> how far it may move
    std::vector<std::uint64_t> bits_;    // one bit per bucket: some needle starts so
    std::vector<std::uint32_t> starts_;  // bucket -> its needles in ids_
    std::vector<std::uint16_t> ids_;
    std::vector<std::uint16_t> short_;  // needles under four bytes, found with find()

    // Walks the windows whose last byte is in [from, to), keeping hits in at/found.
    void walk(std::string_view line, std::size_t from, std::size_t to, std::vector<std::size_t>& at,
              std::vector<std::uint16_t>& found) const;
    void compare_at(std::string_view line, std::size_t start, std::vector<std::size_t>& at,
                    std::vector<std::uint16_t>& found) const;
};

// The strings each walk tests a line for; line_needles() is both lists in this order, so
// the failure walk's ids start after the facts walk's.
const std::vector<std::string_view>& facts_needles();
const std::vector<std::string_view>& failure_needles();
const NeedleSet& line_needles();

// One line as both walks read it: colour codes removed, the log prefix, and where every
// needle of line_needles() occurs. Read once, offered to each walk.
class LineScan {
public:
    void read(std::string_view raw);
    std::string_view raw() const { return raw_; }
    std::string_view line() const { return line_; }  // without ANSI colour codes
    // Whether the raw line has colour codes: then what is tested on the raw line is looked
    // for there, not through the hits (found on the line without them).
    bool ansi() const { return ansi_; }
    // The process and pid of the log prefix (its message_at is message()'s business).
    const std::optional<LogPrefix>& prefix() const { return prefix_; }
    // strip_log_prefix(line()), read the first time it is asked for: most lines need only
    // the process.
    std::string_view message() const {
        if (!prefix_) return line_;
        if (!rest_read_) {
            log_prefix_rest(line_, head_.size(), *prefix_);
            rest_read_ = true;
        }
        return line_.substr(prefix_->message_at);
    }
    const NeedleHits& hits() const { return hits_; }

private:
    std::string_view raw_, line_;
    bool ansi_ = false;
    std::string owned_;
    mutable std::optional<LogPrefix> prefix_;
    mutable bool rest_read_ = false;
    const NeedleSet* needles_ = &line_needles();
    NeedleHits hits_;
    // "(APIServer pid=23610)" of the last prefixed line and its pid: most lines repeat it,
    // and the same bytes read the same.
    std::string head_;
    long long head_pid_ = 0;
    std::size_t head_proc_size_ = 0;
};

// Where the engine's line starts after a wrapper people paste logs through: a "grep -n"
// number ("137:") and a journald prefix ("Aug 24 01:02:31 host unit[959645]: "); 0 for none.
std::size_t wrapper_end(std::string_view line);

// strip_ansi into a buffer that keeps its capacity from line to line.
void strip_ansi_into(std::string& out, std::string_view line);

// ---- the walks: a log is read one line at a time, so it can come in pieces

// BootFacts::asked from the arguments line finish() kept (bootlog_settings.cpp).
void fill_asked(BootFacts& f);

// The engine a log's facts are read as: the one it names, else the one the user named.
std::optional<std::string> log_engine(const Engine* found, const Engine* named);

// Every distinct value each field took, in the order first seen.
using Seen = std::vector<std::pair<std::string, std::vector<Json>>>;

// The boot facts, line by line; parse_boot_log is this walk over a whole text.
class FactsWalk {
public:
    // `engine`: the one the log names, else the one the user named; nullopt for neither.
    explicit FactsWalk(std::optional<std::string> engine);
    void line(std::string_view raw, long long lineno);
    void line(const LineScan& s, long long lineno);
    BootFacts finish();

private:
    BootFacts f_;
    Seen seen_;
    std::map<std::string, std::set<long long>> procs_;
    bool in_drafter_ = false;
    bool want_args_line_ = false, args_line_taken_ = false;
    std::optional<std::string> trt_args_line_;
    long long served_ = 0, pauses_ = 0;
    bool trt_info_ = false;
    bool is_trtllm_ = false;
    // The process of the last prefixed line: most lines repeat it.
    std::string last_proc_;
    long long last_pid_ = -1;
    LineScan scan_;  // for line(raw): reused, so a line costs no allocation
    std::vector<std::uint16_t> fields_hit_;
    std::size_t marks_at_;  // the needles after the fields' anchors
};

// The start-up failure, line by line; classify_failure is this walk over a whole text.
class FailureWalk {
public:
    FailureWalk();
    void line(std::string_view raw, long long lineno);
    void line(const LineScan& s, long long lineno);
    std::optional<Failure> finish();

    // The last lines walked (their messages, trimmed, after blanking), newest first:
    // back(0) is the latest.
    std::size_t kept() const { return std::min(count_, before_.size()); }
    std::string back(std::size_t k) const;

private:
    // A line as walked, its message read only when a traceback helper asks.
    struct Before {
        std::string raw;
        bool blank = false;
    };
    std::vector<std::optional<Failure>> hits_;
    std::array<Before, 6> before_;  // a ring: the traceback helpers look this far back
    std::size_t count_ = 0;
    bool stopped_ = false, inside_ignored_ = false;
    std::optional<long long> ready_at_;
    // The last line's length when it was a prefixed line of a failure found on it: a
    // terminal that hard-wraps it continues it on the next line (failures.cpp, rejoin).
    std::size_t wrap_candidate_len_ = 0;
    long long wrap_from_ = 0;        // the line of that failure
    void rejoin(const LineScan& s);  // that failure's text goes on with this line
    bool wrap_at_space_ = false;     // that line ended in a space the failure's text trimmed off
    LineScan scan_;
    std::size_t needles_at_;  // where this walk's needles start in line_needles()
};

}  // namespace inferlint::parse::detail
