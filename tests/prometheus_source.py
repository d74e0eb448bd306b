#!/usr/bin/env python3
"""`snapshot --prometheus` against Debian's real Prometheus scraping two simulator replicas.

usage: tests/prometheus_source.py BUILD_DIR

The test starts two simulated vLLM replicas and a Prometheus (on free ports of 127.0.0.1,
with a config that scrapes both every 250 ms), runs a load on replica 1, and takes each
reading twice: straight from the replica (`snapshot URL`) and from Prometheus (`snapshot
--prometheus ... --match '{instance="..."}' --at T`). Then:
  - the engine's counters agree exactly (the load is over and the replica idle when both
    are read), and the replica's other series come along;
  - `rate` and `preemption` read the Prometheus snapshots as they read any: the same
    tokens, and a span within two scrape intervals of the direct one (each reading is
    Prometheus's last scrape at or before --at, so each end may be up to 250 ms early);
  - a replica killed after the run: its snapshot at a moment before the kill still comes
    from Prometheus's history; at a moment after, one line and exit 2 (down, or no series);
  - bad input is one line naming Prometheus and exit 2, with no file left: a selector that
    matches two replicas, one that matches none, one Prometheus refuses, one without braces,
    a Prometheus that is down, a replica read as another engine.
Exit 77 (skipped) where prometheus is not installed; 1 on any failure.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

failures: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def wait_for(what: str, ok, seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if ok():
                return True
        except OSError:
            pass
        time.sleep(0.1)
    check(False, f"{what} within {seconds} s")
    return False


def counters(path: pathlib.Path) -> dict[str, float]:
    """Sum of every *_total series per metric name in a snapshot file's text."""
    out: dict[str, float] = {}
    for line in json.loads(path.read_text())["text"].splitlines():
        if not line or line.startswith("#"):
            continue
        name = line.split("{")[0].split(" ")[0]
        if name.endswith("_total"):
            out[name] = out.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


class Run:
    def __init__(self, build: pathlib.Path, tmp: pathlib.Path):
        self.bin, self.sim, self.tmp = str(build / "inferlint"), str(build / "inferlint-sim"), tmp
        self.env = {k: v for k, v in os.environ.items() if k not in ("INFERLINT_ENGINE", "NO_COLOR")}
        self.procs: list[subprocess.Popen] = []

    def start(self, argv: list[str], log: str) -> subprocess.Popen:
        p = subprocess.Popen(argv, stdout=open(self.tmp / log, "wb"), stderr=subprocess.STDOUT, env=self.env)
        self.procs.append(p)
        return p

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([self.bin, *args], capture_output=True, text=True, env=self.env, timeout=60)

    def stop_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def main() -> int:
    build = pathlib.Path(sys.argv[1]).resolve()
    prometheus = shutil.which("prometheus")
    if not prometheus:
        print("prometheus_source: skipped (prometheus is not installed: apt-get install prometheus)")
        return 77
    with tempfile.TemporaryDirectory(prefix="inferlint-prom-") as t:
        tmp = pathlib.Path(t)
        r = Run(build, tmp)
        try:
            body(r, prometheus, tmp)
        finally:
            r.stop_all()
    print(f"prometheus_source: {len(failures)} failure(s)")
    return 1 if failures else 0


def body(r: Run, prometheus: str, tmp: pathlib.Path) -> None:
    ports = [free_port(), free_port()]
    replicas = [f"127.0.0.1:{p}" for p in ports]
    sims = [r.start([r.sim, "vllm", "serve", "sim/Qwen3-8B", "--port", str(p), "--sim-boot-s", "0.05",
                     "--sim-log-interval-s", "0.5", "--sim-time-scale", "10",
                     # a replica SIGKILLed here must not leave its EngineCore behind (an
                     # orphan would fail the T2 gate of the xray tests that run later)
                     "--sim-orphan-linger-s", "0"], f"replica-{i}.log")
            for i, p in enumerate(ports)]
    prom_port = free_port()
    prom = f"http://127.0.0.1:{prom_port}"
    (tmp / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\n"
        "scrape_configs:\n  - job_name: vllm\n    static_configs:\n"
        f"      - targets: ['{replicas[0]}', '{replicas[1]}']\n")
    r.start([prometheus, f"--config.file={tmp / 'prometheus.yml'}", f"--storage.tsdb.path={tmp / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prom_port}"], "prometheus.log")

    def all_up() -> bool:
        active = get_json(prom + "/api/v1/targets")["data"]["activeTargets"]
        return len(active) == 2 and all(a["health"] == "up" for a in active)

    if not wait_for("Prometheus scrapes both replicas", all_up):
        print((tmp / "prometheus.log").read_text()[-2000:])
        return
    time.sleep(0.6)
    match = '{instance="%s"}' % replicas[0]

    def both(name: str) -> tuple[pathlib.Path, pathlib.Path, subprocess.CompletedProcess]:
        direct, via = tmp / f"{name}.direct.snapshot.json", tmp / f"{name}.prom.snapshot.json"
        d = r.cli("snapshot", f"http://{replicas[0]}", "-o", str(direct))
        check(d.returncode == 0, f"{name}: snapshot of the replica: {d.stderr.strip()}")
        time.sleep(0.6)  # two scrapes later: Prometheus has a reading after the direct one
        p = r.cli("snapshot", "--prometheus", prom, "--match", match, "--at", f"{time.time():.3f}", "-o", str(via))
        check(p.returncode == 0 and via.is_file(), f"{name}: snapshot --prometheus: {p.stdout.strip()} {p.stderr.strip()}")
        return direct, via, p

    before_d, before_p, _ = both("before")
    load = r.start([r.sim, "vllm", "bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", f"http://{replicas[0]}",
                    "--num-prompts", "16", "--max-concurrency", "8", "--random-input-len", "64",
                    "--random-output-len", "32", "--ignore-eos"], "load.log")
    check(load.wait(timeout=120) == 0, "the load on replica 1 completed")
    time.sleep(0.6)
    after_d, after_p, _ = both("after")
    if not after_p.is_file() or not before_p.is_file():
        return
    doc = json.loads(after_p.read_text())
    check(doc["schema"] == "inferlint.snapshot/1" and doc["url"] == f"{prom}#instance={replicas[0]}",
          f"the Prometheus snapshot names Prometheus and the replica: {doc['url']}")
    check(doc["latency_s"] is not None and 0 <= doc["latency_s"] < 0.25, f"latency is the scrape's: {doc['latency_s']}")
    check('instance="' not in doc["text"] and 'job="' not in doc["text"], "job and instance are not in the text")
    # The engine's counters; http_requests_total differs by design: it counts Prometheus's
    # own scrapes, four a second.
    cd = {k: v for k, v in counters(after_d).items() if k.startswith("vllm:")}
    cp = {k: v for k, v in counters(after_p).items() if k.startswith("vllm:")}
    check("http_requests_total" in counters(after_p), "the replica's other series come too (http_requests_total)")
    check(cd.get("vllm:generation_tokens_total", 0) > 0, "the load generated tokens")
    same = {k for k in cd if k in cp and cd[k] == cp[k]}
    check(set(cd) == set(cp) and same == set(cd), f"every counter agrees: differ {sorted(set(cd) ^ same)}")
    rd = json.loads(r.cli("rate", str(before_d), str(after_d), "--json").stdout)[0]
    rp = r.cli("rate", str(before_p), str(after_p), "--json")
    check(rp.returncode == 0, f"rate reads the Prometheus snapshots: {rp.stderr.strip()}")
    rp = json.loads(rp.stdout)[0]
    check(rp["evidence"]["tokens"] == rd["evidence"]["tokens"], f"rate: the same tokens ({rp['evidence']['tokens']})")
    check(abs(rp["evidence"]["span_s"] - rd["evidence"]["span_s"]) <= 0.5,
          f"rate: span {rp['evidence']['span_s']:.3f} s against {rd['evidence']['span_s']:.3f} s direct")
    pre = r.cli("preemption", str(before_p), str(after_p), "--json")
    check(pre.returncode == 0 and json.loads(pre.stdout)[0]["status"] == "pass",
          f"preemption on the Prometheus snapshots: {pre.stdout[:200]} {pre.stderr.strip()}")

    # A replica killed: its past is still in Prometheus; its present is not.
    was_up = time.time()
    sims[1].kill()
    sims[1].wait()
    time.sleep(1.0)
    core = re.search(r"\(EngineCore pid=(\d+)\)", (tmp / "replica-1.log").read_text())
    check(core is not None and wait_for("the killed replica's EngineCore to go",
                                        lambda: not pathlib.Path(f"/proc/{core.group(1)}").exists(), 10),
          "the killed replica's EngineCore is gone too (no orphan left for later tests)")
    past = r.cli("snapshot", "--prometheus", prom, "--match", '{instance="%s"}' % replicas[1], "--at",
                 f"{was_up - 0.3:.3f}", "-o", str(tmp / "past.snapshot.json"))
    check(past.returncode == 0, f"a killed replica's snapshot before the kill: {past.stderr.strip()}")
    gone = r.cli("snapshot", "--prometheus", prom, "--match", '{instance="%s"}' % replicas[1], "-o",
                 str(tmp / "gone.snapshot.json"))
    check(gone.returncode == 2 and len(gone.stderr.strip().splitlines()) == 1 and
          ("was down" in gone.stderr or "no series" in gone.stderr) and not (tmp / "gone.snapshot.json").exists(),
          f"a killed replica now: one line, exit 2, no file: {gone.stderr.strip()}")

    dead = free_port()
    bad = [(["--match", '{job="vllm"}', "--at", f"{was_up - 0.3:.3f}"], "matches 2 replicas", prom),
           (["--match", '{job="nope"}'], "no series", prom),
           (["--match", '{job=~"("}'], "Prometheus refused the query (bad_data)", prom),
           (["--match", 'job="vllm"'], "not a label selector", prom),
           (["--match", match, "--at", "yesterday"], "--at: 'yesterday' is not a time", prom),
           (["--match", match], f"127.0.0.1:{dead}", f"http://127.0.0.1:{dead}"),
           (["--match", match, "--engine", "sglang"], "vLLM", prom)]
    for args, says, url in bad:
        out = tmp / "bad.snapshot.json"
        res = r.cli("snapshot", "--prometheus", url, *args, "-o", str(out))
        lines = res.stderr.strip().splitlines()
        check(res.returncode == 2 and len(lines) == 1 and says in lines[0] and not out.exists(),
              f"snapshot --prometheus {' '.join(args)}: exit {res.returncode}, {lines}")


if __name__ == "__main__":
    sys.exit(main())
