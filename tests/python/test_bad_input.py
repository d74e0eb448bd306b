"""Bad files through the module: missing, empty, truncated, binary, of another schema. Where the
CLI refuses a file (exit 2, "inferlint: <line>"), the module raises inferlint.InputError (a
ValueError) whose text is that same line; where the CLI reads it, the module reads it too. The
interpreter never crashes. The good files are the project's own simulator run."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

import inferlint
from inferlint import benchresult, bootlog, series, telemetry
from conftest import SIM_RUN

KINDS = ["missing", "empty", "truncated", "binary", "wrong-schema"]


def make_bad(kind: str, good: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    data = good.read_bytes()
    if kind == "empty":
        dest.write_bytes(b"")
    elif kind == "truncated":
        dest.write_bytes(data[: len(data) // 2])
    elif kind == "binary":
        dest.write_bytes(bytes(range(256)) * 64)
    elif kind == "wrong-schema":
        dest.write_text('{"schema": "something.else/7", "rows": [1, 2, 3]}\n')
    return dest  # "missing": never made


def _run_folder(bad: pathlib.Path) -> list:
    return inferlint.run(bad.parent)


# reader: (the module's call, the file it reads in the simulator run, the CLI's command line
# reading the same file in its place)
READERS = {
    "telemetry.load": (telemetry.load, "before.snapshot.json",
                       lambda f: ["preemption", f, str(SIM_RUN / "after.snapshot.json")]),
    "series.read": (series.read, "run.series.jsonl", lambda f: ["series", f]),
    "bootlog.parse_file": (bootlog.parse_file, "boot.log", lambda f: ["boot-facts", f]),
    "benchresult.load": (benchresult.load, "bench.json",
                         lambda f: ["client-counts", str(SIM_RUN / "before.snapshot.json"),
                                    str(SIM_RUN / "after.snapshot.json"), "--bench-result", f]),
    "inferlint.run": (_run_folder, "before.snapshot.json", lambda f: ["report", str(pathlib.Path(f).parent)]),
}


def _bad_file(reader: str, kind: str, tmp_path: pathlib.Path) -> pathlib.Path:
    name = READERS[reader][1]
    if reader == "inferlint.run":  # the whole run, one file of it bad
        folder = tmp_path / "run"
        shutil.copytree(SIM_RUN, folder)
        (folder / name).unlink()
        return make_bad(kind, SIM_RUN / name, folder / name)
    return make_bad(kind, SIM_RUN / name, tmp_path / name)


def _module_outcome(reader: str, path: pathlib.Path) -> str | None:
    """None when the module read the file; the InputError's text when it refused it."""
    try:
        READERS[reader][0](path)
    except inferlint.InputError as e:
        text = str(e)
        assert "\n" not in text, f"more than one line: {text!r}"
        return text
    return None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reader", sorted(READERS))
def test_bad_file_is_one_line_or_read(reader, kind, tmp_path):
    bad = _bad_file(reader, kind, tmp_path)
    refused = _module_outcome(reader, bad)
    if kind in ("missing", "empty", "binary") and reader != "inferlint.run":
        assert refused is not None, f"{reader} read a {kind} file"
    if refused is not None:
        assert str(bad.name) in refused or str(bad.parent) in refused, f"the file is not named: {refused}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reader", sorted(READERS))
def test_bad_file_is_refused_with_the_clis_line(reader, kind, tmp_path, cli):
    bad = _bad_file(reader, kind, tmp_path)
    argv = READERS[reader][2](str(bad))
    if argv[0] == "report":
        argv += ["-o", str(tmp_path / "report.html")]
    done = subprocess.run([str(cli), *argv], capture_output=True, text=True, timeout=60)
    refused = _module_outcome(reader, bad)
    if done.returncode == 2:
        errors = [line for line in done.stderr.splitlines() if line.startswith("inferlint: ")]
        assert errors, done.stderr
        assert refused == errors[-1][len("inferlint: "):]
    else:
        assert refused is None, f"the CLI read it (exit {done.returncode}), the module refused: {refused}"


def test_input_error_is_caught_where_the_python_tools_errors_were():
    assert issubclass(inferlint.InputError, ValueError) and issubclass(inferlint.InputError, OSError)
    with pytest.raises(OSError, match="no such file"):
        telemetry.load("/nonexistent/before.snapshot.json")
    with pytest.raises(ValueError, match="^cannot connect to http://127.0.0.1:1/metrics: nothing answers there"):
        telemetry.scrape("http://127.0.0.1:1", timeout=2)


def test_text_that_is_not_prometheus_is_refused_naming_its_source():
    with pytest.raises(inferlint.InputError, match="^junk.prom: line 1: not a Prometheus sample"):
        telemetry.parse('vllm:x{a="1" 2\n', source="junk.prom")
    with pytest.raises(inferlint.InputError, match="^junk.prom: binary data"):
        telemetry.parse("\x00\x01\x02", source="junk.prom")


def test_bad_arguments_raise_python_errors():
    with pytest.raises(TypeError):
        inferlint.checks.check_no_preemption("before.json", "after.json")
    with pytest.raises(ValueError, match="unknown engine"):
        bootlog.parse("", engine="nonesuch")
    with pytest.raises(ValueError, match="requested"):
        inferlint.run(SIM_RUN, requested=0)
    with pytest.raises(inferlint.InputError, match="no run files"):
        inferlint.run(SIM_RUN.parent)


MUTATE = r"""
import random, sys
from inferlint import benchresult, bootlog, checks, series, telemetry
run = sys.argv[1]
rng = random.Random(31)
readers = {
    "before.snapshot.json": lambda t: checks.check_no_preemption(telemetry.parse(t, "s"), telemetry.parse(t, "s")),
    "run.series.jsonl": lambda t: checks.concurrency_ceiling(series.parse(t, "r")),
    "boot.log": lambda t: (checks.check_block_size(bootlog.parse(t)), checks.check_boot_failure(t)),
    "bench.json": lambda t: benchresult.parse(t, "b"),
}
outcomes = {"read": 0, "refused": 0}
for name, read in readers.items():
    data = bytearray(open(f"{run}/{name}", "rb").read())
    for _ in range(150):
        d = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(d))
            d[i] = rng.randrange(256)
        d = d[: rng.randrange(len(d) + 1)] if rng.random() < 0.3 else d
        text = d.decode("utf-8", "replace")
        try:
            read(text)
            outcomes["read"] += 1
        except (ValueError, TypeError, RuntimeError, LookupError) as e:
            assert "\n" not in str(e).strip(), repr(str(e))
            outcomes["refused"] += 1
print(outcomes["read"], outcomes["refused"])
"""


def test_mutated_files_are_read_or_refused_never_a_crash():
    """600 copies of the simulator run's files with bytes changed and cut, in a child process
    (a crash would end it with a signal, not an exception)."""
    done = subprocess.run([sys.executable, "-c", MUTATE, str(SIM_RUN)], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    read, refused = map(int, done.stdout.split())
    assert read + refused == 600 and read > 0 and refused > 0
