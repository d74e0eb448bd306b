from collections.abc import Iterable
from os import PathLike
from typing import Any

SCHEMA: str

class Sample:
    t_wall: float
    t_mono_ns: int | None
    running: float | None
    waiting: float | None
    kv_usage: float | None
    preemptions: float | None
    generation_tokens: float | None
    prompt_tokens: float | None
    paused: float | None
    def __init__(
        self,
        t_wall: float,
        t_mono_ns: int | None,
        running: float | None,
        waiting: float | None,
        kv_usage: float | None,
        preemptions: float | None = None,
        generation_tokens: float | None = None,
        prompt_tokens: float | None = None,
        paused: float | None = None,
    ) -> None: ...

class Series:
    header: dict[str, Any]
    samples: tuple[Sample, ...]
    skipped_lines: int
    @property
    def engine(self) -> str: ...
    def peak_running(self) -> float | None: ...
    def busy(self) -> tuple[Sample, ...]: ...
    def kv_usages(self) -> list[float]: ...
    def __len__(self) -> int: ...

def read(path: str | PathLike[str]) -> Series: ...
def parse(text: str, source: str = "<text>") -> Series: ...
def from_samples(samples: Iterable[Sample], header: dict[str, Any] | None = None) -> Series: ...
