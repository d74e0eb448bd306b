"""The Python tool's README example ("Use it from Python"), run as its users wrote it, against
the recorded vLLM 0.28 run: its two snapshots served over HTTP as the server served them, the
benchmark between the scrapes replaced by the switch from the first to the second."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import threading

import pytest

import inferlint

# The example, word for word but for the benchmark line (and `url`, set by the test).
EXAMPLE_CHECK = """
from inferlint import bootlog, checks, telemetry

before = telemetry.scrape(url)
run_the_benchmark()  # your benchmark
after = telemetry.scrape(url)

result = checks.check_no_preemption(before, after)
print(result.status.value, result.message)  # fail 22 preemptions during the run
result.raise_for_status()  # raises TripwireFailed on a failed tripwire or a Can't tell
"""
EXAMPLE_BOOT = """
facts = bootlog.parse_file("boot.log")
print(facts.attention_block_size, facts.kv_pool_tokens)  # 784 26093
record = {"boot": facts.result_block()}  # pool, block size, backend: keep with your results
"""


class _Metrics(http.server.BaseHTTPRequestHandler):
    text = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = type(self).text.encode()
        self.send_response(200 if self.path == "/metrics" else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorded_server(reference):
    run = reference / "fixtures" / "vllm-0.28" / "live"
    texts = [json.loads((run / f"{n}.snapshot.json").read_text())["text"] for n in ("before", "after")]

    class Handler(_Metrics):
        text = texts[0]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield run, f"http://127.0.0.1:{server.server_address[1]}", lambda: setattr(Handler, "text", texts[1])
    finally:
        server.shutdown()
        server.server_close()


def test_readme_example_prints_what_the_python_tool_prints(recorded_server, monkeypatch):
    run, url, switch = recorded_server
    monkeypatch.chdir(run)
    scope: dict[str, object] = {"url": url, "run_the_benchmark": switch}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with pytest.raises(inferlint.TripwireFailed) as raised:
            exec(EXAMPLE_CHECK, scope)
        exec(EXAMPLE_BOOT, scope)
    assert out.getvalue() == "fail 22 preemptions during the run\n784 26093\n"
    assert str(raised.value) == "[T1] TRIPWIRE-FAILED: 22 preemptions during the run"
    assert raised.value.result.evidence == {
        "engine": "vllm",
        "series": "vllm:num_preemptions_total",
        "preemptions": 22.0,
    }
    record = scope["record"]
    assert record == {
        "boot": {
            "engine": "vllm",
            "runtime_version": "0.28.0",
            "kv_pool_tokens": 26093,
            "attention_block_size": 784,
            "backend_requested": None,
            "backend_selected": "FLASH_ATTN",
            "drafter_backend": None,
            "available_kv_cache_gib": 2.09,
            "cudagraph_actual_gib": 0.18,
            "cudagraphs": True,
            "speculative": False,
            "unparsed_lines": 0,
        }
    }
    # The scrapes carry their own clocks, as the Python tool's do.
    before, after = scope["before"], scope["after"]
    assert before.url == url + "/metrics" and before.t_mono_ns < after.t_mono_ns
    assert before.latency_s is not None and before.latency_s >= 0
