#include "inferlint/util/pyfloat.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using inferlint::util::py_float_repr;

TEST_CASE("py_float_repr: positional from 1e-4 up to 1e16, as Python's repr switches", "[pyfloat]") {
    CHECK(py_float_repr(0.0001) == "0.0001");
    CHECK(py_float_repr(0.00012345) == "0.00012345");
    CHECK(py_float_repr(0.000012345) == "1.2345e-05");
    CHECK(py_float_repr(9999999999999998.0) == "9999999999999998.0");
    CHECK(py_float_repr(1e16) == "1e+16");
    CHECK(py_float_repr(1.5e300) == "1.5e+300");
    CHECK(py_float_repr(5e-324) == "5e-324");
}

TEST_CASE("py_float_repr: whole numbers keep .0, and the shortest digits read back", "[pyfloat]") {
    CHECK(py_float_repr(100.0) == "100.0");
    CHECK(py_float_repr(-7.25) == "-7.25");
    CHECK(py_float_repr(0.1 + 0.2) == "0.30000000000000004");
    CHECK(py_float_repr(0.9523809523809523) == "0.9523809523809523");
    CHECK(py_float_repr(0.0) == "0.0");
    CHECK(py_float_repr(-0.0) == "-0.0");
}

TEST_CASE("py_float_repr: NaN and the infinities as repr prints them, a NaN's sign dropped", "[pyfloat]") {
    CHECK(py_float_repr(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(py_float_repr(-std::numeric_limits<double>::infinity()) == "-inf");
    CHECK(py_float_repr(std::nan("")) == "nan");
    CHECK(py_float_repr(-std::nan("")) == "nan");
}
