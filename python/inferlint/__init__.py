"""inferlint: checks an LLM inference server's benchmark run for the problems that make its
numbers wrong without an error (tripwires T1-T18), on the C++ core of the inferlint CLI.

    from inferlint import bootlog, checks, telemetry
    result = checks.check_no_preemption(telemetry.load("before.json"), telemetry.load("after.json"))
    result.raise_for_status()

Modules: telemetry, bootlog, series, benchresult, checks. Beyond the Python tool's library:
:func:`run` (a run folder's verdicts) and :func:`compare` (two arms of runs).
"""

from .result import LABELS, CheckResult, Status, TripwireFailed  # first: the core builds these
from .errors import InputError, ServerRestarted
from . import benchresult, bootlog, checks, series, telemetry
from ._native import __version__, compare, run

__all__ = [
    "LABELS",
    "CheckResult",
    "InputError",
    "ServerRestarted",
    "Status",
    "TripwireFailed",
    "__version__",
    "benchresult",
    "bootlog",
    "checks",
    "compare",
    "run",
    "series",
    "telemetry",
]
