// The simdjson line reader reads every line as the reader before it did (a hand-written
// scanner with nlohmann behind it); these are the unusual lines a differential run of the
// two found, pinned.
#include "support.hpp"

#include "inferlint/parse/series.hpp"
#include "inferlint/util/error.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

using namespace inferlint;

namespace {

std::string line_error(const std::string& line) {
    try {
        (void)parse_sample_line(line);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("series line: NaN and Infinity read on a plain line only", "[series][parse]") {
    auto s = parse_sample_line(R"({"t_wall": NaN, "running": Infinity, "waiting": -Infinity})");
    REQUIRE(s);
    CHECK(std::isnan(s->t_wall));
    CHECK(*s->running == HUGE_VAL);
    CHECK(*s->waiting == -HUGE_VAL);
    // beside a string, nesting or an escaped key the line was never plain: skipped
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "running": NaN, "s": "x"})"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "running": NaN, "x": [1]})"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "r\u0075nning": NaN})"));
    CHECK_FALSE(parse_sample_line("{\"t_wall\": 1,\r\"running\": NaN}"));
    // a key it does not know: -Infinity is read past, NaN and Infinity are not
    CHECK(parse_sample_line(R"({"t_wall": 1, "x": -Infinity})"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "x": NaN})"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "x": Infinity})"));
    // never a t_mono_ns
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "t_mono_ns": NaN})"));
}

TEST_CASE("series line: what is not JSON is skipped, numbers out of range too", "[series][parse]") {
    for (const char* bad : {R"({"t_wall": 1, "running": 01})",
                            R"({"t_wall": 1, "running": 1.})",
                            R"({"t_wall": 1, "running": -.5})",
                            R"({"t_wall": 1, "x": 1abc})",
                            R"({"t_wall": 1, "x": 1, "y": -})",
                            R"({"t_wall": 1, "running": 1e400})",
                            R"({"t_wall": 1, "x": [1, 2}, "running": 2})",
                            R"({"t_wall": 1, "x": [1, tru]})",
                            R"({"t_wall": 1, "x": "a\qb"})",
                            R"({"t_wall": 1, "x": "\ud800"})",
                            R"({"t_wall": 1} x)",
                            R"({"t_wall": 1}})",
                            R"({"t_wall": 1,})",
                            R"({"t_wall" 1})",
                            R"({"t_wall": 1, "running": nulx})",
                            R"({"t_wall": 1, "running": 2 3})",
                            "[1, 2]",
                            "5",
                            "null",
                            "{\"t_wall\": 1, \"x\": \"a\tb\"}",
                            "{\"t_wall\": 1, \"\xff\": 2}"}) {
        INFO(bad);
        CHECK_FALSE(parse_sample_line(bad));
    }
}

TEST_CASE("series line: valid but unusual lines", "[series][parse]") {
    // escaped keys, nesting under a key it does not know, the last of repeated keys
    auto esc = parse_sample_line(R"({"t_w\u0061ll": 7, "r\u0075nning": 2, "x": {"a": [1, {"b": null}]}})");
    REQUIRE(esc);
    CHECK(esc->t_wall == 7);
    CHECK(esc->running == 2.0);
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "running": 1, "running": null})")->running);
    CHECK(parse_sample_line(R"({"t_wall": 1, "running": "a", "running": 3})")->running == 3.0);
    CHECK(parse_sample_line(R"({"t_wall": null, "t_wall": 2})")->t_wall == 2);
    // big integers: a gauge as a double, t_mono_ns past INT64_MAX wrapping as before
    CHECK(*parse_sample_line(R"({"t_wall": 1, "running": 123456789012345678901234567890})")->running ==
          123456789012345678901234567890.0);
    CHECK(parse_sample_line(R"({"t_wall": 1, "t_mono_ns": 18446744073709551615})")->t_mono_ns == -1);
    CHECK(parse_sample_line(R"({"t_wall": 1, "t_mono_ns": -9223372036854775808})")->t_mono_ns == INT64_MIN);
    CHECK(parse_sample_line(R"({"t_wall": 1, "t_mono_ns": 1.9e9})")->t_mono_ns == 1900000000);
    // a byte-order mark, a NUL after the object (taken for the end of the line)
    CHECK(parse_sample_line("\xEF\xBB\xBF{\"t_wall\": 3}")->t_wall == 3);
    CHECK(parse_sample_line(std::string("{\"t_wall\": 4} \0junk", 19))->t_wall == 4);
    CHECK_FALSE(parse_sample_line(std::string("{\"t_wall\": 1, \"a\0b\": 2}", 23)));
    // a numeric "schema" on a plain line is a sample, as it always was
    CHECK(parse_sample_line(R"({"t_wall": 1, "running": 2, "schema": 5})")->running == 2.0);
}

TEST_CASE("series line: a field of the wrong type is named, t_wall first", "[series][parse]") {
    CHECK(line_error(R"({"t_wall": 1, "waiting": "x", "running": "y"})") == "\"running\" is not a number");
    CHECK(line_error(R"({"t_wall": 1, "running": 2, "t_mono_ns": 1e30, "waiting": "x"})") ==
          "\"t_mono_ns\" is not a whole number");
    CHECK(line_error(R"({"t_wall": 1, "t_mono_ns": 123456789012345678901234567890})") ==
          "\"t_mono_ns\" is not a whole number");
    CHECK(line_error(R"({"t_wall": 1, "t_mono_ns": "5"})") == "\"t_mono_ns\" is not a whole number");
    CHECK(line_error(R"({"t_wall": true})") == "\"t_wall\" is not a number");
    CHECK(line_error(R"({"t_wall": 1, "t_wall": null})") == "a sample without \"t_wall\"");
    CHECK(line_error("{}") == "a sample without \"t_wall\"");
    CHECK(line_error(R"({"t_wall": 1, "running": {"a": 1}})") == "\"running\" is not a number");
}

TEST_CASE("series file: a header with a string schema, a cut line and a CRLF file", "[series][parse]") {
    std::string text =
        "{\"schema\": \"inferlint.series/1\", \"engine\": \"sglang\"}\r\n"
        "{\"t_wall\": 1.5, \"running\": 2}\r\n"
        "{\"t_wall\": 2.5, \"running\": 3}\r\n"
        "{\"t_wall\": 3.5, \"runn";
    Series s = series_from_text(text, "crlf");
    CHECK(s.engine_key == "sglang");
    REQUIRE(s.samples.size() == 2);
    CHECK(s.samples[1].running == 3.0);
    CHECK(s.skipped_lines == 1);
    // a numeric schema with no plain sample around it is a header of the wrong schema
    CHECK_THROWS_AS(series_from_text("{\"schema\": 5}\n", "num"), InputError);
}

namespace {

std::string deep_arrays(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

// levels objects, each the "a" of the one around it, the innermost {}; colon: what
// follows each key.
std::string deep_objects(int levels, const char* colon = ": ") {
    std::string text;
    for (int i = 1; i < levels; ++i) text += std::string("{\"a\"") + colon;
    text += "{}";
    return text + std::string(levels - 1, '}');
}

std::string deep_file_error(const std::string& text) {
    try {
        (void)series_from_text(text, "deep");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

// A field of the line's object is at level 1, so the line itself nests one level more.
TEST_CASE("series line: a value nested 1,024 levels is read, one level more skips the line", "[series][parse]") {
    CHECK(parse_sample_line(R"({"t_wall": 1, "x": )" + deep_arrays(1024) + "}"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "x": )" + deep_arrays(1025) + "}"));
    CHECK(parse_sample_line(R"({"t_wall": 1, "x": )" + deep_objects(1024) + "}"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "x": )" + deep_objects(1025) + "}"));
    // under one of the sample's own keys: the wrong type, until it is too deep to be JSON
    CHECK(line_error(R"({"t_wall": 1, "running": )" + deep_arrays(1024) + "}") == "\"running\" is not a number");
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "running": )" + deep_arrays(1025) + "}"));
    // far deeper than any stack would hold a call a level
    CHECK_FALSE(parse_sample_line(R"({"t_wall": 1, "x": )" + deep_arrays(200000) + "}"));
    CHECK_FALSE(parse_sample_line(R"({"t_wall": )" + deep_objects(200000) + "}"));
}

TEST_CASE("series file: a schema that is not a string is named as nlohmann writes it, however deep",
          "[series][parse]") {
    const std::string odd =
        R"([1, 2.5, "x\"y", {"b\u00e9": [true, null, {}], "a": []}, -0.0, 1e300, 18446744073709551615])";
    CHECK(deep_file_error("{\"schema\": " + odd + "}\n") ==
          "deep: line 1: schema " + Json::parse(odd).dump() + ", not a series recording (inferlint.series/1)");
    CHECK(deep_file_error("{\"schema\": " + deep_arrays(1024) + "}\n") ==
          "deep: line 1: schema " + deep_arrays(1024) + ", not a series recording (inferlint.series/1)");
    CHECK(deep_file_error("{\"schema\": " + deep_objects(1024) + "}\n") ==
          "deep: line 1: schema " + deep_objects(1024, ":") + ", not a series recording (inferlint.series/1)");
    CHECK_THAT(deep_file_error("{\"schema\": " + deep_arrays(1025) + "}\n"),
               Catch::Contains("no inferlint.series/1 header"));
    // a header nested as deep as a line may be is kept
    Series s = series_from_text(
        "{\"schema\": \"inferlint.series/1\", \"x\": " + deep_objects(1024) + "}\n{\"t_wall\": 1.5, \"running\": 2}\n",
        "deep");
    CHECK(s.samples.size() == 1);
    CHECK(s.header.contains("x"));
}
