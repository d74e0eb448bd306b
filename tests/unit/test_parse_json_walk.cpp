// nlohmann documents walked without recursion (parse/json_walk.hpp): the same text as
// dump() and the same document as a copy, at any depth.
#include "support.hpp"

#include "parse/json_walk.hpp"
#include "inferlint/parse/series_digest.hpp"
#include "inferlint/util/files.hpp"

#include <unistd.h>

using namespace inferlint;
namespace fs = std::filesystem;

namespace {

// levels arrays, the innermost holding {"k": 1}: one level too deep for a series line's
// 1,024 to still be parsed here, by nlohmann, with no limit of its own.
std::string walk_deep_text(int levels) { return std::string(levels, '[') + R"({"k":1})" + std::string(levels, ']'); }

}  // namespace

TEST_CASE("json_walk: text is dump()'s and a copy is equal, for every kind of value", "[json][parse]") {
    const Json doc = Json::parse(
        R"({"b": [1, -2, 2.5, -0.0, 1e300, 18446744073709551615, "x\"y\u00e9\n", true, false, null, {}, []],
            "a": {"z": {"y": [[]]}, "\u0001": "\u001f"}, "": 0})");
    CHECK(json_walk::text(doc) == doc.dump());
    CHECK(json_walk::copy(doc) == doc);
    CHECK(json_walk::copy(doc).dump() == doc.dump());  // keys in the same order
    for (const Json& scalar : {Json(3), Json("s"), Json(nullptr), Json::object(), Json::array()}) {
        CHECK(json_walk::text(scalar) == scalar.dump());
        CHECK(json_walk::copy(scalar) == scalar);
    }
}

TEST_CASE("json_walk: a document 100,000 levels deep", "[json][parse]") {
    const std::string text = walk_deep_text(100000);
    const Json doc = Json::parse(text);  // nlohmann parses and frees without recursion
    CHECK(json_walk::text(doc) == text);
    CHECK(json_walk::text(json_walk::copy(doc)) == text);
}

TEST_CASE("json_walk: the report's reader keeps a header nested as deep as a line may be", "[series][parse]") {
    auto dir = testsupport::scratch_dir("json-walk-test");
    auto path = dir / "deep-header.series.jsonl";
    const std::string deep = std::string(1023, '[') + std::string(1023, ']');  // 1,024 levels with the line
    util::write_file(
        path, R"({"schema": "inferlint.series/1", "x": )" + deep + "}\n" + R"({"t_wall": 1.5, "running": 2})" + "\n");
    ChartSeries got = read_series_for_charts(path, 10, 4);
    CHECK(got.series.samples.size() == 1);
    CHECK(json_walk::text(got.series.header["x"]) == deep);
    CHECK(json_walk::text(got.summary.header["x"]) == deep);
    fs::remove_all(dir);
}
