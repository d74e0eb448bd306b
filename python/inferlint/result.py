"""Status, CheckResult and TripwireFailed: what every check returns, and what a failed one raises.

The same public names, fields and behaviour as the Python inferlint tool's ``result`` module,
so a harness written against that library runs unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["LABELS", "CheckResult", "Status", "TripwireFailed"]


class Status(str, Enum):
    """A verdict. ``.value`` is what ``--json`` writes and scripts read."""

    PASS = "pass"
    WARN = "warn"
    # The tripwire caught its problem (for T7 and T12: the server failed).
    FAIL = "fail"
    # Can't tell: an input was missing or could not be read. Never counted as a pass.
    UNKNOWN = "unknown"
    # The tripwire is about a behaviour this engine does not have (T14 off vLLM).
    NOT_APPLICABLE = "not_applicable"


# How the terminal prints each status.
LABELS: dict[Status, str] = {
    Status.PASS: "PASS",
    Status.WARN: "WARN",
    Status.FAIL: "TRIPWIRE-FAILED",
    Status.UNKNOWN: "????",
    Status.NOT_APPLICABLE: "N/A",
}


class TripwireFailed(AssertionError):
    """Raised by :meth:`CheckResult.raise_for_status`; ``.result`` is the result that raised."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(f"[{result.tripwire}] {LABELS[result.status]}: {result.message}")
        self.result = result


@dataclass(frozen=True)
class CheckResult:
    """One verdict: the tripwire's code ("T1"), its status, one line, and the evidence behind it
    as plain Python values (dicts, lists, numbers, strings, None)."""

    tripwire: str
    status: Status
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Pass, warn or does-not-apply: nothing here stops a run."""
        return self.status in (Status.PASS, Status.WARN, Status.NOT_APPLICABLE)

    def raise_for_status(self, *, allow_warn: bool = True, allow_unknown: bool = False) -> None:
        """Raise :class:`TripwireFailed` on a failed tripwire or a Can't tell (and on a warning
        with ``allow_warn=False``); return None otherwise."""
        stops = {Status.FAIL}
        if not allow_warn:
            stops.add(Status.WARN)
        if not allow_unknown:
            stops.add(Status.UNKNOWN)
        if self.status in stops:
            raise TripwireFailed(self)

    def to_json(self) -> dict[str, Any]:
        """The result as ``--json`` writes it."""
        return {
            "tripwire": self.tripwire,
            "status": self.status.value,
            "message": self.message,
            "evidence": self.evidence,
        }
