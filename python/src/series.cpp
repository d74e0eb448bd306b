// series: gauge recordings (inferlint.series/1), read whole: the header, every sample, and
// the lines that were not JSON (skipped and counted, as a run killed mid-write leaves).
#include "convert.hpp"

#include "inferlint/parse/series.hpp"

namespace inferlint::python {

namespace {

SeriesSample make_sample(double t_wall, std::optional<long long> t_mono_ns, std::optional<double> running,
                         std::optional<double> waiting, std::optional<double> kv_usage,
                         std::optional<double> preemptions, std::optional<double> generation_tokens,
                         std::optional<double> prompt_tokens, std::optional<double> paused) {
    return SeriesSample{t_wall,      t_mono_ns,         running,       waiting, kv_usage,
                        preemptions, generation_tokens, prompt_tokens, paused};
}

void bind_sample(py::module_& m) {
    py::class_<SeriesSample>(m, "Sample", "One reading of the gauges; None: the server did not export that series.")
        .def(py::init(&make_sample), py::arg("t_wall"), py::arg("t_mono_ns"), py::arg("running"), py::arg("waiting"),
             py::arg("kv_usage"), py::arg("preemptions") = py::none(), py::arg("generation_tokens") = py::none(),
             py::arg("prompt_tokens") = py::none(), py::arg("paused") = py::none())
        .def_readonly("t_wall", &SeriesSample::t_wall)
        .def_readonly("t_mono_ns", &SeriesSample::t_mono_ns)
        .def_readonly("running", &SeriesSample::running)
        .def_readonly("waiting", &SeriesSample::waiting)
        .def_readonly("kv_usage", &SeriesSample::kv_usage)
        .def_readonly("preemptions", &SeriesSample::preemptions)
        .def_readonly("generation_tokens", &SeriesSample::generation_tokens)
        .def_readonly("prompt_tokens", &SeriesSample::prompt_tokens)
        .def_readonly("paused", &SeriesSample::paused)
        .def("__repr__", [](const SeriesSample& s) {
            return "Sample(t_wall=" + py::repr(py::float_(s.t_wall)).cast<std::string>() +
                   ", running=" + py::repr(or_none(s.running)).cast<std::string>() +
                   ", kv_usage=" + py::repr(or_none(s.kv_usage)).cast<std::string>() + ")";
        });
}

void bind_series_class(py::module_& m) {
    py::class_<Series>(m, "Series", "A whole recording: its header, its samples, and the lines skipped.")
        .def_property_readonly("header", [](const Series& s) { return to_python(s.header); })
        .def_property_readonly("samples", [](const Series& s) { return py::tuple(py::cast(s.samples)); })
        .def_readonly("skipped_lines", &Series::skipped_lines)
        .def_property_readonly(
            "engine", [](const Series& s) { return s.engine().key; },
            "The engine the recording came from (its header's; \"vllm\" if it names none).")
        .def(
            "peak_running", [](const Series& s) { return or_none(s.peak_running()); },
            "The most requests running in any sample, or None when no sample has the gauge.")
        .def(
            "busy",
            [](const Series& s) {
                py::list out;
                for (const auto& x : s.samples)
                    if (x.running && *x.running != 0) out.append(x);
                return py::tuple(out);
            },
            "The samples with requests running.")
        .def(
            "kv_usages",
            [](const Series& s) {
                py::list out;
                for (const auto& x : s.samples)
                    if (x.kv_usage && *x.kv_usage != 0) out.append(*x.kv_usage);
                return out;
            },
            "The non-zero KV usage readings, in order.")
        .def("__len__", [](const Series& s) { return s.samples.size(); })
        .def("__repr__", [](const Series& s) {
            return "Series(engine=" + py::repr(py::str(s.engine().key)).cast<std::string>() +
                   ", samples=" + std::to_string(s.samples.size()) +
                   ", skipped_lines=" + std::to_string(s.skipped_lines) + ")";
        });
}

}  // namespace

void bind_series(py::module_& m) {
    m.attr("SCHEMA") = kSeriesSchema;
    bind_sample(m);
    bind_series_class(m);
    m.def(
        "read",
        [](py::handle path) {
            auto file = path_of(path);
            py::gil_scoped_release unlocked;
            return read_series(file);
        },
        py::arg("path"),
        "Reads a recording whole. Lines that are not JSON are skipped and counted (skipped_lines).\n"
        "Raises InputError naming the file (and line) when it is missing, empty, binary, has no\n"
        "inferlint.series/1 header or another schema's, or a sample whose fields have the wrong types.");
    m.def(
        "parse", [](std::string_view text, const std::string& source) { return series_from_text(text, source); },
        py::arg("text"), py::arg("source") = "<text>", "A recording from text already read (same errors as read).");
    m.def(
        "from_samples",
        [](const py::iterable& samples, std::optional<py::dict> header) {
            Series s;
            for (auto x : samples) s.samples.push_back(x.cast<SeriesSample>());
            if (header) {
                s.header = from_python(*header);
                if (auto it = s.header.find("engine"); it != s.header.end() && it->is_string())
                    s.engine_key = it->get<std::string>();
            }
            return s;
        },
        py::arg("samples"), py::arg("header") = py::none(), "A Series made from samples (and a header) in memory.");
}

}  // namespace inferlint::python
