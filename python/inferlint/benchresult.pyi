from os import PathLike

class BenchResult:
    path: str
    completed: int | None
    failed: int | None
    input_tokens: int | None
    output_tokens: int | None
    duration_s: float | None
    output_throughput: float | None
    max_concurrency: int | None
    num_prompts: int | None
    backend: str | None
    mean_ttft_ms: float | None
    median_ttft_ms: float | None
    p99_ttft_ms: float | None
    mean_tpot_ms: float | None
    median_tpot_ms: float | None
    p99_tpot_ms: float | None
    request_throughput: float | None
    endpoint_type: str | None
    client: str | None

def load(path: str | PathLike[str]) -> BenchResult: ...
def parse(text: str, source: str = "<text>") -> BenchResult: ...
