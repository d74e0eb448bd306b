// Internal to the boot-log parsers: walking a log line by line as Python's
// str.splitlines() does, and the small scanners the field patterns share.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "util/text.hpp"

#include <array>
#include <map>
#include <set>

#include <cstddef>
#include <vector>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

// A field's pattern, compiled on first use, as a regex run on a bounded window of the line.
#define INFERLINT_RX(var, text) static const std::regex var(text, std::regex::ECMAScript | std::regex::optimize)

namespace inferlint::parse::detail {

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
            if (i + 1 < n) brk = byte(i + 1) == '\n' ? 2 : 1;
            else if (at_end) brk = 1;
            else return start;
        } else if (c == 0xC2) {
            if (i + 1 < n) brk = byte(i + 1) == 0x85 ? 2 : 0;
            else if (!at_end) return start;
        } else if (c == 0xE2) {
            if (i + 2 < n) brk = (byte(i + 1) == 0x80 && (byte(i + 2) == 0xA8 || byte(i + 2) == 0xA9)) ? 3 : 0;
            else if (!at_end) return start;
        }
        if (brk == 0) {
            // Plain bytes: jump to the next byte that can start a break.
            ++i;
            while (i < n) {
                unsigned char d = byte(i);
                if (d < 0x1f || d == 0xC2 || d == 0xE2) break;
                ++i;
            }
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

// The first `max_chars` characters (UTF-8 code points), as Python's s[:n] counts them.
std::string_view first_chars(std::string_view s, std::size_t max_chars);

// The text as valid UTF-8: each invalid byte becomes U+FFFD, as errors="replace" reads it.
std::string valid_utf8(std::string_view s);

// std::regex on a bounded piece of a line: libstdc++'s matcher recurses per character, so
// a 10 MB line fed whole could overflow the stack. Real lines that carry a fact are short.
inline constexpr std::size_t kRegexWindow = 4096;
// `near`: where the anchor was found, so the window keeps it.
bool search_bounded(std::string_view line, const std::regex& rx, std::cmatch& m, std::size_t near = 0);
inline std::string_view group(const std::cmatch& m, int i) {
    return m[i].matched ? std::string_view(m[i].first, static_cast<std::size_t>(m[i].length())) : std::string_view();
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
    std::string_view anchor;                            // a fixed substring, looked for first
    bool (*anchor_check)(std::string_view line) = nullptr;  // the rest of an anchor that is a pattern
    std::vector<Extractor> patterns;                    // newest format first
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

// ---- the walks: a log is read one line at a time, so it can come in pieces

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
    std::vector<std::size_t> first_at_;
};

// The start-up failure, line by line; classify_failure is this walk over a whole text.
class FailureWalk {
public:
    FailureWalk();
    void line(std::string_view raw, long long lineno);
    std::optional<Failure> finish();

    // The last lines walked (after blanking), newest first: back(0) is the latest.
    std::size_t kept() const { return std::min(count_, before_.size()); }
    const std::string& back(std::size_t k) const { return before_[(count_ - 1 - k) % before_.size()]; }

private:
    std::vector<std::optional<Failure>> hits_;
    std::array<std::string, 6> before_;  // a ring: the traceback helpers look this far back
    std::size_t count_ = 0;
    bool stopped_ = false, inside_ignored_ = false;
    std::optional<long long> ready_at_;
};

}  // namespace inferlint::parse::detail
