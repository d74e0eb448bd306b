#!/usr/bin/env python3
"""The bad-input matrix: every command that reads a file, given each kind of bad file, and
the numeric options out of range.

usage: tests/bad_input.py BUILD_DIR

Each file argument of report, check-log, boot-facts, preemption, rate, series,
client-counts, prefix-cache and compare meets a file that is missing, empty, truncated,
binary, of the wrong schema, and another engine's (with --engine naming the first). The
good files are the project's own simulator run (tests/fixtures/vllm-sim/healthy). A case is
clean when the command exits 2 and either says one line on stderr naming the file, or
(the product's rule for evidence it cannot weigh) gives a Can't tell verdict; never a
PASS, never a crash. Numeric options (--interval 0, --requested -5, NaN, ...) must be
one line and exit 2. Prints each unclean case and the figure clean/all; exits 1 on any.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
RUN = ROOT / "tests" / "fixtures" / "vllm-sim" / "healthy"
SGLANG_LOG = ROOT / "tests" / "fixtures" / "bootlog" / "sglang" / "boot.log"


def make_bad(kind: str, good: pathlib.Path, dest: pathlib.Path) -> pathlib.Path | None:
    """The bad variant of `good` at dest; None when the file is missing (dest not made)."""
    data = good.read_bytes()
    if kind == "missing":
        return None
    if kind == "empty":
        dest.write_bytes(b"")
    elif kind == "truncated":
        dest.write_bytes(data[: len(data) // 2])
    elif kind == "binary":
        dest.write_bytes(bytes(range(256)) * 64)
    elif kind == "wrong-schema":
        dest.write_text('{"schema": "something.else/7", "rows": [1, 2, 3]}\n')
    elif kind == "other-engine":
        if good.suffix == ".log":
            shutil.copy(SGLANG_LOG, dest)
        else:  # the same file in SGLang's metric names, or a recording that says it is SGLang's
            dest.write_bytes(data.replace(b"vllm:", b"sglang:").replace(b'"engine": "vllm"', b'"engine": "sglang"'))
    return dest


# Open cases, said and counted as unclean but not failing the run: report and compare read a
# recording cut mid-line as a shorter one without saying so (series says "skipped 1 line
# that is not JSON"); the note belongs in run/loader.cpp, shared by both.
KNOWN: set[tuple[str, str]] = set()  # cases known unclean, counted so but not failing the run

KINDS = ["missing", "empty", "truncated", "binary", "wrong-schema", "other-engine"]


def file_cases(tmp: pathlib.Path):
    """(name, argv builder) per command and file argument."""
    b, a, s, bench, log = (RUN / n for n in ("before.snapshot.json", "after.snapshot.json", "run.series.jsonl",
                                            "bench.json", "boot.log"))
    cases = [
        ("check-log LOG", log, lambda f: ["check-log", f]),
        ("boot-facts LOG", log, lambda f: ["boot-facts", f]),
        ("preemption BEFORE", b, lambda f: ["preemption", f, str(a)]),
        ("preemption AFTER", a, lambda f: ["preemption", str(b), f]),
        ("rate BEFORE", b, lambda f: ["rate", f, str(a)]),
        ("series SERIES", s, lambda f: ["series", f]),
        ("series --snapshot", b, lambda f: ["series", str(s), "--snapshot", f]),
        ("client-counts BEFORE", b, lambda f: ["client-counts", f, str(a), "--bench-result", str(bench)]),
        ("client-counts --bench-result", bench, lambda f: ["client-counts", str(b), str(a), "--bench-result", f]),
        ("prefix-cache AFTER", a, lambda f: ["prefix-cache", str(b), f]),
        ("report --before", b, lambda f: ["report", "--before", f, "--after", str(a), "--series", str(s),
                                          "-o", str(tmp / "r.html")]),
        ("report --series", s, lambda f: ["report", "--before", str(b), "--after", str(a), "--series", f,
                                          "-o", str(tmp / "r.html")]),
        ("report --boot-log", log, lambda f: ["report", "--boot-log", f, "--before", str(b), "--after", str(a),
                                              "-o", str(tmp / "r.html")]),
    ]
    # A run folder with one file replaced: report RUN and compare RUN --vs RUN.
    for name in ("before.snapshot.json", "run.series.jsonl", "bench.json"):
        good = RUN / name

        def folder(f, name=name):
            d = pathlib.Path(tempfile.mkdtemp(dir=tmp))
            for p in RUN.iterdir():
                if p.name != name:
                    shutil.copy(p, d / p.name)
            if f != "":
                shutil.copy(f, d / name)
            return d

        cases.append((f"report RUN/{name}", good, lambda f, folder=folder: ["report", str(folder(f)), "-o",
                                                                          str(tmp / "r.html")]))
        cases.append((f"compare RUN/{name}", good, lambda f, folder=folder: ["compare", str(folder(f)), "--vs",
                                                                           str(RUN)]))
    return cases


NUMERIC = [
    ["watch", "http://127.0.0.1:9", "-o", "{tmp}/w.jsonl", "--interval", "0"],
    ["watch", "http://127.0.0.1:9", "-o", "{tmp}/w.jsonl", "--interval", "nan"],
    ["watch", "http://127.0.0.1:9", "-o", "{tmp}/w.jsonl", "--duration", "-1"],
    ["watch", "http://127.0.0.1:9", "-o", "{tmp}/w.jsonl", "--duration", "nan"],
    ["series", "{run}/run.series.jsonl", "--requested", "-5"],
    ["series", "{run}/run.series.jsonl", "--requested", "0"],
    ["series", "{run}/run.series.jsonl", "--requested", "nan"],
    ["report", "{run}", "--requested", "-5", "-o", "{tmp}/r.html"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--interval", "0", "--", "true"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--interval", "nan", "--", "true"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--ready-timeout", "nan", "--", "true"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--load-timeout", "0", "--", "true"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--load-timeout", "nan", "--", "true"],
    ["xray", "-o", "{tmp}/x", "--url", "http://127.0.0.1:9", "--requested", "-5", "--", "true"],
    ["compare", "{run}", "--vs", "{run}", "--max-spread", "nan"],
]


def cant_tell(r: subprocess.CompletedProcess) -> bool:
    return r.returncode == 2 and ("????" in r.stdout or "can't tell" in r.stdout.lower())


def product_rule(name: str, kind: str, r: subprocess.CompletedProcess, named: str) -> bool:
    """The product's own rules for what is not bad input: a log or a recording cut short is a
    shorter one (a recording's cut line is skipped, and said); a run folder's files are found
    by name, each optional (report uses what is there; compare counts a run without its
    snapshots as one that did not complete, and says so)."""
    if kind == "truncated" and named.endswith(".log"):
        return r.returncode >= 0
    if kind == "truncated" and named.endswith(".jsonl"):
        return "skipped 1 line that is not JSON" in r.stderr and named in r.stderr
    if kind == "missing" and name.startswith("report RUN/"):
        return r.returncode >= 0
    if name.startswith("compare RUN/"):
        return "did not complete" in r.stdout or cant_tell(r)
    return False


def clean(r: subprocess.CompletedProcess, must_name: str | None) -> str | None:
    """Why the answer is not clean, or None."""
    err_lines = [l for l in r.stderr.splitlines() if l.strip()]
    if r.returncode < 0:
        return f"killed by signal {-r.returncode}"
    if cant_tell(r):
        return None
    if r.returncode != 2:
        return f"exit {r.returncode}"
    if len(err_lines) != 1:
        return f"{len(err_lines)} lines on stderr"
    if must_name and must_name not in err_lines[0]:
        return f"the line does not name {must_name}"
    return None


def main() -> int:
    binary = pathlib.Path(sys.argv[1]) / "inferlint"
    t0 = time.monotonic()
    total = bad = ruled = known = 0
    with tempfile.TemporaryDirectory(prefix="il-bad-input-") as tmpname:
        tmp = pathlib.Path(tmpname)
        env = {k: v for k, v in os.environ.items() if not k.startswith("INFERLINT_")}
        for name, good, argv_of in file_cases(tmp):
            for kind in KINDS:
                dest = tmp / f"bad-{total}{good.suffix}"
                made = make_bad(kind, good, dest)
                if made and made.read_bytes() == good.read_bytes():
                    continue  # no such variant of this file (a load tool's result names no engine)
                in_folder = name.split()[1].startswith("RUN/")
                path = str(made) if made else str(tmp / f"missing-{total}{good.suffix}")
                argv = argv_of("" if in_folder and not made else path)  # "": left out of the folder
                if kind == "other-engine":
                    argv = argv[:1] + ["--engine", "vllm"] + argv[1:]
                total += 1
                r = subprocess.run([str(binary), *argv], capture_output=True, text=True, env=env, timeout=60)
                # A folder's file is named by its name in the folder.
                named = good.name if in_folder else pathlib.Path(path).name
                why = clean(r, named)
                if why and product_rule(name, kind, r, named):
                    ruled += 1
                    why = None
                if why and (name, kind) in KNOWN:
                    known += 1
                    print(f"KNOWN   {name} [{kind}]: {why}")
                elif why:
                    bad += 1
                    print(f"UNCLEAN {name} [{kind}]: {why}: {(r.stderr or r.stdout).strip()[:300]!r}")
        for argv in NUMERIC:
            argv = [a.format(tmp=tmp, run=RUN) for a in argv]
            total += 1
            r = subprocess.run([str(binary), *argv], capture_output=True, text=True, env=env, timeout=60)
            why = clean(r, None)
            if why:
                bad += 1
                print(f"UNCLEAN {' '.join(argv[:1] + argv[-3:])}: {why}: {(r.stderr or r.stdout).strip()[:300]!r}")
    print(f"bad-input matrix: {total - bad - known}/{total} clean ({known} known open), {ruled} of them by the product's rule for a cut or "
          f"missing file ({time.monotonic() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
