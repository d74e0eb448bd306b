#include "inferlint/core/catalog.hpp"

#include "support.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

using namespace inferlint;

namespace {

std::vector<std::string> catalog_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("catalog: the 15 codes, names and check commands of the Python tool, then this project's", "[catalog]") {
    // Codes, slugs and commands are an interface: scripts and docs name them.
    const std::vector<std::tuple<std::string, std::string, std::string>> expected{
        {"T1", "silent-preemption", "inferlint preemption before.json after.json"},
        {"T2", "orphaned-engine", "inferlint teardown  |  inferlint gpu-inspect"},
        {"T3", "cleanup-self-kill", "inferlint teardown"},
        {"T4", "pool-size-jump", "inferlint check-log boot1.log boot2.log"},
        {"T5", "large-kv-blocks", "inferlint check-log boot.log"},
        {"T6", "backend-ignored", "inferlint check-log boot.log"},
        {"T7", "crash-after-ready", "inferlint probe http://127.0.0.1:8000"},
        {"T8", "concurrency-not-reached", "inferlint series run.series.jsonl --requested 32"},
        {"T9", "falling-ceiling", "inferlint series run.series.jsonl"},
        {"T10", "integer-second-timer", "inferlint rate before.json after.json"},
        {"T11", "kv-memory-drift", "inferlint check-log boot1.log boot2.log"},
        {"T12", "unexplained-failure", "inferlint check-log boot.log"},
        {"T13", "stale-waiter", "see docs/orchestration.md"},
        {"T14", "null-block", "inferlint series run.series.jsonl --snapshot after.json"},
        {"T15", "client-server-mismatch", "inferlint xray -o results/ -- vllm bench serve ..."},
        {"T18", "chunks-not-tokens", "inferlint client-counts before.json after.json --bench-result bench.json"},
    };
    // The reference's fifteen come first, in order; this project's follow, each after the last.
    const auto& all = tripwires();
    REQUIRE(all.size() >= 15);
    std::size_t at = 0;
    for (const auto& [id, slug, command] : expected) {
        INFO(id);
        const auto code = id;  // a lambda may not capture a structured binding (clang 14)
        auto it = std::find_if(all.begin() + static_cast<std::ptrdiff_t>(at), all.end(),
                               [&](const Tripwire& t) { return t.id == code; });
        REQUIRE(it != all.end());
        if (at < 15) CHECK(static_cast<std::size_t>(it - all.begin()) == at);
        at = static_cast<std::size_t>(it - all.begin()) + 1;
        CHECK(it->slug == slug);
        CHECK(it->command == command);
    }
    for (const auto& t : all) {
        INFO(t.id);
        CHECK_FALSE(t.name.empty());
        CHECK_FALSE(t.trap.empty());
        CHECK_FALSE(t.what.empty());
        CHECK_FALSE(t.why.empty());
        CHECK_FALSE(t.check.empty());
        CHECK_FALSE(t.verified.empty());
    }
    CHECK(all[0].name == "Silent preemption");
    CHECK(all[14].name == "Client and server counts disagree");
    const Tripwire* t17 = find_tripwire(TripwireId::T17);
    REQUIRE(t17);
    CHECK(t17->id == "T17");
    CHECK(t17->slug == "realized-config");
    CHECK(lookup_tripwire("realized-config") == t17);
    CHECK(lookup_tripwire("t17") == t17);
    for (const auto& t : all) {
        INFO(t.id);
        CHECK_FALSE(t.what.empty());
        CHECK_FALSE(t.check.empty());
        CHECK_FALSE(t.verified.empty());
    }
}

TEST_CASE("catalog: T16 follows them, with every field filled", "[catalog][T16]") {
    const Tripwire* t = find_tripwire(TripwireId::T16);
    REQUIRE(t);
    CHECK(t == &tripwires()[15]);
    CHECK(t->id == "T16");
    CHECK(t->slug == "prefix-cache-hits");
    CHECK(t->name == "Prefix cache served the benchmark");
    CHECK(t->command == "inferlint prefix-cache before.json after.json");
    for (auto field : {t->trap, t->what, t->why, t->check, t->measured, t->verified}) CHECK_FALSE(field.empty());
    CHECK(t->note(EngineId::sglang).find("sglang:uncached_prompt_tokens_histogram_sum") != std::string_view::npos);
    CHECK(t->note(EngineId::trtllm).find("trtllm_prompt_cached_tokens_total") != std::string_view::npos);
    CHECK(lookup_tripwire("prefix-cache-hits") == t);
    CHECK(lookup_tripwire("t16") == t);
    CHECK_FALSE(t->examples.empty());
}

TEST_CASE("catalog: per-engine notes where the Python tool has them, none for vLLM", "[catalog]") {
    std::set<std::string> with_notes;
    for (const auto& t : tripwires()) {
        CHECK(t.note(EngineId::vllm).empty());
        CHECK(t.note(EngineId::sglang).empty() == t.note(EngineId::trtllm).empty());
        if (!t.note(EngineId::sglang).empty()) with_notes.insert(std::string(t.id));
        // This project's tripwires say how each engine differs.
        if (static_cast<int>(t.key) > 15) CHECK_FALSE(t.note(EngineId::sglang).empty());
    }
    for (const char* id : {"T3", "T4", "T6", "T7", "T10", "T11", "T12", "T13", "T15"})
        CHECK_FALSE(with_notes.count(id));
    for (const char* id : {"T1", "T14", "T16", "T2", "T5", "T8", "T9"}) CHECK(with_notes.count(id));
    const auto* t1 = lookup_tripwire("T1");
    REQUIRE(t1);
    CHECK(t1->note(EngineId::sglang).find("sglang:num_retracted_requests_total") != std::string_view::npos);
    CHECK(t1->note(EngineId::trtllm).find("GUARANTEED_NO_EVICT") != std::string_view::npos);
    CHECK(lookup_tripwire("T14")->note(EngineId::sglang).starts_with("does not apply"));
}

TEST_CASE("catalog: what explain prints is plain text, without Markdown", "[catalog]") {
    for (const auto& t : tripwires()) {
        INFO(t.id);
        for (auto field : {t.name, t.what, t.why, t.command, t.note(EngineId::sglang), t.note(EngineId::trtllm)})
            CHECK(field.find('`') == std::string_view::npos);
    }
}

TEST_CASE("catalog: lookup by code in any case, or by slug", "[catalog]") {
    CHECK(lookup_tripwire("T1")->slug == "silent-preemption");
    CHECK(lookup_tripwire("t9")->slug == "falling-ceiling");
    CHECK(lookup_tripwire("  T15 ")->id == "T15");
    CHECK(lookup_tripwire("falling-ceiling")->id == "T9");
    CHECK(lookup_tripwire("Null-Block")->id == "T14");
    CHECK(lookup_tripwire("T16")->slug == "prefix-cache-hits");
    CHECK(lookup_tripwire("T99") == nullptr);
    CHECK(lookup_tripwire("realized-config")->key == TripwireId::T17);
    CHECK(lookup_tripwire("chunks-not-tokens")->key == TripwireId::T18);
    CHECK(lookup_tripwire("T0") == nullptr);
    CHECK(lookup_tripwire("") == nullptr);
    CHECK(lookup_tripwire("preemption") == nullptr);
    CHECK(lookup_tripwire("Silent preemption") == nullptr);
}

TEST_CASE("catalog: the known names listed for an unknown one", "[catalog]") {
    std::string known = known_tripwires_text();
    CHECK(
        known.starts_with(fmt::format("T1-{}, or a name: silent-preemption, orphaned-engine", tripwires().back().id)));
    CHECK(known.find("null-block, client-server-mismatch, prefix-cache-hits") != std::string::npos);
    CHECK(known.ends_with(std::string(tripwires().back().slug)));
    CHECK(known.find("chunks-not-tokens") != std::string::npos);
    CHECK(known.find("realized-config") != std::string::npos);
}

TEST_CASE("catalog: wrapping keeps every word and never exceeds the width", "[catalog]") {
    const std::string text = "one two three four five six seven eight nine ten eleven twelve";
    auto lines = wrap_paragraph(text, 20, "    ");
    CHECK(lines == std::vector<std::string>{"    one two three", "    four five six", "    seven eight nine",
                                            "    ten eleven", "    twelve"});
    // A word longer than a line is cut rather than overflowing.
    auto cut = wrap_paragraph("ab abcdefghijklmnop cd", 10, "    ");
    CHECK(cut == std::vector<std::string>{"    ab", "    abcdef", "    ghijkl", "    mnop", "    cd"});
    CHECK(wrap_paragraph("  ", 20, "  ").empty());
    CHECK(wrap_paragraph("a\n\tb", 20, "") == std::vector<std::string>{"a b"});
}

TEST_CASE("catalog: explain text for one tripwire, with and without an engine", "[catalog]") {
    const Tripwire& t1 = *lookup_tripwire("T1");
    std::string all = explain_text(t1, nullptr, 88);
    auto lines = catalog_lines(all);
    REQUIRE(lines.size() > 4);
    CHECK(lines[0] == "T1  Silent preemption  (silent-preemption)");
    CHECK(all.find("\n    Why it matters: ") != std::string::npos);
    CHECK(all.find("\n    On SGLang: a preemption is called a retraction") != std::string::npos);
    CHECK(all.find("\n    On TensorRT-LLM: ") != std::string::npos);
    CHECK(all.ends_with("    Check: inferlint preemption before.json after.json\n\n"));
    for (std::size_t i = 1; i < lines.size(); ++i) {
        CHECK(lines[i].size() <= 88);
        if (!lines[i].empty()) CHECK(lines[i].starts_with("    "));
    }

    std::string sg = explain_text(t1, &sglang(), 88);
    CHECK(sg.find("On SGLang:") != std::string::npos);
    CHECK(sg.find("On TensorRT-LLM:") == std::string::npos);
    std::string vl = explain_text(t1, &vllm(), 88);
    CHECK(vl.find("On ") == std::string::npos);
    CHECK(vl.find("vllm:num_preemptions_total") != std::string::npos);
}

TEST_CASE("catalog: explain wraps every paragraph to a narrow terminal", "[catalog]") {
    for (const auto& t : tripwires()) {
        auto lines = catalog_lines(explain_text(t, nullptr, 40));
        REQUIRE(lines.size() > 3);
        CHECK(lines[0].starts_with(std::string(t.id) + "  "));
        for (const auto& line : lines) {
            if (line.starts_with("    Check: ")) continue;  // commands are never broken
            INFO(line);
            CHECK(line.size() <= 40);
        }
    }
}

TEST_CASE("catalog: the Markdown has a row and a section for every tripwire", "[catalog]") {
    std::string md = render_tripwires_markdown();
    CHECK(md.starts_with("# The tripwires\n"));
    for (const auto& t : tripwires()) {
        INFO(t.id);
        CHECK(md.find(fmt::format("\n| {} | [{}](#", t.id, t.slug)) != std::string::npos);
        CHECK(md.find(fmt::format("\n## {}: {}\n", t.id, t.name)) != std::string::npos);
        CHECK(md.find(std::string(t.what)) != std::string::npos);
        CHECK(md.find(std::string(t.why)) != std::string::npos);
        if (!t.note(EngineId::sglang).empty())
            CHECK(md.find("**On SGLang:** " + std::string(t.note(EngineId::sglang))) != std::string::npos);
        for (const auto& ex : t.examples)
            for (auto line : ex.lines) CHECK(md.find("\n" + std::string(line) + "\n") != std::string::npos);
    }
    // A '|' inside a table cell is escaped, or the table would gain a column.
    CHECK(md.find("`inferlint teardown  \\|  inferlint gpu-inspect`") != std::string::npos);
    CHECK(md.find("| T4 | [pool-size-jump](#t4-kv-pool-size-jumps-between-starts) |") != std::string::npos);
    CHECK(md.find("$ inferlint check-log vllm-0.29/boot_fail_uva_wsl.log | grep -F '[T12]'\n") != std::string::npos);
}

TEST_CASE("docs/tripwires.md is the catalog rendered", "[catalog][docs]") {
    const auto path = testsupport::source_dir() / "docs" / "tripwires.md";
    const std::string rendered = render_tripwires_markdown();
    if (const char* regen = std::getenv("INFERLINT_REGENERATE_DOCS"); regen && std::string(regen) == "1") {
        std::ofstream(path, std::ios::binary) << rendered;
        WARN("rewrote " << path.string());
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream current;
    current << in.rdbuf();
    INFO(
        "docs/tripwires.md differs from the catalog (src/core/catalog_t*.cpp). Regenerate it with:\n"
        "  INFERLINT_REGENERATE_DOCS=1 <build>/inferlint_tests \"[docs]\"");
    CHECK(current.str() == rendered);
}

TEST_CASE("catalog: one entry per TripwireId, in code order, each written as code() writes it", "[catalog]") {
    REQUIRE(tripwires().size() == kTripwireIds.size());
    for (std::size_t i = 0; i < kTripwireIds.size(); ++i) {
        const Tripwire& t = tripwires()[i];
        INFO(t.id);
        CHECK(t.key == kTripwireIds[i]);
        CHECK(t.id == code(t.key));
        CHECK(tripwire_id(t.id) == t.key);
        CHECK(find_tripwire(t.key) == &t);
    }
    CHECK_FALSE(tripwire_id("t1"));  // codes are exact; `explain` takes any case through lookup_tripwire
    CHECK(tripwire_id("T16") == TripwireId::T16);
    CHECK_FALSE(tripwire_id("T99"));
    CHECK_FALSE(tripwire_id("T99"));
    CHECK(tripwire_id("T18") == TripwireId::T18);
    CHECK(code(TripwireId{}) == "T?");
}

TEST_CASE("catalog: every row says what a run must hold for its tripwire", "[catalog]") {
    for (const auto& t : tripwires()) {
        INFO(t.id);
        CHECK_FALSE(t.needs.empty());
        CHECK((t.needs.starts_with("need ") || t.needs.starts_with("run ") || t.needs.starts_with("a rule")));
    }
}
