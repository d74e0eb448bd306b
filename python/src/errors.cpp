// The core's exceptions as Python's: bad input (InputError, the one line the CLI prints
// after "inferlint: ") as inferlint.InputError, a ValueError; a restart between two
// snapshots as telemetry.ServerRestarted with its evidence. Anything else the core throws
// becomes a Python exception too, never a crash of the interpreter.
#include "convert.hpp"

#include "inferlint/parse/snapshot.hpp"
#include "inferlint/util/error.hpp"

#include <new>
#include <stdexcept>

namespace inferlint::python {

void register_errors() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ServerRestarted& e) {
            py::object err = package_attr("inferlint.errors", "ServerRestarted")(e.what(), to_python(e.evidence));
            PyErr_SetObject(package_attr("inferlint.errors", "ServerRestarted").ptr(), err.ptr());
        } catch (const InputError& e) {
            PyErr_SetString(package_attr("inferlint.errors", "InputError").ptr(), e.what());
        }
    });
}

}  // namespace inferlint::python
