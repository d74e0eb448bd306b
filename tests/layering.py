#!/usr/bin/env python3
"""Checks that the layers depend one way, as docs/ARCHITECTURE.md draws them: no file
under src/<layer>/ or include/inferlint/<layer>/ includes a header of a layer to its right.

usage: tests/layering.py SOURCE_DIR
"""
import pathlib
import re
import sys

# What each layer may include (besides itself).
ALLOWED = {
    "util": set(),
    "core": {"util"},
    "parse": {"core", "util"},
    "checks": {"parse", "core", "util"},
    "report": {"checks", "parse", "core", "util"},
    "run": {"report", "checks", "parse", "core", "util"},
    "cli": {"run", "report", "checks", "parse", "core", "util"},
}
# Public headers (inferlint/<layer>/...) and the private ones under src/ (<layer>/...).
INCLUDE = re.compile(r'#include\s+"(?:inferlint/)?(util|core|parse|checks|report|run|cli)/')


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    wrong = []
    checked = 0
    for layer, allowed in ALLOWED.items():
        for base in (root / "src" / layer, root / "include" / "inferlint" / layer):
            for f in sorted(base.rglob("*")):
                if f.suffix not in (".cpp", ".hpp"):
                    continue
                checked += 1
                for n, line in enumerate(f.read_text().splitlines(), 1):
                    m = INCLUDE.search(line)
                    if m and m.group(1) != layer and m.group(1) not in allowed:
                        wrong.append(f"{f.relative_to(root)}:{n}: {layer}/ includes {m.group(1)}/")
    for w in wrong:
        print(w)
    print(f"layering: {checked} files, {len(wrong)} includes against the arrows")
    return 1 if wrong or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
