#!/usr/bin/env python3
"""How much of the field logs inferlint reads: boot-facts and check-log over every file in
../shared/field, compared with the facts INDEX.jsonl states for each.

usage: bench/field_logs.py BINARY [FIELD_DIR] [--verbose] [--json]

For every boot log (.log) it runs `BINARY boot-facts --json FILE` and `BINARY check-log FILE
--format json`, with no --engine, and counts:
  - engines told apart: boot-facts names the engine INDEX.jsonl names, from the log alone;
  - facts read: each fact INDEX.jsonl states (version, KV pool tokens, maximum concurrency,
    block size, attention backends, KV dtype, available KV memory, model load, CUDA graph
    memory, failure cause) that boot-facts (or check-log's T12 for the cause) gives the
    same (numbers to 0.01, names case-blind, the cause by its first 40 characters);
  - unparsed lines: boot-facts' `unparsed` entries;
  - the exit status of check-log on each log INDEX.jsonl marks complete_boot (a complete log
    of a healthy server must decide: 0 or 1, never 2).
For every /metrics dump (.prom) it records boot-facts' exit status (no boot log: 2 wanted).

Exit status 0; the figures are for the note, not a gate.
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FACTS = ["version", "kv_pool_tokens", "max_concurrency", "block_size", "attention_backend", "kv_cache_dtype",
         "available_kv_gib", "model_load_gib", "cuda_graph_gib", "failure_cause"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60)
    return p.returncode, p.stdout, p.stderr


def near(a, b):
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(float(a) - float(b)) < 0.011


def norm(name):
    return str(name).lower().replace("torch.", "").split(" ")[0]


def fact_read(key, want, facts, cause):
    """Whether boot-facts (or check-log's cause) gives the stated fact."""
    if key == "version":
        return want in (facts.get("vllm_version"), facts.get("engine_version"))
    if key == "kv_pool_tokens":
        return facts.get("kv_pool_tokens") == want
    if key == "max_concurrency":
        return near(facts.get("max_concurrency"), want["value"]) and \
            facts.get("max_concurrency_request_len") == want["tokens_per_request"]
    if key == "block_size":
        return want in (facts.get("attention_block_size"), facts.get("page_size"))
    if key == "attention_backend":
        got = {norm(b) for b in (facts.get("selected_backends") or []) + (facts.get("drafter_backends") or [])}
        if facts.get("linear_attention_backend"):
            got.add(norm(facts["linear_attention_backend"]))
        return all(norm(w) in got for w in want)
    if key == "kv_cache_dtype":
        return facts.get("kv_cache_dtype") is not None and norm(facts.get("kv_cache_dtype")) == norm(want)
    if key == "available_kv_gib":
        return near(facts.get("available_kv_cache_gib"), want)
    if key == "model_load_gib":
        return near(facts.get("model_load_gib"), want)
    if key == "cuda_graph_gib":
        return any(near(facts.get(k), want) for k in ("cudagraph_actual_gib", "cudagraph_estimated_gib", "cudagraph_memory_gib"))
    if key == "failure_cause":
        return cause is not None and want[:40] in cause
    return False


def failure_cause(check_json):
    """The cause check-log's T12 names (its message and evidence), or None."""
    try:
        doc = json.loads(check_json)
    except ValueError:
        return None
    results = doc.get("results", doc) if isinstance(doc, dict) else doc
    for r in results if isinstance(results, list) else []:
        if isinstance(r, dict) and r.get("tripwire") in ("T12", "T7") and r.get("status") == "fail":
            return json.dumps(r, ensure_ascii=False)
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose, as_json = "--verbose" in sys.argv, "--json" in sys.argv
    if not args:
        print(__doc__)
        return 2
    binary = args[0]
    field = pathlib.Path(args[1]) if len(args) > 1 else ROOT.parent / "shared" / "field"
    if not (field / "INDEX.jsonl").is_file():
        print(f"field_logs: skipped ({field}/INDEX.jsonl is absent)")
        return 0
    rows = [json.loads(l) for l in (field / "INDEX.jsonl").read_text().splitlines() if l.strip()]
    tot = {"logs": 0, "engines": 0, "facts": 0, "read": 0, "unparsed": 0, "prom": 0, "prom_exit2": 0}
    complete, missed, per_file = [], [], []
    for row in rows:
        path = field / row["file"]
        if path.suffix == ".prom":
            rc, _, err = run([binary, "boot-facts", "--json", str(path)])
            tot["prom"] += 1
            tot["prom_exit2"] += rc == 2
            per_file.append({"file": row["file"], "boot_facts_exit": rc, "stderr": err.strip()[:200]})
            continue
        tot["logs"] += 1
        rc, out, err = run([binary, "boot-facts", "--json", str(path)])
        try:
            facts = json.loads(out)
        except ValueError:
            facts = {}
        # The facts beyond the Python tool's (KV dtype, the CUDA graph share, the linear-attention
        # backend) are in the text form only: --json keeps the Python tool's keys.
        _, text, _ = run([binary, "boot-facts", str(path)])
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key in ("kv_cache_dtype", "linear_attention_backend", "cudagraph_memory_gib", "drafter_cudagraph_gib"):
                value = value.strip()
                try:
                    facts[key] = float(value) if key.endswith("_gib") else value
                except ValueError:
                    facts[key] = value
        crc, cout, _ = run([binary, "check-log", "--json", str(path)])
        cause = failure_cause(cout)
        engine_ok = facts.get("engine") == row["engine"]
        tot["engines"] += engine_ok
        stated = [k for k in FACTS if row.get(k) is not None]
        read = [k for k in stated if fact_read(k, row[k], facts, cause)]
        tot["facts"] += len(stated)
        tot["read"] += len(read)
        unparsed = facts.get("unparsed") or []
        tot["unparsed"] += len(unparsed)
        for k in stated:
            if k not in read:
                missed.append(f"{row['file']}: {k} (stated {row[k]!r})")
        if row.get("complete_boot"):
            complete.append(f"{row['file']}: check-log exit {crc}")
        per_file.append({"file": row["file"], "engine": facts.get("engine"), "engine_ok": engine_ok,
                         "boot_facts_exit": rc, "check_log_exit": crc, "stated": stated, "read": read,
                         "unparsed": [u.get("field") for u in unparsed]})
    if as_json:
        print(json.dumps({"totals": tot, "complete": complete, "files": per_file}, indent=1))
        return 0
    print(f"boot logs:              {tot['logs']}")
    print(f"engines told apart:     {tot['engines']} of {tot['logs']}")
    print(f"facts read:             {tot['read']} of {tot['facts']} stated in INDEX.jsonl")
    print(f"unparsed lines:         {tot['unparsed']}")
    print(f"/metrics dumps exit 2:  {tot['prom_exit2']} of {tot['prom']} (boot-facts)")
    for c in complete:
        print(f"complete healthy log:   {c}")
    if verbose:
        for m in missed:
            print(f"missed: {m}")
        for f in per_file:
            print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
