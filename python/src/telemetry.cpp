// telemetry: snapshots of a server's /metrics (inferlint.snapshot/1), read from a server
// or a file, and what two of them say (counter deltas, the span between them).
#include "convert.hpp"

#include "inferlint/parse/snapshot.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/util/error.hpp"

#include <cmath>
#include <stdexcept>

namespace inferlint::python {

namespace {

Snapshot make_snapshot(std::string url, std::string text, double t_wall, std::optional<long long> t_mono_ns,
                       std::optional<double> latency_s) {
    Snapshot s;
    s.url = std::move(url);
    s.text = std::move(text);
    s.t_wall = t_wall;
    s.t_mono_ns = t_mono_ns;
    s.latency_s = latency_s;
    s.source = s.url;
    return s;
}

prom::LabelFilter label_filter(const py::kwargs& labels) {
    prom::LabelFilter out;
    for (auto [k, v] : labels) out.emplace_back(k.cast<std::string>(), py::str(v).cast<std::string>());
    return out;
}

void bind_metrics(py::module_& m) {
    py::class_<prom::Metrics>(m, "Metrics",
                              "A snapshot's samples, looked up by name and a subset of labels (**labels).")
        .def(
            "names",
            [](const prom::Metrics& x) {
                py::set out;
                for (const auto& name : x.names()) out.add(py::str(name));
                return out;
            },
            "The distinct metric names.")
        .def("has", &prom::Metrics::has, py::arg("name"))
        .def(
            "total",
            [](const prom::Metrics& x, std::string_view name, const py::kwargs& labels) {
                return or_none(x.total(name, label_filter(labels)));
            },
            py::arg("name"), "The sum over the matching series (counters, count-like gauges), or None.")
        .def(
            "single",
            [](const prom::Metrics& x, std::string_view name, const py::kwargs& labels) {
                try {
                    return or_none(x.single(name, label_filter(labels)));
                } catch (const std::runtime_error& e) {
                    throw py::key_error(e.what());  // several series match: a LookupError, as the Python tool's
                }
            },
            py::arg("name"), "The value of exactly one matching series, or None; LookupError when several match.")
        .def(
            "info",
            [](const prom::Metrics& x, std::string_view name, const py::kwargs& labels) -> py::object {
                auto found = x.info(name, label_filter(labels));
                return found ? py::cast(*found) : py::none();
            },
            py::arg("name"), "The labels of an *_info series as a dict, or None.")
        .def("__len__", &prom::Metrics::size)
        .def("__contains__", &prom::Metrics::has);
}

void bind_snapshot(py::module_& m) {
    py::class_<Snapshot>(m, "Snapshot",
                         "One reading of a server's Prometheus metrics: the raw text and the time it was taken\n"
                         "(t_wall, seconds since the epoch; t_mono_ns, a monotonic clock; latency_s, the\n"
                         "request's latency, the reading's timing uncertainty). A bare .prom file has no clock:\n"
                         "t_wall is NaN and t_mono_ns None.")
        .def(py::init(&make_snapshot), py::arg("url"), py::arg("text"), py::arg("t_wall"),
             py::arg("t_mono_ns") = py::none(), py::arg("latency_s") = py::none())
        .def_readonly("url", &Snapshot::url)
        .def_readonly("text", &Snapshot::text)
        .def_readonly("t_wall", &Snapshot::t_wall)
        .def_readonly("t_mono_ns", &Snapshot::t_mono_ns)
        .def_readonly("latency_s", &Snapshot::latency_s)
        .def_property_readonly("metrics", &Snapshot::metrics, py::return_value_policy::reference_internal,
                               "The text's samples, parsed on first use (InputError when it is not Prometheus text).")
        .def(
            "names",
            [](const Snapshot& s) {
                // Parsing a malformed text throws InputError, which becomes inferlint.InputError.
                py::set out;
                for (const auto& name : s.metrics().names()) out.add(py::str(name));
                return out;
            },
            "The metric names in the text (raises InputError when the text is not Prometheus text).")
        .def(
            "to_json", [](const Snapshot& s) { return to_python(s.to_json()); },
            "The inferlint.snapshot/1 document as a dict.")
        .def(
            "save", [](const Snapshot& s, py::handle path) { s.save(path_of(path)); }, py::arg("path"),
            "Writes the inferlint.snapshot/1 document (indent 1), creating the folder.")
        .def_static(
            "from_json",
            [](py::handle doc) {
                std::string text = from_python(doc).dump();
                return snapshot_from_text(text, "<dict>");
            },
            py::arg("doc"), "A snapshot from an inferlint.snapshot/1 document (a dict); InputError if it is not one.")
        .def("__repr__", [](const Snapshot& s) {
            return "Snapshot(url=" + py::repr(py::str(s.url)).cast<std::string>() +
                   ", t_wall=" + py::repr(py::float_(s.t_wall)).cast<std::string>() + ")";
        });
}

}  // namespace

void bind_telemetry(py::module_& m) {
    m.attr("SCHEMA") = kSnapshotSchema;
    bind_metrics(m);
    bind_snapshot(m);
    m.def(
        "load", [](py::handle path) { return load_snapshot(path_of(path)); }, py::arg("path"),
        "Reads a snapshot file (inferlint.snapshot/1 JSON), or a bare Prometheus text file (no clock).\n"
        "Raises InputError naming the file when it is missing, empty, binary, truncated or of another schema.");
    m.def(
        "parse", [](const std::string& text, const std::string& source) { return snapshot_from_text(text, source); },
        py::arg("text"), py::arg("source") = "<text>",
        "A snapshot from text already read: a snapshot document or bare Prometheus text; `source`\n"
        "names it in errors.");
    m.def(
        "scrape",
        [](const std::string& base_url, std::optional<std::string> path, double timeout) {
            py::gil_scoped_release unlocked;
            return run::default_scraper().scrape(base_url, path, timeout);
        },
        py::arg("base_url"), py::kw_only(), py::arg("path") = py::none(), py::arg("timeout") = 10.0,
        "Reads the server's Prometheus metrics once, with the time of the reading. Without `path`,\n"
        "/metrics is read; where that is not Prometheus text (TensorRT-LLM), /prometheus/metrics is\n"
        "tried and remembered. Raises InputError naming the URL when the server cannot be read.");
    m.def(
        "span_s",
        [](const Snapshot& a, const Snapshot& b) {
            try {
                Span s = span_s(a, b);
                return py::make_tuple(s.seconds, s.uncertainty_s);
            } catch (const InputError&) {
                throw;
            } catch (const std::runtime_error& e) {
                throw py::value_error(e.what());
            }
        },
        py::arg("a"), py::arg("b"),
        "Seconds between two snapshots and their timing uncertainty, as a tuple. Raises ValueError\n"
        "when neither clock gives a span or the two disagree by over a second.");
    m.def(
        "counter_delta",
        [](const Snapshot& a, const Snapshot& b, const std::string& name, std::optional<std::string> witness,
           const py::kwargs& labels) {
            Deltas delta(a, b);
            auto value = delta(name, witness.value_or(""), label_filter(labels));
            if (delta.restart()) raise_restarted(*delta.restart());  // the Python tool raises it
            return or_none(value);
        },
        py::arg("a"), py::arg("b"), py::arg("name"), py::kw_only(), py::arg("witness") = py::none(),
        "after - before for a counter (summed over the label sets matching **labels); None when a\n"
        "snapshot lacks it. Raises ServerRestarted when a *_created stamp moved or the counter went down.");
    m.def(
        "created_changes",
        [](const Snapshot& a, const Snapshot& b) {
            py::list out;
            for (const auto& c : created_changes(a, b)) out.append(py::make_tuple(c.name, c.before, c.after));
            return out;
        },
        py::arg("a"), py::arg("b"), "(name, before, after) for each *_created series whose value changed.");
}

}  // namespace inferlint::python
