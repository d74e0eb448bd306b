// bootlog: a server's start-up log -> the facts about the server that started, with the
// field names of the Python tool's BootFacts (its dataclass, one attribute per fact; None
// where the log did not say).
#include "convert.hpp"

#include "inferlint/parse/bootlog.hpp"

#include <map>

namespace inferlint::python {

namespace {

using parse::BootFacts;

py::object value_of(const std::string& v) { return py::str(v); }
py::object value_of(long long v) { return py::int_(v); }
py::object value_of(double v) { return py::float_(v); }
py::object value_of(bool v) { return py::bool_(v); }
py::object value_of(const Json& v) { return to_python(v); }
py::object value_of(const std::pair<std::string, std::string>& v) { return py::make_tuple(v.first, v.second); }
template <typename T>
py::object value_of(const std::optional<T>& v) {
    return v ? value_of(*v) : py::none();
}
py::object value_of(const std::vector<std::string>& v) {
    py::list out;
    for (const auto& s : v) out.append(s);
    return out;
}
py::object value_of(const std::map<std::string, std::vector<long long>>& v) {
    py::dict out;
    for (const auto& [name, pids] : v) out[py::str(name)] = py::cast(pids);
    return out;
}

// One read-only attribute per fact, converted on each read (facts are small).
#define INFERLINT_FACT(name) cls.def_property_readonly(#name, [](const BootFacts& f) { return value_of(f.name); })

void bind_facts(py::module_& m) {
    py::class_<parse::Unparsed>(m, "Unparsed", "A line whose anchor matched but whose value could not be read.")
        .def_readonly("field", &parse::Unparsed::field)
        .def_readonly("lineno", &parse::Unparsed::lineno)
        .def_readonly("line", &parse::Unparsed::line)
        .def("__repr__", [](const parse::Unparsed& u) {
            return "Unparsed(field=" + py::repr(py::str(u.field)).cast<std::string>() +
                   ", lineno=" + std::to_string(u.lineno) + ")";
        });
    py::class_<BootFacts> cls(m, "BootFacts",
                              "The facts a boot log states (None: the log did not say; never a default).");
    INFERLINT_FACT(engine);
    INFERLINT_FACT(vllm_version);
    INFERLINT_FACT(engine_version);
    INFERLINT_FACT(server_version);
    INFERLINT_FACT(non_default_args);
    INFERLINT_FACT(server_args);
    INFERLINT_FACT(page_size);
    INFERLINT_FACT(running_cap);
    INFERLINT_FACT(running_cap_reason);
    INFERLINT_FACT(requested_running);
    INFERLINT_FACT(requested_backend);
    INFERLINT_FACT(selected_backends);
    INFERLINT_FACT(drafter_backends);
    INFERLINT_FACT(attention_block_size);
    INFERLINT_FACT(mamba_page_padding_pct);
    INFERLINT_FACT(kv_pool_tokens);
    INFERLINT_FACT(max_concurrency);
    INFERLINT_FACT(max_concurrency_request_len);
    INFERLINT_FACT(available_kv_cache_gib);
    INFERLINT_FACT(model_load_gib);
    INFERLINT_FACT(model_load_s);
    INFERLINT_FACT(cudagraphs);
    INFERLINT_FACT(cudagraph_estimated_gib);
    INFERLINT_FACT(cudagraph_actual_gib);
    INFERLINT_FACT(cudagraph_mode_downgrade);
    INFERLINT_FACT(consumed_gib);
    INFERLINT_FACT(peak_activation_gib);
    INFERLINT_FACT(compile_s);
    INFERLINT_FACT(compiled_fresh);
    INFERLINT_FACT(pauses);
    INFERLINT_FACT(served_in_log);
    INFERLINT_FACT(speculative);
    INFERLINT_FACT(ready);
    INFERLINT_FACT(ready_lineno);
    INFERLINT_FACT(processes);
    INFERLINT_FACT(lines);
    cls.def_property_readonly("candidate_backends",
                              [](const BootFacts& f) { return py::tuple(py::cast(f.candidate_backends)); });
    cls.def_property_readonly("unparsed", [](const BootFacts& f) { return py::cast(f.unparsed); });
    cls.def_property_readonly("conflicts", [](const BootFacts& f) {
        py::dict out;
        for (const auto& [field, values] : f.conflicts) out[py::str(field)] = to_python(Json(values));
        return out;
    });
    cls.def_property_readonly(
        "version", [](const BootFacts& f) { return value_of(f.version()); },
        "The engine's version: from the log, else from the server.");
    cls.def_property_readonly(
        "config_args", [](const BootFacts& f) { return value_of(f.config_args()); },
        "The arguments that identify a start's configuration, for comparing starts.");
    cls.def(
        "result_block", [](const BootFacts& f) { return to_python(f.result_block()); },
        "The `boot` block of an rv.result/1 document: pool, block size, backends; keep it with results.");
    cls.def(
        "to_json", [](const BootFacts& f) { return to_python(to_json(f)); },
        "Every fact, keyed as the Python tool's dataclasses.asdict writes them (boot-facts --json).");
    cls.def("__repr__", [](const BootFacts& f) {
        return "BootFacts(engine=" + py::repr(value_of(f.engine)).cast<std::string>() +
               ", kv_pool_tokens=" + py::repr(value_of(f.kv_pool_tokens)).cast<std::string>() +
               ", attention_block_size=" + py::repr(value_of(f.attention_block_size)).cast<std::string>() +
               ", ready=" + (f.ready ? "True" : "False") + ")";
    });
}

#undef INFERLINT_FACT

}  // namespace

void bind_bootlog(py::module_& m) {
    bind_facts(m);
    m.def(
        "parse",
        [](std::string_view text, std::optional<std::string> engine) {
            const Engine* named = engine_named(engine);
            py::gil_scoped_release unlocked;
            return parse::parse_boot_log(text, named);
        },
        py::arg("text"), py::arg("engine") = py::none(),
        "The facts in a boot log's text. `engine` (\"vllm\", \"sglang\", \"trtllm\") is used when the log\n"
        "does not say which engine wrote it.");
    m.def(
        "parse_file",
        [](py::handle path, std::optional<std::string> engine) {
            const Engine* named = engine_named(engine);
            auto file = path_of(path);
            py::gil_scoped_release unlocked;
            return parse::parse_boot_log_file(file, named);
        },
        py::arg("path"), py::arg("engine") = py::none(),
        "The facts in a boot log file, read in pieces. Raises InputError naming the file when it is\n"
        "missing, a folder, empty or binary.");
    m.def(
        "labels",
        [](const py::sequence& paths) {
            std::vector<std::filesystem::path> ps;
            for (auto p : paths) ps.push_back(path_of(p));
            return parse::log_labels(ps);
        },
        py::arg("paths"), "Short distinct names for boot logs: the file name, with folders added until unique.");
    m.def(
        "strip_log_prefix", [](std::string_view line) { return std::string(parse::strip_log_prefix(line)); },
        py::arg("line"), "\"(EngineCore pid=3475) ERROR 09-05 23:33:11 [core.py:1348] msg\" -> \"msg\".");
    m.def(
        "untested_version", [](const BootFacts& f) { return or_none(parse::untested_version(f)); }, py::arg("facts"),
        "A warning when the log comes from a release inferlint was not tested on, else None.");
}

}  // namespace inferlint::python
