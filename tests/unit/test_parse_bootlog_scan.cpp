// The fast paths of the boot-log walk must read every line as the plain ones did: the
// needles found in one pass as find() finds them, the patterns walked as std::regex
// matches them, the log prefix read once per run of lines, the line breaks found 16 bytes
// at a time.
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/parse/log_stamps.hpp"
#include "inferlint/util/files.hpp"
#include "parse/bootlog_text.hpp"

#include "support.hpp"

#include <random>

using namespace inferlint;
using parse::detail::Match;
using parse::detail::NeedleHits;
using parse::detail::NeedleSet;
using parse::detail::Regex;

namespace {

// Patterns of the three engines' fields that are walked without std::regex (as written in
// bootlog_vllm.cpp, bootlog_sglang.cpp and bootlog_trtllm.cpp).
const std::vector<const char*> kWalked{
    R"(Initializing a V1 LLM engine \(v([^)\s]+)\))",
    R"(Using (\w+) attention backend out of potential backends: \[([^\]]*)\])",
    R"(Using AttentionBackendEnum\.\w+ backend\.)",
    R"(Using AttentionBackendEnum\.(\w+) backend\.\s*$)",
    R"(Setting attention block size to (\d+) tokens)",
    R"(Padding mamba page size by ([\d.]+)%)",
    R"(GPU KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)",
    R"(CUDA graph pool memory: ([\d.]+) GiB \(actual\))",
    R"(torch\.compile took ([\d.]+) s in total)",
    R"(Model loading took ([\d.]+) GiB memory and ([\d.]+) seconds)",
    R"(Actual usage is ([\d.]+) GiB for consumed memory \(weights \+ non-torch\), ([\d.]+) GiB for peak activation)",
    R"(Desired GPU memory utilization is \(([\d.]+),)",
    R"(CUDA graph end\. elapsed=[\d.]+ s, mem usage=([\d.]+) GB)",
    R"(KV Cache is allocated\. dtype: ([^,\s]+),)",
    R"(TensorRT LLM version: (\S+))",
    R"(Allocated ([\d.]+) GiB for max tokens in paged KV cache \((\d+)\))",
    R"(max_num_requests=(\d+), max_num_tokens=\d+, max_batch_size=(\d+))",
};

// search_bounded as it was: std::regex over the same window of the line.
bool regex_reference(std::string_view line, const std::regex& rx, std::cmatch& m, std::size_t near) {
    if (line.size() > parse::detail::kRegexWindow) {
        if (near == std::string_view::npos) near = 0;
        std::size_t from = near > parse::detail::kRegexWindow / 4 ? near - parse::detail::kRegexWindow / 4 : 0;
        line = line.substr(from, parse::detail::kRegexWindow);
    }
    return std::regex_search(line.data(), line.data() + line.size(), m, rx);
}

// The same answer, the same groups at the same places.
bool same_as_regex(const Regex& r, const std::regex& ref, const std::string& text) {
    const std::size_t near = r.literal.empty() ? 0 : text.find(r.literal);
    std::cmatch want;
    Match got;
    const bool found = regex_reference(text, ref, want, near);
    INFO("text: " << text);
    REQUIRE(parse::detail::search_bounded(text, r, got, near) == found);
    if (!found) return false;
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        REQUIRE(got.matched(i) == want[i].matched);
        if (!want[i].matched) continue;
        CHECK(got.group(i).data() == want[i].first);
        CHECK(got.group(i).size() == static_cast<std::size_t>(want[i].length()));
    }
    return true;
}

}  // namespace

TEST_CASE("bootlog patterns: a walked pattern matches what std::regex matches", "[bootlog][scan]") {
    // Real lines of the project's logs, and each cut, widened and mutated at random with the
    // bytes that sit at a run's edge.
    std::vector<std::string> lines;
    for (const auto& e : std::filesystem::recursive_directory_iterator(testsupport::own_fixtures())) {
        if (e.path().extension() != ".log") continue;
        std::string log = util::read_file(e.path());
        for (std::size_t at = 0, nl; (nl = log.find('\n', at)) != std::string::npos; at = nl + 1)
            lines.push_back(log.substr(at, nl - at));
    }
    const std::string bytes = "0123456789.,: ()[]\"'x_-aZ\t\xc3\xa9/=%+";
    std::mt19937 rng(17);
    std::size_t matched = 0;
    for (const char* pattern : kWalked) {
        INFO("pattern: " << pattern);
        Regex r(pattern);
        REQUIRE(r.steps);
        const std::regex ref(pattern, std::regex::ECMAScript);
        std::vector<std::string> texts;
        for (const auto& l : lines)
            if (l.find(r.literal.substr(0, 8)) != std::string::npos && texts.size() < 40) texts.push_back(l);
        texts.push_back(r.literal + "12.5 GiB, 3 tokens");
        const std::size_t real = texts.size();
        for (std::size_t k = 0; k < real; ++k) {
            texts.push_back(std::string(5000, 'x') + texts[k]);  // past the window
            texts.push_back(texts[k] + std::string(5000, ' '));
            for (int round = 0; round < 40; ++round) {
                std::string t = texts[k];
                for (int e = 0, edits = 1 + static_cast<int>(rng() % 3); e < edits && !t.empty(); ++e) {
                    std::size_t pos = rng() % (t.size() + 1);
                    switch (rng() % 4) {
                        case 0:
                            t.erase(pos, 1 + rng() % 3);
                            break;
                        case 1:
                            t.insert(pos, 1, bytes[rng() % bytes.size()]);
                            break;
                        case 2:
                            if (pos < t.size()) t[pos] = bytes[rng() % bytes.size()];
                            break;
                        default:
                            t.resize(pos);
                    }
                }
                if (rng() % 4 == 0) t.insert(rng() % (t.size() + 1), r.literal);  // a second start
                texts.push_back(std::move(t));
            }
        }
        for (const auto& t : texts) matched += same_as_regex(r, ref, t);
    }
    CHECK(matched > 2000);  // the texts match often enough to compare groups
}

TEST_CASE("bootlog patterns: only a pattern whose runs end where their class does is walked", "[bootlog][scan]") {
    CHECK(Regex(R"(took ([\d.]+) GiB)").steps);
    CHECK(Regex(R"(version: (\S+))").steps);             // a run at the end: its longest reading
    CHECK(Regex(R"(backend\.\s*$)").steps);              // a run before the end
    CHECK_FALSE(Regex(R"(dtype: \S+, #tokens)").steps);  // ',' is in \S: backtracking can matter
    CHECK_FALSE(Regex(R"((\w+) is not)").steps);         // no fixed start
    CHECK_FALSE(Regex(R"(elapsed=([\d.]+) s,.* mem)").steps);
    CHECK_FALSE(Regex(R"(by the ([^(]+?) \()").steps);  // lazy
    CHECK_FALSE(Regex(R"rx(set to "([^"]+)"\.( Using)?)rx").steps);
    CHECK_FALSE(Regex(R"(size=(-?\d+),)").steps);
    CHECK_FALSE(Regex(R"(a[0-9]+b)").steps);  // a range
    CHECK_FALSE(Regex(R"rx(^File "([^"]+)")rx").steps);
    CHECK(Regex(R"(^File)").literal.empty());
    CHECK(Regex(R"(\bCUDA error: (.+))").literal == "CUDA error: ");
    CHECK(Regex(R"(\bOutOfMemoryError\b|CUDA out of memory)").literal.empty());
    CHECK(Regex(R"(ab+c)").literal == "a");
}

TEST_CASE("bootlog needles: each needle's first place, as find() gives it", "[bootlog][scan]") {
    const std::vector<std::string_view> needles{"abcab", "bcab", "ab", "", "cabxyz", "xyz", "zz zz", "abcabc"};
    NeedleSet set(needles);
    NeedleHits hits;
    std::mt19937 rng(5);
    const std::string alphabet = "abcxyz ";
    for (int round = 0; round < 3000; ++round) {
        std::string line;
        // Short lines walked once, long ones as two halves at once.
        for (std::size_t n = rng() % 200; n > 0; --n) line += alphabet[rng() % alphabet.size()];
        set.scan(line, hits);
        INFO("line: [" << line << "]");
        std::size_t found = 0;
        for (std::size_t id = 0; id < needles.size(); ++id) {
            const std::size_t want = needles[id].empty() ? std::string_view::npos : line.find(needles[id]);
            CHECK(hits.at(id) == want);
            found += want != std::string_view::npos;
        }
        CHECK(hits.found().size() == found);
    }
    set.scan("", hits);
    for (std::size_t id = 0; id < needles.size(); ++id) CHECK_FALSE(hits.has(id));
}

TEST_CASE("bootlog walk: the process of each prefixed line, read once per run of lines", "[bootlog][scan]") {
    const std::string text =
        "(APIServer pid=1) INFO 01-01 00:00:00 [a.py:1] a\n"
        "(APIServer pid=1) INFO 01-01 00:00:00 [a.py:1] b\n"
        "(APIServer pid=12) INFO:     c\n"  // the head of the line before, and more
        "(APIServer pid=1)x\n"              // the first head again, after another
        "(APIServer  pid=1) INFO d\n"       // the same process, written apart
        "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [c.py:3] ValueError: boom\n"
        "(APIServer pid=1) Setting attention block size to 16 tokens\n";
    parse::BootFacts f = parse::parse_boot_log(text, nullptr);
    CHECK(f.processes.at("APIServer") == std::vector<long long>{1, 12});
    CHECK(f.processes.at("EngineCore_DP0") == std::vector<long long>{7});
    CHECK(f.attention_block_size == 16);
    auto fail = parse::classify_failure(text);
    REQUIRE(fail);
    CHECK(fail->line == "ValueError: boom");
    CHECK(fail->lineno == 6);
}

TEST_CASE("bootlog walk: what is looked for in the raw line stays there, colour codes and all", "[bootlog][scan]") {
    // The stop marker cut by a colour code is not the marker (the raw line is searched), so
    // the error after it still counts; written plainly, it ends the walk.
    const std::string cut = "INFO [shut\x1b[0mdown] stopping\nValueError: late\n";
    REQUIRE(parse::classify_failure(cut));
    CHECK(parse::classify_failure(cut)->line == "ValueError: late");
    CHECK_FALSE(parse::classify_failure("INFO [shutdown] stopping\nValueError: late\n"));
    // A colour code inside a fact's anchor: the line without codes carries the fact.
    parse::BootFacts f = parse::parse_boot_log("Setting attention \x1b[1mblock size to 32 tokens\n", nullptr);
    CHECK(f.attention_block_size == 32);
}

TEST_CASE("bootlog walk: a traceback the server ignores is blanked, lines before an error are read back",
          "[bootlog][scan]") {
    const std::string text =
        "[start of optional import traceback]\n"
        "RuntimeError: not this one\n"
        "[end of optional import traceback]\n"
        "Ignore import error when loading x: ValueError: nor this\n"
        "assert x > 0\n"
        "AssertionError\n";
    auto f = parse::classify_failure(text);
    REQUIRE(f);
    CHECK(f->kind == parse::FailureKind::assertion);
    CHECK(f->detail == "assert x > 0");
    CHECK(f->lineno == 6);
}

TEST_CASE("split_lines: a break at every place of the blocks tested at once", "[bootlog][scan]") {
    for (std::string_view brk :
         {"\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
        for (std::size_t len = 0; len <= 40; ++len) {
            // Plain bytes, bytes that start a break elsewhere, and a tab (below 0x1f, no break).
            std::string line(len, 'a');
            if (len > 3) line[len / 2] = '\t';
            if (len > 6) line.replace(1, 2, "\xc2\xa0");
            std::string text = line + std::string(brk) + line + "z";
            std::vector<std::string> got;
            parse::detail::for_each_line(text, [&](std::string_view l, long long) { got.emplace_back(l); });
            INFO("len " << len);
            REQUIRE(got.size() == 2);
            CHECK(got[0] == line);
            CHECK(got[1] == line + "z");
        }
    }
}

TEST_CASE("log stamps: the first stamp, wherever dashes come before it", "[bootlog][scan]") {
    CHECK(parse::stamp_seconds("-a- 01-01 00:00:07 x") == 7);
    CHECK(parse::stamp_seconds("1-2-3 x01-01 00:00:07") == std::nullopt);  // a word before it
    CHECK(parse::stamp_seconds("1-2-3 x-01-01 00:00:07") == 7);
    CHECK(parse::stamp_seconds("01-01 00:00:07") == 7);
    CHECK(parse::stamp_seconds("x 13-01 00:00:07 01-01 00:00:08") == std::nullopt);  // the first is no date
    CHECK(parse::stamp_seconds("01-01 00:00:0") == std::nullopt);
}
