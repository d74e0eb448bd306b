#!/usr/bin/env python3
"""Colour on a real terminal, and never into a pipe or a file.

usage: tests/terminal_colour.py BUILD_DIR

Runs the built inferlint on examples/demo-run (T1 fails; series gives PASS, WARN and
TRIPWIRE-FAILED) with its stdout on a pseudo-terminal (Python's pty), and checks: the status
words are coloured on the tty (TRIPWIRE-FAILED red, WARN yellow, PASS green); --color never,
NO_COLOR and TERM=dumb turn it off; a pipe and --output-file never get escapes, and
--color always gives them even there; the words themselves are unchanged.
Exit status 1 on any failure.
"""
from __future__ import annotations

import os
import pathlib
import pty
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo-run"
RED, YELLOW, GREEN, RESET = b"\033[1;31m", b"\033[33m", b"\033[32m", b"\033[0m"
failures: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def env_with(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "INFERLINT_ENGINE")}
    env["TERM"] = "xterm-256color"
    env.update(extra)
    return env


def on_tty(argv: list[str], env: dict[str, str]) -> tuple[bytes, int]:
    """stdout of argv run on a pseudo-terminal, and its exit status."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.DEVNULL, env=env,
                            cwd=ROOT)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return out.replace(b"\r\n", b"\n"), proc.wait()


def main() -> int:
    binary = str(pathlib.Path(sys.argv[1]).resolve() / "inferlint")
    series = [binary, "series", str(DEMO / "run.series.jsonl"), "--snapshot", str(DEMO / "after.snapshot.json"),
              "--requested", "16"]
    pre = [binary, "preemption", str(DEMO / "before.snapshot.json"), str(DEMO / "after.snapshot.json")]

    plain = subprocess.run(series, capture_output=True, env=env_with(), cwd=ROOT)
    check(b"\033" not in plain.stdout and b"TRIPWIRE-FAILED" in plain.stdout, "a pipe gets no escapes (auto)")

    out, rc = on_tty(series, env_with())
    check(rc == plain.returncode == 1, "the exit status is the same on a tty")
    check(RED + b"TRIPWIRE-FAILED" + RESET in out, "TRIPWIRE-FAILED is red on a tty")
    check(YELLOW + b"WARN" + RESET in out, "WARN is yellow on a tty")
    check(GREEN + b"PASS" + RESET in out, "PASS is green on a tty")
    stripped = out
    for code in (RED, YELLOW, GREEN, RESET):
        stripped = stripped.replace(code, b"")
    check(stripped == plain.stdout, "taking the colours out gives the pipe's text, byte for byte")

    out, _ = on_tty(pre, env_with())
    check(out.startswith(b"[ T1] " + RED + b"TRIPWIRE-FAILED" + RESET + b"  7 preemptions"),
          "only the status word is coloured")
    for what, argv, env in (("--color never", [*series, "--color", "never"], env_with()),
                            ("NO_COLOR=1", series, env_with(NO_COLOR="1")),
                            ("TERM=dumb", series, env_with(TERM="dumb")),
                            ("--json", [*series, "--json"], env_with()),
                            ("--format junit", [*series, "--format", "junit"], env_with())):
        out, _ = on_tty(argv, env)
        check(b"\033" not in out and out != b"", f"{what} on a tty: no escapes")
    out, _ = on_tty(series, env_with(NO_COLOR=""))
    check(RED in out, "an empty NO_COLOR does not turn colour off")
    forced = subprocess.run([*series, "--color", "always"], capture_output=True, env=env_with(NO_COLOR="1"), cwd=ROOT)
    check(RED + b"TRIPWIRE-FAILED" in forced.stdout, "--color always colours even a pipe")
    with tempfile.TemporaryDirectory() as t:
        f = pathlib.Path(t) / "out.txt"
        out, _ = on_tty([*series, "--output-file", str(f), "--color", "always"], env_with())
        check(RED in out and f.is_file() and b"\033" not in f.read_bytes(),
              "--output-file: the terminal is coloured, the file never")
    bad, rc = on_tty([*series, "--color", "sometimes"], env_with())
    check(rc == 2, "--color sometimes is a usage error (exit 2)")
    print(f"terminal_colour: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
