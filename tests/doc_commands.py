#!/usr/bin/env python3
"""Runs the commands the documentation shows, and checks the output it shows for them.

usage: tests/doc_commands.py BUILD_DIR

Reads README.md and docs/*.md. In a fenced code block whose info string is
`console runnable` (GitHub shows it as a console block):

  - a line `$ inferlint ...` is a command (a line ending in a backslash continues on the
    next). It is run from the repository root through bash, with `inferlint` replaced by
    BUILD_DIR/inferlint and INFERLINT_ENGINE unset;
  - the lines after it, up to the next `$ ` line, are its shown output. Every shown line
    that looks like a verdict (`[ T1] ...`, `[T10] ...`, compare's `[ C1] ...` and `[gate] ...`) must appear, exactly, as a line
    of the command's stdout. A shown line `# exit N` is the exit status expected (0 when
    there is none). Other shown lines are not compared;
  - another `$ ` line ends the previous command's output and is not run.

Commands may use only the project's own files (examples/, tests/fixtures/); one that names
../shared/reference fails. A command may write under /tmp only.

It also checks that every tripwire `BUILD_DIR/inferlint explain` lists has a heading in
docs/tripwires.md (`## T1: ...`).

Prints one line per command (ok or FAIL, with why), then a summary. Exit status 1 when a
command or a heading check fails, or when fewer than MIN_COMMANDS commands were found.
"""
from __future__ import annotations

import os
import pathlib
import re
import shlex
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MIN_COMMANDS = 8
TIMEOUT_S = 120
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(.*?)\s*$")
VERDICT = re.compile(r"^\[\s*(T\d+|C\d+|gate)\] ")
EXIT = re.compile(r"^#\s*exit\s+(\d+)\s*$")


class Command:
    def __init__(self, path: pathlib.Path, line: int, text: str) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.shown: list[str] = []

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def expected_exit(self) -> int:
        codes = [int(m.group(1)) for s in self.shown if (m := EXIT.match(s.strip()))]
        return codes[-1] if codes else 0

    @property
    def verdicts(self) -> list[str]:
        return [s for s in self.shown if VERDICT.match(s)]


def runnable_blocks(path: pathlib.Path):
    """(first line number, lines) of each `console runnable` block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(2), m.group(3)
        body, start = [], i + 2
        i += 1
        while i < len(lines):
            end = FENCE.match(lines[i])
            if end and end.group(2).startswith(fence[0] * len(fence)) and not end.group(3):
                break
            body.append(lines[i])
            i += 1
        i += 1
        if info.split() == ["console", "runnable"]:
            yield start, body


def commands_in(path: pathlib.Path) -> tuple[list[Command], list[str]]:
    found: list[Command] = []
    skipped: list[str] = []
    for start, body in runnable_blocks(path):
        cur: Command | None = None
        j = 0
        while j < len(body):
            line, lineno = body[j], start + j
            if line.startswith("$ "):
                text = line[2:]
                while text.endswith("\\") and j + 1 < len(body):
                    j += 1
                    text = text[:-1] + " " + body[j].strip()
                if text.startswith("inferlint "):
                    cur = Command(path, lineno, text)
                    found.append(cur)
                else:
                    cur = None
                    skipped.append(f"{path.relative_to(ROOT)}:{lineno}: not an inferlint command, not run: {text}")
            elif cur is not None:
                cur.shown.append(line)
            j += 1
    return found, skipped


def run(cmd: Command, binary: pathlib.Path) -> list[str]:
    """What is wrong with the command's result; empty when nothing is."""
    if "shared/reference" in cmd.text:
        return ["uses ../shared/reference: documentation commands must use the project's own files"]
    script = shlex.quote(str(binary)) + cmd.text[len("inferlint"):]
    env = {k: v for k, v in os.environ.items() if k != "INFERLINT_ENGINE"}
    try:
        p = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                           errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [f"did not finish in {TIMEOUT_S} s"]
    problems = []
    if p.returncode != cmd.expected_exit:
        problems.append(f"exit status {p.returncode}, the documentation says {cmd.expected_exit}")
    out = p.stdout.splitlines()
    for v in cmd.verdicts:
        if v not in out:
            problems.append(f"shown but not printed: {v}")
    if problems:
        got = [s for s in out if VERDICT.match(s)] or out[:5]
        problems += [f"  printed: {s}" for s in got]
        problems += [f"  stderr: {s}" for s in p.stderr.splitlines()[-3:]]
    return problems


def tripwire_headings(binary: pathlib.Path) -> list[str]:
    """Problems with docs/tripwires.md's headings against `inferlint explain`."""
    p = subprocess.run([str(binary), "explain"], capture_output=True, text=True, timeout=TIMEOUT_S,
                       env={k: v for k, v in os.environ.items() if k != "INFERLINT_ENGINE"})
    codes = re.findall(r"^(T\d+)  ", p.stdout, flags=re.M)
    if p.returncode != 0 or not codes:
        return [f"inferlint explain printed no tripwires (exit status {p.returncode})"]
    doc = (ROOT / "docs" / "tripwires.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#+\s+(T\d+)\b", doc, flags=re.M))
    missing = [c for c in codes if c not in headings]
    if missing:
        return [f"docs/tripwires.md has no heading for {', '.join(missing)}"]
    print(f"ok    docs/tripwires.md has a heading for each of the {len(codes)} tripwires explain lists")
    return []


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary = (pathlib.Path(sys.argv[1]) / "inferlint").resolve()
    if not os.access(binary, os.X_OK):
        print(f"doc_commands: {binary} is missing or not executable", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    commands: list[Command] = []
    for f in files:
        found, skipped = commands_in(f)
        commands += found
        for s in skipped:
            print(f"note  {s}")
    failed = 0
    for c in commands:
        problems = run(c, binary)
        if problems:
            failed += 1
            print(f"FAIL  {c.where}  $ {c.text}")
            for pr in problems:
                print(f"        {pr}")
        else:
            print(f"ok    {c.where}  $ {c.text}")
    heading_problems = tripwire_headings(binary)
    for pr in heading_problems:
        print(f"FAIL  {pr}")
    too_few = len(commands) < MIN_COMMANDS
    if too_few:
        print(f"FAIL  only {len(commands)} runnable commands found (at least {MIN_COMMANDS} expected)")
    in_files = len({c.path for c in commands})
    print(f"doc_commands: {len(commands)} commands in {in_files} files, {len(commands) - failed} ok, "
          f"{failed} failed; tripwire headings {'ok' if not heading_problems else 'FAILED'}; "
          f"{time.monotonic() - t0:.1f} s")
    return 1 if failed or heading_problems or too_few else 0


if __name__ == "__main__":
    sys.exit(main())
