// A boot log read in pieces (scan_boot_log_file) must say exactly what the whole text says
// (parse_boot_log + classify_failure), wherever the pieces happen to be cut.
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/failures.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "parse/bootlog_text.hpp"

#include "support.hpp"

#include <fstream>
#include <random>

using namespace inferlint;
using testsupport::run_cli;

namespace {

using Lines = std::vector<std::pair<std::string, long long>>;

Lines whole_lines(std::string_view text) {
    Lines out;
    parse::detail::for_each_line(text, [&](std::string_view l, long long n) { out.emplace_back(l, n); });
    return out;
}

// The text cut at `cuts` (sorted offsets), walked as the file reader walks it: each piece
// appended to what the last one left unfinished.
Lines piece_lines(std::string_view text, const std::vector<std::size_t>& cuts) {
    Lines out;
    long long lineno = 0;
    std::string pending;
    std::size_t from = 0;
    auto emit = [&](std::string_view l, long long n) { out.emplace_back(l, n); };
    for (std::size_t k = 0; k <= cuts.size(); ++k) {
        std::size_t to = k < cuts.size() ? cuts[k] : text.size();
        pending.append(text.substr(from, to - from));
        from = to;
        bool last = k == cuts.size();
        std::size_t used = parse::detail::split_lines(pending, last, lineno, emit);
        pending.erase(0, used);
    }
    return out;
}

std::filesystem::path stream_test_file(const std::string& name, std::string_view text) {
    auto p = testsupport::scratch_dir("stream") / name;
    util::write_file(p, text);
    return p;
}

void same_as_whole(const std::filesystem::path& p) {
    std::string text = util::read_file(p);
    auto scan = parse::scan_boot_log_file(p, nullptr);
    REQUIRE(scan);
    CHECK(scan->found == from_log(text));
    CHECK(parse::to_json(scan->facts) == parse::to_json(parse::parse_boot_log(text, nullptr)));
    auto whole = parse::classify_failure(text);
    REQUIRE(scan->failure.has_value() == whole.has_value());
    if (whole) {
        CHECK(scan->failure->summary() == whole->summary());
        CHECK(scan->failure->lineno == whole->lineno);
    }
}

}  // namespace

TEST_CASE("split_lines: every cut point gives the lines of the whole text", "[bootlog][stream]") {
    // Every break Python's splitlines knows, some of them more than one byte long.
    const std::string text =
        "a\r\nbb\rc\nd\x0b"
        "e\x0c"
        "f\x1cg\x1dh\x1ei\xc2\x85j\xe2\x80\xa8k\xe2\x80\xa9l\r\r\n"
        "\xe2\x80\x99quote\xc2\xa0nbsp\r\n\nlast";
    const Lines whole = whole_lines(text);
    REQUIRE(whole.size() == 16);
    CHECK(whole[0].first == "a");
    CHECK(whole.back() == Lines::value_type{"last", 16});
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        INFO("cut at " << cut);
        CHECK(piece_lines(text, {cut}) == whole);
    }
    for (std::size_t a = 0; a <= text.size(); ++a)
        for (std::size_t b = a; b <= text.size(); ++b) REQUIRE(piece_lines(text, {a, b}) == whole);
}

TEST_CASE("split_lines: random pieces of a real log", "[bootlog][stream]") {
    std::string text = util::read_file(testsupport::own_fixtures() / "vllm-sim/preempted/boot.log");
    // \r\n endings too, so a cut can fall between the two bytes
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    for (const std::string* t : {&text, &crlf}) {
        const Lines whole = whole_lines(*t);
        std::mt19937 rng(7);
        for (int round = 0; round < 50; ++round) {
            std::vector<std::size_t> cuts;
            std::size_t at = 0;
            while (true) {
                at += 1 + rng() % 700;
                if (at >= t->size()) break;
                cuts.push_back(at);
            }
            REQUIRE(piece_lines(*t, cuts) == whole);
        }
    }
}

TEST_CASE("scan_boot_log_file says what the whole text says", "[bootlog][stream]") {
    // Both run the same walks; what differs is the reading in pieces and the engine told
    // from the head. A few logs of each engine, healthy and failed (the golden tests run
    // every recorded log through the command).
    same_as_whole(testsupport::own_fixtures() / "vllm-sim/preempted/boot.log");
    same_as_whole(testsupport::own_fixtures() / "vllm-sim/healthy/boot.log");
    same_as_whole(testsupport::own_fixtures() / "bootlog/fail/unclassified_exception.log");
    same_as_whole(testsupport::own_fixtures() / "bootlog/trtllm/boot.log");
}

TEST_CASE("scan_boot_log_file says what the whole text says on recorded logs", "[bootlog][stream][shared]") {
    REQUIRE_REFERENCE(root);
    for (const char* log :
         {"vllm-0.28/boot_spec_backend_override.log", "vllm-0.30/boot_fail_ptx_version.log", "sglang-0.5/live/boot.log",
          "sglang-0.5/boot_fail_mamba_state.log", "trtllm-1.3/pauses/boot.log"}) {
        INFO(log);
        if (!std::filesystem::exists(root / log)) FAIL("missing reference log " << log);
        same_as_whole(root / log);
    }
}

TEST_CASE("scan_boot_log_file: a log longer than its buffer, cut inside a line and inside a break",
          "[bootlog][stream]") {
    std::string one = util::read_file(testsupport::own_fixtures() / "vllm-sim/preempted/boot.log");
    // Filler lines up to just before the 1 MiB buffer edge, then a \r\n across the edge.
    std::string text = one;
    while (text.size() < (std::size_t{1} << 20) - 200)
        text += "INFO:     127.0.0.1:5 - \"GET /metrics HTTP/1.1\" 200 OK\n";
    text += std::string((std::size_t{1} << 20) - 1 - text.size(), 'x');
    text += "\r\n";  // the \r is the buffer's last byte
    // A 2.5 MiB line (longer than the buffer), then the whole log again: a second start.
    text += "Setting attention block size to " + std::string(5 << 19, '7') + " tokens\n";
    text += one;
    auto p = stream_test_file("long.log", text);
    same_as_whole(p);
    auto scan = parse::scan_boot_log_file(p, nullptr);
    REQUIRE(scan);
    CHECK(scan->facts.lines == static_cast<long long>(whole_lines(text).size()));
    CHECK(scan->facts.unparsed.size() == 1);
    CHECK(scan->facts.unparsed.at(0).field == "attention_block_size");
    CHECK(scan->facts.ready);
    std::filesystem::remove_all(p.parent_path());
}

TEST_CASE("scan_boot_log_file: the engine is asked about once, and a no stops the walk", "[bootlog][stream]") {
    auto p = testsupport::own_fixtures() / "vllm-sim/preempted/boot.log";
    int asked = 0;
    const Engine* seen = nullptr;
    auto scan = parse::scan_boot_log_file(p, nullptr, [&](const Engine* e) {
        ++asked;
        seen = e;
        return false;
    });
    CHECK_FALSE(scan);
    CHECK(asked == 1);
    REQUIRE(seen);
    CHECK(seen->key == "vllm");
    auto plain = stream_test_file("plain.log", "Available KV cache memory: 2.5 GiB\n");
    auto named = parse::scan_boot_log_file(plain, &sglang());
    std::filesystem::remove_all(plain.parent_path());
    REQUIRE(named);
    CHECK(named->found == nullptr);
    CHECK(named->facts.engine == "sglang");
    CHECK(named->facts.available_kv_cache_gib == 2.5);
}

TEST_CASE("scan_boot_log_file: bad files are one-line errors naming them", "[bootlog][stream]") {
    auto dir = testsupport::scratch_dir("stream-bad");
    auto message = [](const std::filesystem::path& p) {
        try {
            parse::scan_boot_log_file(p, nullptr);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(dir / "missing.log") == (dir / "missing.log").string() + ": no such file");
    CHECK(message(dir) == dir.string() + ": is a folder, not a file");
    { std::ofstream(dir / "empty.log"); }
    CHECK(message(dir / "empty.log") == (dir / "empty.log").string() + ": empty file");
    {
        std::ofstream(dir / "junk.log", std::ios::binary) << std::string(
            "\x7f"
            "ELF\0\0\1\2",
            8);
    }
    CHECK(message(dir / "junk.log") == (dir / "junk.log").string() + ": not a text log (binary data)");
    // Cut off mid-line: the last line still counts.
    auto cut_log = stream_test_file("cut.log", "Available KV cache memory: 2.5");
    auto cut = parse::scan_boot_log_file(cut_log, nullptr);
    std::filesystem::remove_all(cut_log.parent_path());
    REQUIRE(cut);
    CHECK(cut->facts.lines == 1);
    CHECK(cut->facts.unparsed.size() == 1);
    std::filesystem::remove_all(dir);
}

TEST_CASE("files of another kind given as a boot log: one line naming the file, exit 2", "[bootlog][stream][cli]") {
    // The five the bad-input matrix found boot-facts reading as an empty vLLM log (exit 0),
    // and check-log passing T12 on: no log line in them at all.
    auto dir = testsupport::scratch_dir("stream-kind");
    const std::vector<std::pair<std::string, std::string>> files = {
        {"cut.json", R"({"schema": "inferlint.snapshot/1", "metrics": [1, 2)"},
        {"other.json", "{\"name\": \"not a log\"}\n"},
        {"lines.jsonl", "{\"t\": 1}\n{\"t\": 2}\n"},
        {"metrics.prom",
         "# HELP vllm:num_requests_running Number of requests.\n# TYPE vllm:num_requests_running gauge\n"},
        {"one-line.txt", std::string(300000, 'x')},
    };
    const std::vector<std::string> why = {"a JSON file, not a boot log", "a JSON file, not a boot log",
                                          "a JSON file, not a boot log", "Prometheus metrics text, not a boot log",
                                          "no line break in its first"};
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto path = dir / files[i].first;
        { std::ofstream(path, std::ios::binary) << files[i].second; }
        for (std::vector<std::string> args : {std::vector<std::string>{"boot-facts", path.string()},
                                              std::vector<std::string>{"check-log", path.string()},
                                              std::vector<std::string>{"boot-facts", "--json", path.string()}}) {
            INFO(args[0] << " " << path.string());
            auto r = run_cli(args);
            CHECK(r.rc == 2);
            CHECK(r.out.empty());
            CHECK(r.err.starts_with("inferlint: " + path.string() + ": " + why[i]));
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        }
    }
    // A real log that is short and has no final line break still reads.
    auto short_log = dir / "short.log";
    { std::ofstream(short_log) << "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.30.0"; }
    CHECK(run_cli({"boot-facts", short_log.string()}).rc == 0);
    std::filesystem::remove_all(dir);
}
