"""Where the module's tests find what they read: the project's own simulator run
(tests/fixtures/vllm-sim/healthy), the Python tool's recorded evidence in ../shared/reference
(skipped, and said, where it is absent), and the CLI built beside the module (its messages are
the ones the module's exceptions must carry)."""

from __future__ import annotations

import os
import pathlib

import pytest

import inferlint

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIM_RUN = ROOT / "tests" / "fixtures" / "vllm-sim" / "healthy"
REFERENCE = pathlib.Path(os.environ.get("INFERLINT_REFERENCE_DIR") or ROOT.parent / "shared" / "reference")
# build/python/inferlint/__init__.py -> build
BUILD = pathlib.Path(inferlint.__file__).resolve().parents[2]


@pytest.fixture
def reference() -> pathlib.Path:
    """The reference's folder (fixtures/, golden/); the test is skipped where it is absent."""
    if not (REFERENCE / "fixtures").is_dir():
        pytest.skip(f"needs the Python tool's recorded evidence in {REFERENCE}, which is absent")
    return REFERENCE


@pytest.fixture
def cli() -> pathlib.Path:
    """The inferlint program of the same build; the test is skipped where it was not built."""
    program = BUILD / "inferlint"
    if not program.is_file():
        pytest.skip(f"needs the CLI at {program} (cmake --build {BUILD} --target inferlint)")
    return program
