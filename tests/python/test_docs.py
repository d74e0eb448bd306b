"""The Python examples of the documentation run, from the repository's root, and print what
their comments say (`print(...)  # shown output`); an example that ends in raise_for_status()
on a failed tripwire raises TripwireFailed, as its comment says."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

import inferlint
from conftest import ROOT

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SHOWN = re.compile(r"^print\(.*\)\s+# (.*)$")


def _examples() -> list[tuple[str, int]]:
    out = []
    for doc in ("README.md", "docs/python.md"):
        for i, m in enumerate(BLOCK.finditer((ROOT / doc).read_text(encoding="utf-8"))):
            out.append((doc, i))
    return out


@pytest.mark.parametrize("doc,index", _examples())
def test_python_example_prints_what_it_shows(doc, index, monkeypatch):
    code = list(BLOCK.finditer((ROOT / doc).read_text(encoding="utf-8")))[index].group(1)
    shown = [m.group(1) for line in code.splitlines() if (m := SHOWN.match(line.strip()))]
    assert shown, "the example shows no output"
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        if "raise_for_status()  # raises TripwireFailed" in code:
            with pytest.raises(inferlint.TripwireFailed):
                exec(code, {})
        else:
            exec(code, {})
    assert out.getvalue().splitlines() == shown
