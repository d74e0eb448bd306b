// inferlint._native: the C++ core's public modules for the pure-Python package around it
// (python/inferlint/). Each submodule is re-exported there under the reference's name.
#include "convert.hpp"

PYBIND11_MODULE(_native, m) {
    namespace ip = inferlint::python;
    m.doc() = "The inferlint C++ core (use the inferlint package, not this module).";
    ip::register_errors();
    auto telemetry = m.def_submodule("telemetry", "Snapshots of a server's /metrics.");
    ip::bind_telemetry(telemetry);
    auto bootlog = m.def_submodule("bootlog", "Boot log -> facts about the server that started.");
    ip::bind_bootlog(bootlog);
    auto series = m.def_submodule("series", "Gauge recordings (inferlint.series/1).");
    ip::bind_series(series);
    auto benchresult = m.def_submodule("benchresult", "A load tool's result file.");
    ip::bind_benchresult(benchresult);
    auto checks = m.def_submodule("checks", "The tripwires, each returning a CheckResult.");
    ip::bind_checks(checks);
    ip::bind_runs(m);
    m.attr("__version__") = INFERLINT_VERSION;
}
