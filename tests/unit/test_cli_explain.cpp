#include "inferlint/core/catalog.hpp"

#include "support.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <sstream>

using testsupport::run_cli;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

const std::string kNoEngine = "env -u INFERLINT_ENGINE ";

}  // namespace

TEST_CASE("explain T1: heading, paragraphs, both engines' notes, the command", "[explain]") {
    auto r = run_cli({"explain", "T1"});
    CHECK(r.rc == 0);
    CHECK(r.err.empty());
    CHECK(r.out.starts_with("T1  Silent preemption  (silent-preemption)\n    When a running request"));
    CHECK(r.out.find("    Why it matters: The preempted request") != std::string::npos);
    CHECK(r.out.find("    On SGLang: ") != std::string::npos);
    CHECK(r.out.find("    On TensorRT-LLM: ") != std::string::npos);
    CHECK(r.out.ends_with("    Check: inferlint preemption before.json after.json\n\n"));
}

TEST_CASE("explain with no name prints every tripwire in order", "[explain]") {
    auto r = run_cli({"explain"});
    CHECK(r.rc == 0);
    CHECK(count_of(r.out, "    Check: ") == inferlint::tripwires().size());
    CHECK(r.out.find("T17  The server ran a configuration nobody asked for") != std::string::npos);
    auto t1 = r.out.find("T1  Silent preemption");
    auto t10 = r.out.find("T10  Integer-second timing");
    auto t15 = r.out.find("T15  Client and server counts disagree");
    auto t16 = r.out.find("T16  Prefix cache served the benchmark  (prefix-cache-hits)");
    CHECK(t1 == 0);
    CHECK(t10 != std::string::npos);
    CHECK(t15 > t10);
    CHECK(r.out.find("T18  The load tool counted stream chunks, not tokens  (chunks-not-tokens)") > t15);
    CHECK(t16 != std::string::npos);
    CHECK(t16 > t15);
}

TEST_CASE("explain takes codes in any case and slugs, in the order given", "[explain]") {
    auto r = run_cli({"explain", "t9", "null-block", "T9"});
    CHECK(r.rc == 0);
    CHECK(count_of(r.out, "T9  Concurrency ceiling falls as sequences grow  (falling-ceiling)\n") == 2);
    CHECK(r.out.find("T14  Reserved null block  (null-block)") > r.out.find("T9  "));
}

TEST_CASE("explain --engine and INFERLINT_ENGINE keep only that engine's notes", "[explain]") {
    auto sg = run_cli({"explain", "T1", "--engine", "sglang"});
    CHECK(sg.rc == 0);
    CHECK(sg.out.find("On SGLang:") != std::string::npos);
    CHECK(sg.out.find("On TensorRT-LLM:") == std::string::npos);

    auto trt = run_cli({"explain", "T1"}, "env INFERLINT_ENGINE=trtllm ");
    CHECK(trt.rc == 0);
    CHECK(trt.out.find("On SGLang:") == std::string::npos);
    CHECK(trt.out.find("On TensorRT-LLM: the request is paused") != std::string::npos);

    auto vl = run_cli({"explain", "T14", "--engine", "vllm"});
    CHECK(vl.rc == 0);
    CHECK(vl.out.find("On ") == std::string::npos);

    auto bad = run_cli({"explain", "T1", "--engine", "tgi"});
    CHECK(bad.rc == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("explain: an unknown name exits 2 and lists the known ones", "[explain]") {
    auto r = run_cli({"explain", "T1", "T99", "preemption"});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    const auto& last = inferlint::tripwires().back();
    CHECK(
        r.err.starts_with(fmt::format("inferlint: unknown tripwire: T99, preemption (known: T1-{}, or a name: "
                                      "silent-preemption, ",
                                      last.id)));
    CHECK(r.err.find("client-server-mismatch, ") != std::string::npos);
    CHECK(r.err.find(std::string(last.slug) + ")") != std::string::npos);
    CHECK(count_of(r.err, "\n") == 1);
}

TEST_CASE("explain wraps to the terminal, never wider than 88", "[explain]") {
    auto narrow = run_cli({"explain", "T9"}, kNoEngine + "COLUMNS=50 ");
    REQUIRE(narrow.rc == 0);
    std::size_t widest = 0;
    for (const auto& line : lines_of(narrow.out)) {
        if (line.starts_with("    Check: ")) continue;
        widest = std::max(widest, line.size());
    }
    CHECK(widest <= 50);
    CHECK(widest > 40);

    for (const std::string env : {"COLUMNS=300 ", "-u COLUMNS "}) {  // a pipe and no COLUMNS: 88
        auto wide = run_cli({"explain"}, kNoEngine + env);
        REQUIRE(wide.rc == 0);
        widest = 0;
        for (const auto& line : lines_of(wide.out)) widest = std::max(widest, line.size());
        CHECK(widest <= 88);
        CHECK(widest > 80);
    }
}

// The docs show these commands and their verdict lines; run them on the recorded evidence.
// Wording may be refined, so a shown line must match a printed one in its tripwire, its
// status and every figure in it.
TEST_CASE("every example in the catalog prints the verdict the docs show", "[explain][docs][shared]") {
    REQUIRE_REFERENCE(root);
    const std::regex figure(R"([0-9][0-9,.]*[0-9]|[0-9])");
    for (const auto& t : inferlint::tripwires()) {
        for (const auto& ex : t.examples) {
            std::vector<std::string> args(ex.args.begin(), ex.args.end());
            std::string shown = fmt::format("inferlint {}", fmt::join(args, " "));
            auto r = run_cli(args, "cd " + testsupport::shell_quote(root.string()) + " && " + kNoEngine);
            if (r.rc == 2 && r.err.find("unknown command") != std::string::npos) {
                WARN("not yet built, skipped: " << shown);
                continue;
            }
            INFO(shown << "\nprinted:\n" << r.out << r.err);
            for (auto expected_view : ex.lines) {
                std::string expected(expected_view);
                std::string prefix = expected.substr(0, expected.find("  ") + 2);  // "[ T1] TRIPWIRE-FAILED  "
                std::vector<std::string> figures;
                for (auto it = std::sregex_iterator(expected.begin(), expected.end(), figure);
                     it != std::sregex_iterator(); ++it)
                    figures.push_back(it->str());
                bool found = false;
                for (const auto& line : lines_of(r.out)) {
                    found |= line.starts_with(prefix) &&
                             std::all_of(figures.begin(), figures.end(),
                                         [&](const std::string& f) { return line.find(f) != std::string::npos; });
                }
                INFO("expected a line like: " << expected);
                CHECK(found);
            }
        }
    }
}

TEST_CASE("explain --json: the catalog entries, for tools", "[explain]") {
    auto all = run_cli({"explain", "--json"});
    REQUIRE(all.rc == 0);
    auto doc = nlohmann::json::parse(all.out);
    REQUIRE(doc.size() == inferlint::tripwires().size());
    CHECK(doc[0]["tripwire"] == "T1");
    CHECK(doc[0]["slug"] == "silent-preemption");
    CHECK(doc[14]["tripwire"] == "T15");
    CHECK(doc[15]["tripwire"] == "T16");
    CHECK(doc[15]["slug"] == "prefix-cache-hits");
    CHECK(doc[0]["engines"].contains("sglang"));
    CHECK(doc[0]["engines"].contains("trtllm"));
    auto one = run_cli({"explain", "falling-ceiling", "--engine", "sglang", "--json"});
    REQUIRE(one.rc == 0);
    auto t9 = nlohmann::json::parse(one.out);
    REQUIRE(t9.size() == 1);
    CHECK(t9[0]["tripwire"] == "T9");
    CHECK(t9[0]["engines"].size() == 1);
    CHECK(t9[0]["command"].get<std::string>().starts_with("inferlint series"));
    auto bad = run_cli({"explain", "T99", "--json"});
    CHECK(bad.rc == 2);
    CHECK(bad.out.empty());
}
