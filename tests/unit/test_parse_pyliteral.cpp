#include "inferlint/parse/pyliteral.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace inferlint;
using parse::parse_py_literal;

TEST_CASE("pyliteral: a vLLM non-default args dict", "[pyliteral]") {
    auto v = parse_py_literal(
        "{'model_tag': '/models/Q', 'host': '127.0.0.1', 'max_model_len': 16384, 'enforce_eager': True, "
        "'served_model_name': ['qwen38'], 'gpu_memory_utilization': 0.93, 'speculative_config': "
        "{'method': 'mtp', 'num_speculative_tokens': 3}, 'x': None, 'bs': (1, 2), 'one': (7,)}");
    REQUIRE(v);
    CHECK((*v)["max_model_len"] == 16384);
    CHECK((*v)["enforce_eager"] == true);
    CHECK((*v)["gpu_memory_utilization"].get<double>() == 0.93);
    CHECK((*v)["served_model_name"] == Json::array({"qwen38"}));
    CHECK((*v)["speculative_config"]["num_speculative_tokens"] == 3);
    CHECK((*v)["x"].is_null());
    CHECK((*v)["bs"] == Json::array({1, 2}));
    CHECK((*v)["one"] == Json::array({7}));
    // key order is kept, as Python dicts keep it
    CHECK(v->begin().key() == "model_tag");
}

TEST_CASE("pyliteral: strings with quotes, commas, brackets and escapes stay whole", "[pyliteral]") {
    auto v = parse_py_literal(
        R"({'a': "it's, [not] {split}", 'b': 'tab\there\n', 'c': '\x41\u00e9', 'd': r'\d+', 'e': 'x' 'y'})");
    REQUIRE(v);
    CHECK((*v)["a"] == "it's, [not] {split}");
    CHECK((*v)["b"] == "tab\there\n");
    CHECK((*v)["c"] == "A\xC3\xA9");
    CHECK((*v)["d"] == "\\d+");
    CHECK((*v)["e"] == "xy");
}

TEST_CASE("pyliteral: numbers as Python reads them", "[pyliteral]") {
    CHECK(*parse_py_literal("-3") == -3);
    CHECK(parse_py_literal("1e-05")->get<double>() == 1e-05);
    CHECK(*parse_py_literal("0x10") == 16);
    CHECK(*parse_py_literal("1_000") == 1000);
    CHECK(parse_py_literal(".5")->get<double>() == 0.5);
    CHECK(*parse_py_literal("{1: 'a', True: 'b', None: 'c'}") == Json{{"1", "a"}, {"true", "b"}, {"null", "c"}});
}

TEST_CASE("pyliteral: what is not a literal is refused", "[pyliteral]") {
    parse::PyLiteralError err;
    CHECK_FALSE(parse_py_literal("{'max_num_seqs': 3", &err));
    CHECK(err.offset > 0);
    CHECK_FALSE(parse_py_literal("{'a': <AttentionBackendEnum.X: 1>}"));
    CHECK_FALSE(parse_py_literal("{'a': foo}"));
    CHECK_FALSE(parse_py_literal("'unterminated"));
    CHECK_FALSE(parse_py_literal("[1, 2] extra"));
    CHECK_FALSE(parse_py_literal(""));
}

TEST_CASE("pyliteral: 100,000 nested brackets are refused without recursion", "[pyliteral]") {
    std::string deep(100000, '[');
    deep += std::string(100000, ']');
    parse::PyLiteralError err;
    CHECK_FALSE(parse_py_literal(deep, &err));
    CHECK(err.what == "nested too deeply");
    std::string ok = std::string(50, '[') + std::string(50, ']');
    CHECK(parse_py_literal(ok));
}

TEST_CASE("pyliteral: repr as Python prints it", "[pyliteral]") {
    CHECK(parse::py_repr(Json::array({"flashinfer"})) == "['flashinfer']");
    CHECK(parse::py_repr(Json{{"APIServer", {3235}}}) == "{'APIServer': [3235]}");
    CHECK(parse::py_repr(Json("it's")) == "\"it's\"");
    CHECK(parse::py_repr(Json(true)) == "True");
    CHECK(parse::py_repr(Json(nullptr)) == "None");
    CHECK(parse::py_float_repr(112.662348) == "112.662348");
    CHECK(parse::py_float_repr(1.0) == "1.0");
    CHECK(parse::py_float_repr(1e-05) == "1e-05");
    CHECK(parse::py_float_repr(1e16) == "1e+16");
    CHECK(parse::py_float_repr(123456789012345.0) == "123456789012345.0");
    CHECK(parse::py_float_repr(0.0001) == "0.0001");
}
