from collections.abc import Iterable
from os import PathLike
from typing import Any

from . import benchresult as benchresult
from . import bootlog as bootlog
from . import checks as checks
from . import series as series
from . import telemetry as telemetry
from .errors import InputError as InputError
from .errors import ServerRestarted as ServerRestarted
from .result import LABELS as LABELS
from .result import CheckResult as CheckResult
from .result import Status as Status
from .result import TripwireFailed as TripwireFailed

__version__: str

def run(
    folder: str | PathLike[str],
    *,
    requested: int | None = None,
    engine: str | None = None,
    unique_prompts: str | None = None,
) -> list[CheckResult]: ...
def compare(
    a_runs: Iterable[str | PathLike[str]],
    b_runs: Iterable[str | PathLike[str]],
    *,
    name_a: str = "A",
    name_b: str = "B",
    paired: bool = False,
    seed: int = 1,
    resamples: int = 4000,
    require_gain: dict[str, float] | None = None,
    floor: float | tuple[str, float] | None = None,
    max_spread: float | tuple[str, float] | None = None,
    engine: str | None = None,
) -> dict[str, Any]: ...
