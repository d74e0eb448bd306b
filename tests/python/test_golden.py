"""The checks on the Python tool's recorded evidence, through the module, against the figures
the Python tool itself gave on it (../shared/reference/golden: one command line per file, with
its --json output). Tripwires, statuses and evidence must agree (numbers to 1e-6 relative);
boot facts must agree field by field."""

from __future__ import annotations

import json
import math
import pathlib

import pytest

from inferlint import CheckResult, bootlog, checks, series, telemetry
from conftest import REFERENCE

COMMANDS = ("boot-facts", "check-log", "preemption", "rate", "series")


def _cases() -> list[str]:
    golden = REFERENCE / "golden"
    if not golden.is_dir():
        return ["(no reference)"]
    return sorted(p.name for p in golden.glob("*.json") if json.loads(p.read_text())["argv"][0] in COMMANDS)


def agree(ours: object, ref: object, where: str = "") -> str | None:
    """None when ours agrees with the reference's value, else where it does not."""
    if isinstance(ref, bool) or ref is None or isinstance(ref, str):
        return None if ours == ref and type(ours) is type(ref) else f"{where}: {ours!r} != {ref!r}"
    if isinstance(ref, (int, float)):
        if isinstance(ours, bool) or not isinstance(ours, (int, float)):
            return f"{where}: {ours!r} != {ref!r}"
        if math.isnan(ref) and math.isnan(ours):
            return None
        close = abs(ours - ref) <= 1e-6 * max(abs(ours), abs(ref)) or abs(ours - ref) <= 1e-9
        return None if close else f"{where}: {ours!r} != {ref!r}"
    if isinstance(ref, list):
        if not isinstance(ours, (list, tuple)) or len(ours) != len(ref):
            return f"{where}: {ours!r} != {ref!r}"
        for i, (x, y) in enumerate(zip(ours, ref)):
            if (d := agree(x, y, f"{where}[{i}]")) is not None:
                return d
        return None
    if isinstance(ref, dict):
        if not isinstance(ours, dict) or set(ours) != set(ref):
            return f"{where}: keys differ: {sorted(set(ours) ^ set(ref)) if isinstance(ours, dict) else ours!r}"
        for k in ref:
            if (d := agree(ours[k], ref[k], f"{where}.{k}")) is not None:
                return d
        return None
    return None if ours == ref else f"{where}: {ours!r} != {ref!r}"


def _options(argv: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Positional arguments, and each --option's values."""
    positional: list[str] = []
    options: dict[str, list[str]] = {}
    it = iter(argv[1:])
    for a in it:
        if a.startswith("--"):
            options.setdefault(a, []).append(next(it))
        else:
            positional.append(a)
    return positional, options


def _facts(options: dict[str, list[str]]):
    return bootlog.parse_file(options["--boot-log"][0]) if "--boot-log" in options else None


def _check_log(paths: list[str]) -> list[CheckResult]:
    facts = [bootlog.parse_file(p) for p in paths]
    out: list[CheckResult] = []
    for path, f in zip(paths, facts):
        out += [checks.check_boot_failure(pathlib.Path(path).read_text(errors="replace")),
                checks.check_block_size(f), checks.check_backend_honoured(f)]
        if (unparsed := checks.check_unparsed(f)) is not None:
            out.append(unparsed)
    if len(paths) > 1:
        labels = bootlog.labels(paths)
        out += checks.check_same_pool(facts, labels) + checks.check_kv_memory_stable(facts, labels)
    return out


def _series(positional: list[str], options: dict[str, list[str]]) -> dict[str, CheckResult]:
    recording = series.read(positional[0])
    found: dict[str, CheckResult] = {}
    usable = None
    if "--snapshot" in options:
        t14 = checks.check_null_block(recording, telemetry.load(options["--snapshot"][0]))
        found["T14"] = t14
        if t14.status.value == "pass":
            usable = t14.evidence["inferred_usable_blocks"]
    found["T9"] = checks.concurrency_ceiling(recording, usable)
    if "--requested" in options:
        found["T8"] = checks.check_concurrency_reached(recording, int(options["--requested"][0]), _facts(options))
    return found


def ours_for(argv: list[str]) -> object:
    """The module's answer to one of the reference's command lines."""
    positional, options = _options(argv)
    command = argv[0]
    if command == "boot-facts":
        return bootlog.parse_file(positional[0]).to_json()
    if command == "check-log":
        return [r.to_json() for r in _check_log(positional)]
    before, after = (telemetry.load(p) for p in positional[:2]) if command != "series" else (None, None)
    if command == "preemption":
        recording = series.read(options["--series"][0]) if "--series" in options else None
        return [checks.check_no_preemption(before, after, recording, _facts(options)).to_json()]
    if command == "rate":
        return [checks.precise_rate(before, after).to_json()]
    return {k: r.to_json() for k, r in _series(positional, options).items()}


@pytest.mark.parametrize("case", _cases())
def test_module_agrees_with_the_python_tool(case, reference, monkeypatch):
    doc = json.loads((reference / "golden" / case).read_text())
    monkeypatch.chdir(reference / "fixtures")  # the command lines' paths are relative to it
    ours = ours_for(doc["argv"])
    want = doc["json"]
    if isinstance(ours, dict) and doc["argv"][0] == "series":  # the CLI prints a chosen few, in order
        missing = [r["tripwire"] for r in want if r["tripwire"] not in ours]
        assert not missing, f"no result for {missing}"
        ours = [ours[r["tripwire"]] for r in want]
    if isinstance(want, list):
        assert [(r["tripwire"], r["status"]) for r in ours] == [(r["tripwire"], r["status"]) for r in want]
        for i, (mine, theirs) in enumerate(zip(ours, want)):
            assert agree(mine["evidence"], theirs["evidence"], f"[{i}:{theirs['tripwire']}].evidence") is None
    else:
        assert agree(ours, want) is None


def test_messages_of_the_live_run_are_the_python_tools(reference):
    """What a harness prints: the messages of the 0.28 run, word for word."""
    run = reference / "fixtures" / "vllm-0.28" / "live"
    before, after = telemetry.load(run / "before.snapshot.json"), telemetry.load(run / "after.snapshot.json")
    recording = series.read(run / "run.series.jsonl")
    assert checks.check_no_preemption(before, after).message == "22 preemptions during the run"
    rate = checks.precise_rate(before, after)
    assert rate.message == "341.44 tokens/s over 93.720s"
    assert checks.with_timer_comparison(rate).message == (
        "341.44 tokens/s over 93.720s; an integer-second timer would say 344.09 (+0.77%)")
    t14 = checks.check_null_block(recording, after)
    assert t14.message == "gauge denominator is 42 = num_gpu_blocks (43) - 1 null block"
    assert checks.check_concurrency_reached(recording, 32).message == (
        "requested 32 concurrent, server never ran more than 10")
