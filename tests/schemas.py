#!/usr/bin/env python3
"""The JSON Schemas in docs/schema/ against real outputs.

usage: tests/schemas.py BUILD_DIR

  - results.schema.json: --json of preemption, rate, series, check-log, report,
    client-counts on examples/ and on the reference fixtures (where present);
  - snapshot.schema.json and series.schema.json: every *.snapshot.json and
    *.series.jsonl in examples/, the fixtures, and the simulator's xray run;
  - xray-results.schema.json: that run's results.json, and xray --json's stdout (the same);
  - compare.schema.json: compare --json on copies of that run (a failed run, every gate,
    and a Can't tell);
  - each schema rejects a document with a field broken, so the check can fail.
Runs under a Python that has jsonschema (this one, else Debian's /usr/bin/python3); exit 77
(skipped) where neither has it. Exit 1 on any failure.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

from sim_xray import copies_of_run, xray_fleet_on_sim, xray_on_sim

ROOT = pathlib.Path(__file__).resolve().parent.parent
REF = pathlib.Path(os.environ.get("INFERLINT_REFERENCE_DIR") or ROOT.parent / "shared" / "reference")
SCHEMAS = ROOT / "docs" / "schema"
failures: list[str] = []

try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3") and subprocess.run(
            ["/usr/bin/python3", "-c", "import jsonschema"], capture_output=True).returncode == 0:
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    print("schemas: skipped (no Python here has jsonschema: apt-get install python3-jsonschema)")
    sys.exit(77)


def check(cond: bool, what: str) -> None:
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def validator(name: str):
    schema = json.loads((SCHEMAS / name).read_text())
    check(isinstance(schema.get("x-inferlint-version"), int), f"{name} carries its version")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid(v, doc, what: str) -> None:
    errors = sorted(v.iter_errors(doc), key=str)
    check(not errors, f"{what}: {errors[0].message if errors else ''}")


def series_doc(path: pathlib.Path, header, sample, what: str) -> int:
    lines = [l for l in path.read_text().splitlines() if l.strip()]
    valid(header, json.loads(lines[0]), f"{what} header")
    n = 0
    for l in lines[1:]:
        try:
            row = json.loads(l)
        except json.JSONDecodeError:
            continue  # a line cut by a killed run: readers skip it
        valid(sample, row, f"{what} sample")
        n += 1
    return n


def sim_xray(binary: str, sim: str, tmp: pathlib.Path) -> pathlib.Path:
    out, r = xray_on_sim(binary, sim, tmp, ["--json"])
    check((out / "results.json").is_file(), f"xray on the simulator wrote results.json: {r.stderr[-500:]!r}")
    if (out / "results.json").is_file():
        check(json.loads(r.stdout) == json.loads((out / "results.json").read_text()), "xray --json == results.json")
    return out


def compare_docs(binary: str, run_dir: pathlib.Path, tmp: pathlib.Path, env: dict) -> list:
    """compare --json on copies of one run: three runs an arm with every gate, one of them
    without its after snapshot (a failed run); and one run an arm (Can't tell)."""
    if not (run_dir / "after.snapshot.json").is_file():
        doc = json.loads((run_dir / "results.json").read_text())
        check(False, f"the simulator's xray run completed (for compare): {doc.get('problem')} {doc.get('stopped_at')}")
        return []
    a = copies_of_run(run_dir, tmp / "cmp-a", 3)
    b = copies_of_run(run_dir, tmp / "cmp-b", 4)
    (b[3] / "after.snapshot.json").unlink()
    docs = []
    for args in (["compare", *map(str, a), "--vs", *map(str, b), "--require-gain", "output_throughput:1",
                  "--floor", "0.95", "--max-spread", "0.2", "--paired"],
                 ["compare", str(a[0]), "--vs", str(b[0])]):
        r = subprocess.run([binary, *args, "--json"], capture_output=True, env=env, timeout=120)
        doc = json.loads(r.stdout)
        check(doc["exit_status"] == r.returncode, f"compare --json: exit_status {doc['exit_status']} is the exit status")
        docs.append(doc)
    check(docs[0]["arms"]["b"]["failed_runs"] == 1 and docs[0]["can_tell"], "compare: the failed run is counted")
    check(not docs[1]["can_tell"] and docs[1]["exit_status"] == 2, "compare: one run an arm is Can't tell, exit 2")
    return docs


def main() -> int:
    build = pathlib.Path(sys.argv[1]).resolve()
    binary, sim = str(build / "inferlint"), str(build / "inferlint-sim")
    results, xray = validator("results.schema.json"), validator("xray-results.schema.json")
    snapshot, series = validator("snapshot.schema.json"), validator("series.schema.json")
    compare = validator("compare.schema.json")
    defs = series.schema["$defs"]
    header = jsonschema.Draft202012Validator({**defs["header"]})
    sample = jsonschema.Draft202012Validator({**defs["sample"]})
    roots = [ROOT / "examples"] + ([REF / "fixtures"] if (REF / "fixtures").is_dir() else [])
    counts = {"snapshots": 0, "series": 0, "samples": 0, "--json": 0, "compare": 0}
    env = {k: v for k, v in os.environ.items() if k != "INFERLINT_ENGINE"}
    env["INFERLINT_TRIPWIRES"] = "all"
    with tempfile.TemporaryDirectory(prefix="inferlint-schemas-") as t:
        tmp = pathlib.Path(t)
        if os.access(sim, os.X_OK):
            roots.append(sim_xray(binary, sim, tmp))
            run_dir = roots[-1]
            if (run_dir / "results.json").is_file():
                valid(xray, json.loads((run_dir / "results.json").read_text()), "xray results.json")
                for doc in compare_docs(binary, run_dir, tmp, env):
                    valid(compare, doc, "compare --json")
                    counts["compare"] += 1
                    bad = json.loads(json.dumps(doc))
                    bad["arms"]["a"]["failed_runs"] = -1
                    check(not compare.is_valid(bad), "compare schema refuses a negative failed_runs")
            # A fleet's run: its results.json (the replicas' and the fleet's verdicts), and
            # each replica's folder read below as any run folder.
            fleet_dir, fr = xray_fleet_on_sim(binary, sim, tmp, ["--json"])
            check((fleet_dir / "results.json").is_file(), f"xray on two replicas wrote results.json: {fr.stderr[-500:]!r}")
            if (fleet_dir / "results.json").is_file():
                doc = json.loads((fleet_dir / "results.json").read_text())
                valid(xray, doc, "xray results.json of a fleet")
                check(json.loads(fr.stdout) == doc, "xray --json == results.json (a fleet)")
                check(len(doc.get("replicas", [])) == 2 and len(doc["plan"].get("replicas", [])) == 2,
                      "a fleet's results.json has both replicas")
                check(doc["completed"], f"the fleet's run completed: {doc.get('problem')}")
                bad = json.loads(json.dumps(doc))
                bad["replicas"][0]["folder"] = 7
                check(not xray.is_valid(bad), "xray schema refuses a replica folder that is not text")
                roots.append(fleet_dir)
        else:
            print(f"simulator: left out ({sim} is not built)")
        for root in roots:
            for f in sorted(root.rglob("*.snapshot.json")):
                valid(snapshot, json.loads(f.read_text()), str(f))
                counts["snapshots"] += 1
            for f in sorted(root.rglob("*.series.jsonl")):
                counts["samples"] += series_doc(f, header, sample, str(f))
                counts["series"] += 1
            for before in sorted(root.rglob("before.snapshot.json")):
                d, after = before.parent, before.parent / "after.snapshot.json"
                cmds = [["preemption", str(before), str(after)], ["rate", str(before), str(after)],
                        ["report", str(d), "-o", str(tmp / "r.html")], ["client-counts", str(d)]]
                if (d / "run.series.jsonl").is_file():
                    cmds.append(["series", str(d / "run.series.jsonl"), "--snapshot", str(after), "--requested", "8"])
                if (d / "boot.log").is_file():
                    cmds.append(["check-log", str(d / "boot.log")])
                for c in cmds:
                    r = subprocess.run([binary, *c, "--json"], capture_output=True, env=env, timeout=120)
                    if r.returncode == 2 and not r.stdout:
                        continue  # bad input for this command (one line on stderr): no document
                    valid(results, json.loads(r.stdout), " ".join(c[:2]) + " --json")
                    counts["--json"] += 1
    # The schemas can fail: a broken document of each kind is refused.
    good = {"tripwire": "T1", "status": "fail", "message": "m", "evidence": {}}
    check(not results.is_valid([{**good, "status": "failed"}]), "results schema refuses an unknown status")
    check(not results.is_valid([{k: v for k, v in good.items() if k != "evidence"}]), "results schema wants evidence")
    check(not snapshot.is_valid({"schema": "inferlint.snapshot/2", "url": "", "t_wall": 0, "t_mono_ns": 0,
                                 "latency_s": 0, "text": ""}), "snapshot schema refuses another version")
    check(not sample.is_valid({"t_wall": 1.0, "t_mono_ns": 5, "running": "3"}), "series schema refuses a string gauge")
    check(not xray.is_valid({"schema": "inferlint.xray/1"}), "xray schema wants its fields")
    print(f"schemas: {counts}; {len(failures)} failure(s)")
    check(counts["snapshots"] > 0 and counts["series"] > 0 and counts["--json"] > 0, "something was validated")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
