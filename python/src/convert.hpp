// What crosses between the C++ core and Python: evidence JSON as plain Python values, a
// CheckResult as the package's own CheckResult dataclass (inferlint/result.py), optional
// values as None, and paths given as str or os.PathLike.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/result.hpp"
#include "inferlint/parse/snapshot.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace inferlint::python {

namespace py = pybind11;

// JSON -> dict, list, str, int, float, bool or None (insertion order kept).
py::object to_python(const Json& value);
// A plain Python value (dict with str keys, list, tuple, str, int, float, bool, None) -> JSON.
// Throws py::type_error for anything else.
Json from_python(py::handle value);

// The package's CheckResult, with its Status, for one result of the core.
py::object check_result(const CheckResult& result);
py::list check_results(const std::vector<CheckResult>& results);

// A str or os.PathLike as a path (os.fspath).
std::filesystem::path path_of(py::handle value);

// The engine a user named ("vllm", "SGLang", ...); nullptr for None; ValueError for an
// unknown name.
const Engine* engine_named(const std::optional<std::string>& key);

// An attribute of a module of the pure-Python package, looked up once and kept for the
// interpreter's life (never released: it outlives every call).
py::handle package_attr(const char* module, const char* name);

template <typename T>
py::object or_none(const std::optional<T>& v) {
    return v ? py::cast(*v) : py::none();
}

// The bindings of each public module, in python/src/<module>.cpp.
void register_errors();
// Raises telemetry.ServerRestarted (with its evidence) for a restart the core found.
[[noreturn]] void raise_restarted(const Restart& restart);
void bind_telemetry(py::module_& m);
void bind_bootlog(py::module_& m);
void bind_series(py::module_& m);
void bind_benchresult(py::module_& m);
void bind_checks(py::module_& m);
void bind_runs(py::module_& m);

}  // namespace inferlint::python
