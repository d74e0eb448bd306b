"""The exceptions the C++ core's errors become in Python."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["InputError", "ServerRestarted"]


class InputError(ValueError, OSError):
    """Bad input: a file that is missing, empty, binary, truncated or of another schema, or a
    server that cannot be read. ``str(e)`` is the one line the CLI prints after
    ``inferlint: `` (and it exits 2): it names the file or URL, and the line where one is at fault.

    Both a ValueError and an OSError, so the ``except`` clauses written for the Python tool
    still catch it: it raised OSError for a file or server it could not read
    (FileNotFoundError, URLError) and ValueError for one it could not parse.
    """


class ServerRestarted(RuntimeError):
    """Two snapshots came from different server processes, so their deltas mean nothing.
    ``.evidence`` says what showed it (a ``*_created`` stamp that moved, a counter that fell)."""

    def __init__(self, message: str, evidence: Mapping[str, Any]) -> None:
        super().__init__(message)
        self.evidence = dict(evidence)
