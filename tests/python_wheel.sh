#!/usr/bin/env bash
# The Python module's wheel (python/pyproject.toml, python/setup.py), built from BUILD with
# Debian's pip, setuptools and wheel (no network: --no-index, no build isolation), installed
# into a scratch folder, and imported from there: the wheel holds the extension, the package,
# its stubs and py.typed, and the reference README's example runs on it.
#   usage: tests/python_wheel.sh BUILD
set -euo pipefail
build=$(cd "${1:?usage: tests/python_wheel.sh BUILD}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
if ! "$py" -c 'import setuptools, wheel, pip' 2>/dev/null; then
  echo "python-wheel: skipped: needs Debian's python3-setuptools, python3-wheel and python3-pip"
  exit 77
fi
if ! ls "$build"/python/inferlint/_native*.so >/dev/null 2>&1; then
  echo "python-wheel: skipped: $build has no Python module (pybind11-dev and python3-dev make one)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/inferlint-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A copy of python/, so setuptools' build/ and egg-info land outside the checkout.
cp -r "$root/python" "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info
if ! INFERLINT_SOURCE_DIR="$root" INFERLINT_BUILD_DIR="$build" \
  "$py" -m pip wheel --no-build-isolation --no-deps --no-index -w "$work/dist" "$work/python" >"$work/pip.log" 2>&1; then
  tail -30 "$work/pip.log"
  echo "python-wheel: FAILED: pip wheel" >&2
  exit 1
fi
whl=$(ls "$work"/dist/inferlint-*.whl)
echo "python-wheel: built $(basename "$whl")"
"$py" - "$whl" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["inferlint/__init__.py", "inferlint/checks.py", "inferlint/checks.pyi", "inferlint/py.typed"]
missing = [n for n in need if n not in names]
if not any(n.startswith("inferlint/_native") and n.endswith(".so") for n in names):
    missing.append("inferlint/_native*.so")
if missing:
    sys.exit(f"python-wheel: the wheel lacks {missing}")
print(f"python-wheel: {len(names)} files, the extension and the package's stubs among them")
PY
"$py" -m pip install --no-deps --no-index --target "$work/site" "$whl" >"$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; echo "python-wheel: FAILED: pip install" >&2; exit 1; }
# Imported from the installed wheel, not from the build: the example of the reference README.
cd "$work"
PYTHONPATH="$work/site" PYTHONDONTWRITEBYTECODE=1 "$py" - "$work/site" "$root/tests/fixtures/vllm-sim/healthy" <<'PY'
import pathlib, sys
import inferlint
from inferlint import bootlog, checks, telemetry
site, run = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
assert pathlib.Path(inferlint.__file__).resolve().is_relative_to(site.resolve()), inferlint.__file__
before = telemetry.load(run / "before.snapshot.json")
after = telemetry.load(run / "after.snapshot.json")
result = checks.check_no_preemption(before, after)
print("python-wheel: from the wheel:", result.status.value, result.message)
facts = bootlog.parse_file(run / "boot.log")
assert facts.engine == "vllm" and result.tripwire == "T1", (facts.engine, result.tripwire)
PY
echo "python-wheel: passed"
