from collections.abc import Sequence
from os import PathLike
from typing import Any

class Unparsed:
    field: str
    lineno: int
    line: str

class BootFacts:
    engine: str | None
    vllm_version: str | None
    engine_version: str | None
    server_version: str | None
    non_default_args: dict[str, Any] | None
    server_args: dict[str, Any] | None
    page_size: int | None
    running_cap: int | None
    running_cap_reason: str | None
    requested_running: int | None
    requested_backend: str | None
    selected_backends: list[str]
    drafter_backends: list[str]
    candidate_backends: tuple[str, ...]
    attention_block_size: int | None
    mamba_page_padding_pct: float | None
    kv_pool_tokens: int | None
    max_concurrency: float | None
    max_concurrency_request_len: int | None
    available_kv_cache_gib: float | None
    model_load_gib: float | None
    model_load_s: float | None
    cudagraphs: bool | None
    cudagraph_estimated_gib: float | None
    cudagraph_actual_gib: float | None
    cudagraph_mode_downgrade: tuple[str, str] | None
    consumed_gib: float | None
    peak_activation_gib: float | None
    compile_s: float | None
    compiled_fresh: bool | None
    pauses: int | None
    served_in_log: int | None
    speculative: bool | None
    ready: bool
    ready_lineno: int | None
    processes: dict[str, list[int]]
    unparsed: list[Unparsed]
    conflicts: dict[str, list[Any]]
    lines: int
    @property
    def version(self) -> str | None: ...
    @property
    def config_args(self) -> dict[str, Any] | None: ...
    def result_block(self) -> dict[str, Any]: ...
    def to_json(self) -> dict[str, Any]: ...

def parse(text: str, engine: str | None = None) -> BootFacts: ...
def parse_file(path: str | PathLike[str], engine: str | None = None) -> BootFacts: ...
def labels(paths: Sequence[str | PathLike[str]]) -> list[str]: ...
def strip_log_prefix(line: str) -> str: ...
def untested_version(facts: BootFacts) -> str | None: ...
