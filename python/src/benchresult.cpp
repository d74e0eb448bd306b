// benchresult: a load tool's own account of a run (vllm bench serve, SGLang's and
// TensorRT-LLM's benchmark clients), for T15 and T18. A field the file lacks is None.
#include "convert.hpp"

#include "inferlint/parse/benchresult.hpp"

namespace inferlint::python {

void bind_benchresult(py::module_& m) {
    py::class_<BenchResult>(m, "BenchResult", "The counts and latencies a load tool saved (None: not in the file).")
        .def_readonly("path", &BenchResult::path)
        .def_readonly("completed", &BenchResult::completed)
        .def_readonly("failed", &BenchResult::failed)
        .def_readonly("input_tokens", &BenchResult::input_tokens)
        .def_readonly("output_tokens", &BenchResult::output_tokens)
        .def_readonly("duration_s", &BenchResult::duration_s)
        .def_readonly("output_throughput", &BenchResult::output_throughput)
        .def_readonly("max_concurrency", &BenchResult::max_concurrency)
        .def_readonly("num_prompts", &BenchResult::num_prompts)
        .def_readonly("backend", &BenchResult::backend)
        .def_readonly("mean_ttft_ms", &BenchResult::mean_ttft_ms)
        .def_readonly("median_ttft_ms", &BenchResult::median_ttft_ms)
        .def_readonly("p99_ttft_ms", &BenchResult::p99_ttft_ms)
        .def_readonly("mean_tpot_ms", &BenchResult::mean_tpot_ms)
        .def_readonly("median_tpot_ms", &BenchResult::median_tpot_ms)
        .def_readonly("p99_tpot_ms", &BenchResult::p99_tpot_ms)
        .def_readonly("request_throughput", &BenchResult::request_throughput)
        .def_readonly("endpoint_type", &BenchResult::endpoint_type)
        .def_readonly("client", &BenchResult::client)
        .def("__repr__", [](const BenchResult& b) {
            return "BenchResult(path=" + py::repr(py::str(b.path)).cast<std::string>() +
                   ", completed=" + py::repr(or_none(b.completed)).cast<std::string>() +
                   ", output_tokens=" + py::repr(or_none(b.output_tokens)).cast<std::string>() + ")";
        });
    m.def(
        "load", [](py::handle path) { return load_bench_result(path_of(path)); }, py::arg("path"),
        "Reads a load tool's result file (one JSON document, or JSON lines of which the last counts).\n"
        "Raises InputError naming the file when it is missing, empty, binary, not JSON or holds none\n"
        "of the fields a load tool writes.");
    m.def(
        "parse", [](std::string_view text, const std::string& source) { return parse_bench_result(text, source); },
        py::arg("text"), py::arg("source") = "<text>", "The same from text already read.");
}

}  // namespace inferlint::python
