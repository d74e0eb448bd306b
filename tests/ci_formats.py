#!/usr/bin/env python3
"""Every --format (text, json, junit, github, markdown) and --output-file, on real runs.

usage: tests/ci_formats.py BUILD_DIR

  - the recorded fixtures' run folders and boot logs (../shared/reference/fixtures, or
    INFERLINT_REFERENCE_DIR; left out, and said so, where absent): report, preemption,
    rate, series, check-log in every format. --format json must equal --json byte for
    byte; the JUnit must parse (xml.etree), pass tests/junit.xsd (lxml, from this Python
    or Debian's /usr/bin/python3) and the structure rules checked here, and say what
    --json says; every failed tripwire is a ::error and every warning a ::warning; the
    Markdown has a row per verdict; --output-file gets the format while the terminal
    keeps the text, and the exit status is the same in every format;
  - the simulator's xray run with --format junit: results.junit.xml beside results.json,
    and listed in it; compare on copies of that run: one suite per run;
  - bad input: still exit 2, in the format's own error form; --output-file on a full
    device or in a missing folder: one line, exit 2, and no file.

Exit status 1 on any failure.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from sim_xray import copies_of_run, xray_on_sim

ROOT = pathlib.Path(__file__).resolve().parent.parent
REF = pathlib.Path(os.environ.get("INFERLINT_REFERENCE_DIR") or ROOT.parent / "shared" / "reference")
XSD = ROOT / "tests" / "junit.xsd"
FORMATS = ["text", "json", "junit", "github", "markdown"]
failures: list[str] = []


def check(cond: bool, what: str) -> None:
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(binary: str, args: list[str], **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("INFERLINT_ENGINE", "NO_COLOR")}
    env["INFERLINT_TRIPWIRES"] = "all"
    env.update(kw.pop("env", {}))
    return subprocess.run([binary, *args], capture_output=True, env=env, timeout=kw.pop("timeout", 120), **kw)


XSD_CHECK = r"""
import sys
from lxml import etree
schema = etree.XMLSchema(etree.parse(sys.argv[1]))
ok = schema.validate(etree.fromstring(sys.stdin.buffer.read()))
print("valid" if ok else schema.error_log)
"""


def xsd_python() -> str | None:
    """A Python that has lxml: this one, else Debian's."""
    for py in (sys.executable, "/usr/bin/python3"):
        if shutil.which(py) and subprocess.run([py, "-c", "import lxml.etree"], capture_output=True).returncode == 0:
            return py
    return None


XSD_PY = xsd_python()


def validate_junit(doc: bytes, what: str, expect: list[dict] | None = None, problem: bool = False) -> ET.Element:
    root = ET.fromstring(doc)  # raises on anything that is not XML
    if XSD_PY:
        r = subprocess.run([XSD_PY, "-c", XSD_CHECK, str(XSD)], input=doc, capture_output=True)
        check(r.stdout.decode().strip() == "valid", f"{what}: JUnit against tests/junit.xsd: {r.stdout!r}{r.stderr!r}")
    check(root.tag == "testsuites", f"{what}: root is <testsuites>")
    suites = root.findall("testsuite")
    check(len(suites) == 1, f"{what}: one testsuite per command")
    suite = suites[0]
    cases = suite.findall("testcase")
    check(int(suite.get("tests")) == len(cases), f"{what}: tests= counts the testcases")
    for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        n = sum(1 for c in cases if c.find(tag) is not None)
        check(int(suite.get(key)) == n, f"{what}: {key}= {suite.get(key)} but {n} <{tag}>")
    names = [c.get("name") for c in cases]
    check(len(names) == len(set(names)), f"{what}: testcase names are distinct")
    for c in cases:
        outcome = [e for e in c if e.tag in ("failure", "error", "skipped")]
        check(len(outcome) <= 1, f"{what}: {c.get('name')}: at most one outcome")
        if c.get("name") != "the run":
            check(re.fullmatch(r"inferlint\.T\d+", c.get("classname") or "") is not None,
                  f"{what}: classname {c.get('classname')!r} is inferlint.TN")
        body = "".join(e.text or "" for e in c)
        check(body.strip() != "", f"{what}: {c.get('name')}: the body says something")
    if expect is not None:
        want = {"fail": "failure", "unknown": "error", "not_applicable": "skipped"}
        tripwire_cases = [c for c in cases if c.get("name") != "the run"]
        check(len(tripwire_cases) == len(expect), f"{what}: one testcase per verdict ({len(expect)})")
        for c, r in zip(tripwire_cases, expect):
            check(c.get("classname") == f"inferlint.{r['tripwire']}", f"{what}: testcase order follows --json")
            tag = want.get(r["status"])
            got = [e.tag for e in c if e.tag in ("failure", "error", "skipped")]
            check(got == ([tag] if tag else []), f"{what}: {r['tripwire']} {r['status']} gave {got}")
            if tag in ("failure", "error"):
                el = c.find(tag)
                check(el.get("message") == r["message"], f"{what}: {r['tripwire']}: message attribute")
                check(r["message"] in (el.text or "") and "evidence:" in (el.text or ""),
                      f"{what}: {r['tripwire']}: message and evidence in the body")
    if problem:
        check(any(c.get("name") == "the run" and c.find("error") is not None for c in cases),
              f"{what}: a run that died says so in an <error>")
    return root


def check_github(doc: str, verdicts: list[dict], what: str) -> None:
    lines = doc.splitlines()
    check(bool(lines) and all(l.startswith("::") for l in lines), f"{what}: every line is a workflow command")
    check(lines[-1].startswith("::notice title=inferlint "), f"{what}: ends with the counts")
    for r in verdicts:
        kind = {"fail": "error", "warn": "warning", "unknown": "error"}.get(r["status"])
        if not kind:
            continue
        title = re.compile(rf"^::{kind} title={r['tripwire']} [^:]*::")
        check(any(title.match(l) for l in lines), f"{what}: {r['tripwire']} {r['status']} is a ::{kind}")


def check_markdown(doc: str, verdicts: list[dict], what: str) -> None:
    check(doc.startswith("### inferlint "), f"{what}: a heading")
    rows = [l for l in doc.splitlines() if re.match(r"^\| T\d+ ", l)]
    check(len(rows) == len(verdicts), f"{what}: one row per verdict ({len(rows)} for {len(verdicts)})")


def every_format(binary: str, args: list[str], what: str, tmp: pathlib.Path) -> None:
    text = run(binary, args)
    js = run(binary, [*args, "--json"])
    fj = run(binary, [*args, "--format", "json"])
    check(js.returncode in (0, 1, 2) and js.stdout != b"", f"{what}: --json gave a document")
    check(fj.stdout == js.stdout and fj.returncode == js.returncode, f"{what}: --format json == --json")
    check(b"\033[" not in text.stdout, f"{what}: no escapes into a pipe")
    doc = json.loads(js.stdout)
    verdicts = doc["results"] if isinstance(doc, dict) else doc
    for fmt in ("junit", "github", "markdown"):
        r = run(binary, [*args, "--format", fmt])
        check(r.returncode == text.returncode, f"{what}: --format {fmt} exits {r.returncode}, text {text.returncode}")
        out = r.stdout.decode()
        if fmt == "junit":
            validate_junit(r.stdout, f"{what} --format junit", verdicts)
        elif fmt == "github":
            check_github(out, verdicts, f"{what} --format github")
        else:
            check_markdown(out, verdicts, f"{what} --format markdown")
        f = tmp / f"out.{fmt}"
        w = run(binary, [*args, "--format", fmt, "--output-file", str(f)])
        check(w.returncode == text.returncode, f"{what}: --output-file keeps the exit status")
        check(w.stdout == text.stdout,
              f"{what}: with --output-file the terminal keeps the text")
        check(f.is_file() and f.read_bytes() == r.stdout,
              f"{what}: --output-file holds the {fmt} document")


def fixture_cases() -> list[tuple[list[str], str]]:
    fx = REF / "fixtures"
    cases = []
    for before in sorted(fx.rglob("before.snapshot.json")):
        d = before.parent
        rel = d.relative_to(fx)
        cases.append((["report", str(d), "-o", "REPORT"], f"report {rel}"))
        cases.append((["preemption", str(before), str(d / "after.snapshot.json")], f"preemption {rel}"))
        cases.append((["rate", str(before), str(d / "after.snapshot.json")], f"rate {rel}"))
        if (d / "run.series.jsonl").is_file():
            cases.append((["series", str(d / "run.series.jsonl"), "--snapshot", str(d / "after.snapshot.json"),
                           "--requested", "32"], f"series {rel}"))
    for log in sorted(fx.glob("*/*.log"))[:12]:
        cases.append((["check-log", str(log)], f"check-log {log.relative_to(fx)}"))
    return cases


def sim_xray(binary: str, sim: str, tmp: pathlib.Path) -> None:
    out, r = xray_on_sim(binary, sim, tmp, ["--interval", "0.25", "--format", "junit"])
    # 2 is a tripwire that could not decide on so short a run; the run itself must complete.
    check(r.returncode in (0, 1, 2), f"xray on the simulator exits 0, 1 or 2, not {r.returncode}: {r.stderr[-800:]!r}")
    junit = out / "results.junit.xml"
    check(junit.is_file() and (out / "results.json").is_file(), "xray --format junit: results.junit.xml beside results.json")
    if junit.is_file():
        check(junit.read_bytes() == r.stdout, "xray: stdout carries the same JUnit as results.junit.xml")
        doc = json.loads((out / "results.json").read_text())
        check(doc["completed"] and doc["exit_status"] == r.returncode,
              f"xray: the run completed, same exit status: completed={doc['completed']} exit_status="
              f"{doc['exit_status']} rc={r.returncode} stopped_at={doc.get('stopped_at')} problem={doc.get('problem')}")
        check("results.junit.xml" in doc["files"], f"xray: results.json lists results.junit.xml: {doc['files']}")
        results = doc["results"]
        validate_junit(junit.read_bytes(), "xray results.junit.xml", results)
    print("ok: xray on the simulator, --format junit")
    if (out / "after.snapshot.json").is_file():
        compare_junit(binary, out, tmp)


def compare_junit(binary: str, run_dir: pathlib.Path, tmp: pathlib.Path) -> None:
    """compare in JUnit: a suite for the comparison (C1-C7, the gates), then one per run
    with that run's tripwires; a run that did not complete is an <error> saying why."""
    a = copies_of_run(run_dir, tmp / "arm-a", 3)
    b = copies_of_run(run_dir, tmp / "arm-b", 3)
    (b[2] / "after.snapshot.json").unlink()  # a run that did not complete
    args = ["compare", *map(str, a), "--vs", *map(str, b), "--require-gain", "output_throughput"]
    doc = json.loads(run(binary, [*args, "--json"]).stdout)
    r = run(binary, [*args, "--format", "junit"])
    check(r.returncode == doc["exit_status"], f"compare --format junit: exit {r.returncode}, as --json says")
    root = ET.fromstring(r.stdout)
    if XSD_PY:
        x = subprocess.run([XSD_PY, "-c", XSD_CHECK, str(XSD)], input=r.stdout, capture_output=True)
        check(x.stdout.decode().strip() == "valid", f"compare JUnit against tests/junit.xsd: {x.stdout!r}{x.stderr!r}")
    suites = root.findall("testsuite")
    runs = doc["arms"]["a"]["runs"] + doc["arms"]["b"]["runs"]
    check(len(suites) == 1 + len(runs), f"compare: one testsuite for the comparison and one per run ({len(suites)})")
    check(suites[0].get("name") == "inferlint compare", "compare: the first suite is the comparison")
    classes = {c.get("classname") for c in suites[0].findall("testcase")}
    check({f"inferlint.{c['check']}" for c in doc["checks"]} <= classes, "compare: C1-C7 in the first suite")
    total = sum(int(s.get("tests")) for s in suites)
    check(int(root.get("tests")) == total, "compare: <testsuites tests=> sums the suites")
    for suite, rj in zip(suites[1:], runs):
        check(suite.get("name").endswith(rj["run"]), f"compare: suite {suite.get('name')!r} names its run")
        cases = suite.findall("testcase")
        tripwires = [c for c in cases if c.get("name") != "the run"]
        check(len(tripwires) == len(rj["results"]), f"compare: {rj['run']}: a testcase per tripwire")
        for c, v in zip(tripwires, rj["results"]):
            check(c.get("classname") == f"inferlint.{v['tripwire']}", f"compare: {rj['run']}: classname")
        died = [c for c in cases if c.get("name") == "the run"]
        check(bool(died) == (not rj["completed"]), f"compare: {rj['run']}: an <error> exactly when it did not complete")
        if died:
            err = died[0].find("error")
            check(err is not None and rj["failure"] in (err.get("message") or ""), "compare: the error says why")
    print("ok: compare --format junit, a suite per run")


def bad_input(binary: str, tmp: pathlib.Path) -> None:
    empty = tmp / "empty-run"
    empty.mkdir()
    r = run(binary, ["report", str(empty), "--format", "junit"])
    check(r.returncode == 2, "report on a folder without run files exits 2 in JUnit too")
    validate_junit(r.stdout, "report on an empty folder", problem=True)
    check(b"no run files" in r.stdout, "the JUnit error says why")
    garbage = tmp / "garbage.snapshot.json"
    garbage.write_bytes(b"\x00\x01not json\x07")
    for fmt, form in (("github", b"::error title=inferlint preemption::"), ("markdown", b"the run stopped early")):
        r = run(binary, ["preemption", str(garbage), str(garbage), "--format", fmt])
        check(r.returncode == 2 and form in r.stdout, f"bad snapshot, --format {fmt}: exit 2 and {form!r}")
    r = run(binary, ["preemption", str(garbage), str(garbage), "--format", "junit", "--output-file", str(tmp / "bad.xml")])
    check(r.returncode == 2 and r.stdout == b"", "bad input with --output-file: exit 2, nothing on stdout")
    validate_junit((tmp / "bad.xml").read_bytes(), "bad input's JUnit file", problem=True)
    demo = ROOT / "examples" / "demo-run"
    args = ["preemption", str(demo / "before.snapshot.json"), str(demo / "after.snapshot.json"), "--format", "junit"]
    if os.path.exists("/dev/full"):
        r = run(binary, [*args, "--output-file", "/dev/full"])
        err = r.stderr.decode().splitlines()
        check(r.returncode == 2 and len(err) == 1 and "No space left" in err[0], f"a full disk: one line, exit 2: {err}")
    missing = tmp / "no-such-folder" / "out.xml"
    r = run(binary, [*args, "--output-file", str(missing)])
    check(r.returncode == 2 and len(r.stderr.decode().splitlines()) == 1, "a missing folder: one line, exit 2")
    check(not missing.parent.exists(), "a missing folder: nothing made")
    r = run(binary, [*args[:-2], "--json", "--format", "junit"])
    check(r.returncode == 2 and r.stdout == b"", "--json with --format junit: one line, exit 2")
    print("ok: bad input in every format")


def main() -> int:
    build = pathlib.Path(sys.argv[1]).resolve()
    binary, sim = str(build / "inferlint"), str(build / "inferlint-sim")
    print(f"JUnit schema check: {'lxml with ' + XSD_PY if XSD_PY else 'no lxml: structure rules only'}")
    with tempfile.TemporaryDirectory(prefix="inferlint-ci-formats-") as t:
        tmp = pathlib.Path(t)
        if (REF / "fixtures").is_dir():
            for args, what in fixture_cases():
                args = [str(tmp / "report.html") if a == "REPORT" else a for a in args]
                every_format(binary, args, what, tmp)
                print(f"ok: {what}")
        else:
            print(f"fixtures: left out ({REF / 'fixtures'} is absent)")
        bad_input(binary, tmp)
        if os.access(sim, os.X_OK):
            sim_xray(binary, sim, tmp)
        else:
            print(f"simulator: left out ({sim} is not built)")
    print(f"ci_formats: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
