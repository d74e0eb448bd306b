#!/usr/bin/env python3
"""Runs the reference's conformance cases for every command this build has.

usage: tests/conformance.py BINARY

Cases whose command the binary does not list in --help are reported as skipped, by
name, so the output says what is not yet covered. Exits 1 on any mismatch; skips (with
a printed reason) when ../shared/reference is absent.
"""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Commands whose port is still in progress: their cases run and mismatches are printed,
# but do not fail the run. Remove a command from here as soon as it matches in full.
IN_PROGRESS: dict[str, str] = {}
# INFERLINT_REFERENCE_DIR stands in for it, as in the unit tests (tests/support.hpp).
REF = pathlib.Path(os.environ.get("INFERLINT_REFERENCE_DIR") or ROOT.parent / "shared" / "reference")


def main() -> int:
    binary = sys.argv[1]
    golden = REF / "golden"
    if not golden.is_dir():
        print(f"conformance: skipped ({golden} is absent)")
        return 0
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    have = set()
    for line in help_text.splitlines():
        parts = line.split()
        if parts and not line.startswith(" " * 8):
            have.add(parts[0])
    prefixes, skipped = set(), {}
    for f in sorted(golden.glob("*.json")):
        cmd = json.loads(f.read_text())["argv"][0]
        stem = f.name.split("__")[0]
        if cmd in have:
            prefixes.add(stem + "__")
        else:
            skipped[cmd] = skipped.get(cmd, 0) + 1
    for cmd, n in sorted(skipped.items()):
        print(f"conformance: skipped {n} '{cmd}' cases (command not built yet)")
    if not prefixes:
        print("conformance: no command to check")
        return 1
    conform = [sys.executable, str(REF / "tools" / "conform.py"), binary, str(REF / "fixtures"), str(golden)]
    # The Python tool has T1-T15: `reference` leaves the tripwires this project adds out of the
    # comparison (the binary reports only what INFERLINT_TRIPWIRES names), never the other way round.
    os.environ["INFERLINT_TRIPWIRES"] = "reference"
    strict = sorted(p for p in prefixes if p.split("__")[0] not in IN_PROGRESS)
    rc = subprocess.run([*conform, "--only", ",".join(strict), "--verbose"]).returncode if strict else 0
    for cmd, issue in sorted(IN_PROGRESS.items()):
        if cmd + "__" in prefixes:
            print(f"conformance: '{cmd}' is in progress ({issue}); its mismatches do not fail the run:")
            subprocess.run([*conform, "--only", cmd + "__", "--verbose"])
    return rc


if __name__ == "__main__":
    sys.exit(main())
