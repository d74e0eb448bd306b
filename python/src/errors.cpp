// The core's exceptions as Python's: bad input (InputError, the one line the CLI prints
// after "inferlint: ") as inferlint.InputError, a ValueError; a restart between two
// snapshots (a value in the core: raise_restarted) as telemetry.ServerRestarted with its evidence. Anything else the core throws
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
        } catch (const InputError& e) {
            PyErr_SetString(package_attr("inferlint.errors", "InputError").ptr(), e.what());
        }
    });
}

void raise_restarted(const Restart& restart) {
    py::handle type = package_attr("inferlint.errors", "ServerRestarted");
    py::object err = type(restart.message, to_python(restart.evidence));
    PyErr_SetObject(type.ptr(), err.ptr());
    throw py::error_already_set();
}

}  // namespace inferlint::python
