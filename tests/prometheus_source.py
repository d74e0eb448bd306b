#!/usr/bin/env python3
"""`snapshot --prometheus` and the fleet commands' `--prometheus` against Debian's real
Prometheus scraping three simulator replicas.

usage: tests/prometheus_source.py BUILD_DIR

The test starts three simulated vLLM replicas and a Prometheus (on free ports of 127.0.0.1,
with a config that scrapes them every 250 ms), runs a load on replica 1, and takes each
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
Then the fleet (`fleet_part`): a load on all three replicas at once (4 requests open on
each, 12 asked of the fleet), read back over the window with `--prometheus`:
  - preemption, rate, prefix-cache, client-counts and series give one set of verdicts per
    replica and one for the fleet; each replica's counters (T1's preemptions, T10's tokens,
    T16's shares) agree exactly with the direct snapshots taken at the window's ends (the
    replicas are idle there, so the last scrape before each end holds the same counts);
    the fleet's tokens are the replicas' sum;
  - each replica's gaps are those Prometheus's own scrapes show: none, or, where a loaded
    machine delayed its first scrape in the window, one from the window's start;
  - T8 for the fleet holds 12 against the sum of running requests at each 250 ms step.
    Tolerance: the sampled peak is a lower bound of the true one (a 250 ms sample can miss
    a shorter peak), so the test asks the sum to reach 12 only because each replica holds
    its 4 requests open for seconds, and checks the message says the sampling interval;
  - `--run` takes the window from a run folder's snapshots; `report --prometheus` writes one
    page with the replica table;
  - a replica killed mid-window and started again on its port: its gap is listed, T1 says
    it restarted, and no sample in the gap reads zero.
Bad input for the fleet: a fake Prometheus (tests/fault_server.py's way, in-process here)
that warns of a partial answer, refuses a range as too long, answers nothing, or hangs; a
selector of no series; another engine's series.
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
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
            # No EngineCore of ours outlives the test: the xray tests that run after it
            # would see it at the card (T2) and refuse to start.
            cores = set()
            for log in tmp.glob("replica-*.log"):
                cores.update(re.findall(r"\(EngineCore pid=(\d+)\)", log.read_text(errors="replace")))
            end = time.monotonic() + 15
            while time.monotonic() < end and any(pathlib.Path(f"/proc/{c}").exists() for c in cores):
                time.sleep(0.1)
            left = [c for c in cores if pathlib.Path(f"/proc/{c}").exists()]
            check(not left, f"no EngineCore of the replicas is left ({left})")
    print(f"prometheus_source: {len(failures)} failure(s)")
    return 1 if failures else 0


def body(r: Run, prometheus: str, tmp: pathlib.Path) -> None:
    ports = [free_port(), free_port(), free_port()]
    replicas = [f"127.0.0.1:{p}" for p in ports]
    sims = [r.start([r.sim, "vllm", "serve", "sim/Qwen3-8B", "--port", str(p), "--sim-boot-s", "0.05",
                     "--sim-log-interval-s", "0.5", "--sim-time-scale", "10",
                     # a replica SIGKILLed here must not leave its EngineCore behind (an
                     # orphan would fail the T2 gate of the xray tests that run later)
                     "--sim-orphan-linger-s", "0"], f"replica-{i}.log")
            for i, p in enumerate(ports)]
    r.sim_argv = lambda p: [r.sim, "vllm", "serve", "sim/Qwen3-8B", "--port", str(p), "--sim-boot-s", "0.05",
                            "--sim-log-interval-s", "0.5", "--sim-time-scale", "10", "--sim-orphan-linger-s", "0"]
    prom_port = free_port()
    prom = f"http://127.0.0.1:{prom_port}"
    (tmp / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\n"
        "scrape_configs:\n  - job_name: vllm\n    static_configs:\n"
        f"      - targets: ['{replicas[0]}', '{replicas[1]}', '{replicas[2]}']\n")
    r.start([prometheus, f"--config.file={tmp / 'prometheus.yml'}", f"--storage.tsdb.path={tmp / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prom_port}"], "prometheus.log")

    def all_up() -> bool:
        active = get_json(prom + "/api/v1/targets")["data"]["activeTargets"]
        return len(active) == 3 and all(a["health"] == "up" for a in active)

    if not wait_for("Prometheus scrapes the three replicas", all_up):
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

    fleet_part(r, prom, replicas, sims, tmp)
    fleet_bad_input(r, prom, tmp)

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
    bad = [(["--match", '{job="vllm"}', "--at", f"{was_up - 0.3:.3f}"], "matches 3 replicas", prom),
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


def fleet_doc(res: subprocess.CompletedProcess, what: str):
    try:
        doc = json.loads(res.stdout)
    except json.JSONDecodeError:
        check(False, f"{what}: a JSON document (exit {res.returncode}, {res.stderr.strip()[:300]})")
        return None
    check(doc.get("schema") == "inferlint.fleet/1", f"{what}: an inferlint.fleet/1 document")
    return doc


def result_of(results: list, code: str):
    return next((x for x in results if x["tripwire"] == code), None)


def fleet_part(r: Run, prom: str, replicas: list[str], sims: list, tmp: pathlib.Path) -> None:
    fleet = '{job="vllm"}'

    def direct(tag: str) -> list[pathlib.Path]:
        out = []
        for i, rep in enumerate(replicas):
            p = tmp / f"fleet-{tag}-{i}.snapshot.json"
            d = r.cli("snapshot", f"http://{rep}", "-o", str(p))
            check(d.returncode == 0, f"fleet: direct {tag} snapshot of replica {i}: {d.stderr.strip()}")
            out.append(p)
        return out

    time.sleep(0.6)
    t0 = time.time()
    before = direct("before")
    watch_file = tmp / "replica0.series.jsonl"
    watch = r.start([r.bin, "watch", f"http://{replicas[0]}", "-o", str(watch_file), "--interval", "0.05",
                     "--duration", "60"], "watch.log")
    time.sleep(0.3)
    loads = [r.start([r.sim, "vllm", "bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", f"http://{rep}",
                      "--num-prompts", "12", "--max-concurrency", "4", "--random-input-len", "64",
                      "--random-output-len", "512", "--ignore-eos", "--save-result", "--result-dir", str(tmp),
                      "--result-filename", f"bench-{i}.json"], f"fleet-load-{i}.log")
             for i, rep in enumerate(replicas)]
    for i, load in enumerate(loads):
        check(load.wait(timeout=120) == 0, f"fleet: the load on replica {i} completed")
    time.sleep(0.3)
    watch.terminate()
    watch.wait(timeout=10)
    time.sleep(0.4)
    after = direct("after")
    time.sleep(0.6)  # a scrape after the direct snapshots: each end holds the same counts
    t1 = time.time()
    win = ["--prometheus", prom, "--match", fleet, "--start", f"{t0:.3f}", "--end", f"{t1:.3f}"]

    pre = r.cli("preemption", *win, "--json")
    doc = fleet_doc(pre, "fleet preemption")
    if doc is None:
        return
    names = [x["replica"] for x in doc["replicas"]]
    check(pre.returncode == 0 and sorted(names) == sorted(replicas), f"fleet: three replicas by instance: {names}")
    check(doc["step_s"] == 0.25 and doc["step_from"] == "the targets' scrape interval",
          f"fleet: the step is the scrape interval from /api/v1/targets: {doc['step_s']} ({doc['step_from']})")
    check(all(result_of(x["results"], "T1")["status"] == "pass" for x in doc["replicas"]) and
          result_of(doc["fleet"]["results"], "T1")["status"] == "pass", "fleet: T1 passes per replica and for the fleet")
    # No gap but the one Prometheus's own samples show. A replica's first scrape in the window
    # comes within a step of its start, unless Prometheus scraped late (a loaded machine
    # delays a 0.25 s scrape): then the steps before it are left out, as a gap from the
    # window's start to the first step at or after that scrape. Which of the two happened is
    # read from Prometheus, not assumed from the wall clock.
    t0w, t1w, step = float(f"{t0:.3f}"), float(f"{t1:.3f}"), doc["step_s"]
    for x in doc["replicas"]:
        q = urllib.parse.quote('vllm:num_requests_running{instance="%s"}[%dms]' %
                               (x["replica"], round((t1w - t0w) * 1000) + 1))
        raw = get_json(f"{prom}/api/v1/query?query={q}&time={t1w:.3f}")["data"]["result"]
        scrapes = [float(t) for t, _ in raw[0]["values"]] if raw else []
        first = min((t for t in scrapes if t >= t0w), default=None)
        what = f"fleet: replica {x['replica']}: gaps {x['gaps']}, first scrape {first} in [{t0w}, {t1w}]"
        check(first is not None and x["samples"] > 10, f"{what}, {x['samples']} samples")
        if first is None:
            continue
        if first - t0w < step - 0.002:
            check(not x["gaps"], f"{what}: scraped within a step of the start, so no gap")
        elif first - t0w > step + 0.002:
            check(len(x["gaps"]) == 1 and abs(x["gaps"][0][0] - t0w) < 0.002 and
                  first - 0.002 <= x["gaps"][0][1] <= first + step + 0.002,
                  f"{what}: scraped late, so one gap from the start to the first step after that scrape")
        else:  # a scrape a step after the start, to the millisecond: either reading is right
            check(len(x["gaps"]) <= 1, f"{what}: at most the start's gap")
    text = r.cli("preemption", *win)
    check(text.stdout.count("-- replica ") == 3 and "-- fleet (3 replicas)" in text.stdout,
          f"fleet: the text has a heading per replica and the fleet: {text.stdout[:400]}")

    rate = r.cli("rate", *win, "--json")
    doc = fleet_doc(rate, "fleet rate")
    if doc:
        total = 0
        for x in doc["replicas"]:
            i = replicas.index(x["replica"])
            d = json.loads(r.cli("rate", str(before[i]), str(after[i]), "--json").stdout)[0]
            got = result_of(x["results"], "T10")
            total += d["evidence"]["tokens"]
            check(got["evidence"]["tokens"] == d["evidence"]["tokens"] > 0,
                  f"fleet rate, replica {i}: {got['evidence']['tokens']} tokens, direct {d['evidence']['tokens']}")
        f10 = result_of(doc["fleet"]["results"], "T10")
        check(f10["evidence"]["tokens"] == total, f"fleet rate: the fleet's tokens are the sum ({f10['evidence']['tokens']} of {total})")

    pc = fleet_doc(r.cli("prefix-cache", *win, "--json"), "fleet prefix-cache")
    if pc:
        for x in pc["replicas"]:
            i = replicas.index(x["replica"])
            d = json.loads(r.cli("prefix-cache", str(before[i]), str(after[i]), "--json").stdout)[0]
            got = result_of(x["results"], "T16")
            check(got["status"] == d["status"] and got["message"] == d["message"],
                  f"fleet prefix-cache, replica {i}: {got['status']} {got['message']}, direct "
                  f"{d['status']} {d['message']}")

    one = ["--prometheus", prom, "--match", '{instance="%s"}' % replicas[0], "--start", f"{t0:.3f}", "--end", f"{t1:.3f}"]
    load_log = str(tmp / "fleet-load-0.log")  # the load tool's test request, left out of its result
    cc = r.cli("client-counts", *one, "--bench-result", str(tmp / "bench-0.json"), "--load-log", load_log, "--json")
    doc = fleet_doc(cc, "client-counts on one replica")
    if doc:
        d = json.loads(r.cli("client-counts", str(before[0]), str(after[0]), "--bench-result",
                             str(tmp / "bench-0.json"), "--load-log", load_log, "--json").stdout)
        got, want = result_of(doc["fleet"]["results"], "T15"), result_of(d, "T15")
        check(got is not None and want is not None and got["status"] == want["status"] == "pass",
              f"client-counts --prometheus: T15 {got and got['status']} as direct {want and want['status']}: "
              f"{got and got['message']} / {want and want['message']}")
        # T20 too, where the fleet has both sides: the load tool's result and the replicas' counters.
        got, want = result_of(doc["fleet"]["results"], "T20"), result_of(d, "T20")
        check(got is not None and want is not None and got["status"] == want["status"] == "pass" and
              got["evidence"]["client_completed"] == want["evidence"]["client_completed"] and
              got["evidence"]["server_http_errors"] == want["evidence"]["server_http_errors"],
              f"client-counts --prometheus: T20 {got and got['status']} as direct {want and want['status']}: "
              f"{got and got['message']} / {want and want['message']}")

    ser = r.cli("series", *win, "--requested", "12", "--json")
    doc = fleet_doc(ser, "fleet series")
    if doc:
        t8 = result_of(doc["fleet"]["results"], "T8")
        check(t8["status"] == "pass" and t8["evidence"].get("sampling_interval_s") == 0.25 and
              "sampled every 0.25 s" in t8["message"] and "lower bound" in t8["message"],
              f"fleet T8 holds 12 against the sum, and says its sampling: {t8['status']}: {t8['message']}")
        check(all(result_of(x["results"], "T8") is None for x in doc["replicas"]),
              "fleet: T8 is the fleet's alone (a replica's share of the 12 is not known)")
        direct_series = r.cli("series", str(watch_file), "--snapshot", str(after[0]), "--requested", "4", "--json")
        d14 = result_of(json.loads(direct_series.stdout or "[]"), "T14") or {"status": "absent", "evidence": {}}
        x0 = next(x for x in doc["replicas"] if x["replica"] == replicas[0])
        p14 = result_of(x0["results"], "T14") or {"status": "absent", "evidence": {}}
        check(d14["status"] == "pass" and p14["status"] in ("pass", "unknown") and
              (p14["status"] != "pass" or
               p14["evidence"].get("inferred_usable_blocks") == d14["evidence"].get("inferred_usable_blocks")),
              f"replica 0's T14 from Prometheus ({p14['status']}, {p14['evidence'].get('inferred_usable_blocks')}) "
              f"agrees with a 50 ms direct recording ({d14['status']}, "
              f"{d14['evidence'].get('inferred_usable_blocks')}) where it decides")

    # A window that starts just after replica 0's last busy scrape: a query_range step holds
    # the last scrape at or before it, so the window's first step would carry that busy
    # reading from before the window. It is left out: in the window the replica ran nothing.
    q = urllib.parse.quote('vllm:num_requests_running{instance="%s"}[%ds]' % (replicas[0], int(t1 - t0) + 5))
    raw = get_json(f"{prom}/api/v1/query?query={q}&time={t1:.3f}")["data"]["result"]
    busy = [float(t) for t, v in (raw[0]["values"] if raw else []) if float(v) >= 1]
    check(bool(busy), f"replica 0 ran requests in Prometheus's samples: {len(busy)} busy")
    if busy:
        ws, we = busy[-1] + 0.001, busy[-1] + 2.0
        late = r.cli("series", "--prometheus", prom, "--match", '{instance="%s"}' % replicas[0],
                     "--start", f"{ws:.3f}", "--end", f"{we:.3f}", "--requested", "1", "--json")
        d = fleet_doc(late, "series over a window after the last busy scrape")
        if d:
            t8 = result_of(d["fleet"]["results"], "T8")
            check(d["replicas"][0]["samples"] >= 4 and t8["evidence"]["peak_running"] == 0,
                  f"a scrape from before the window is not in it: {d['replicas'][0]['samples']} samples, T8 "
                  f"{t8['status']}: {t8['message']}")

    run_dir = tmp / "run-folder"
    run_dir.mkdir()
    shutil.copy(before[0], run_dir / "before.snapshot.json")
    shutil.copy(after[0], run_dir / "after.snapshot.json")
    by_run = fleet_doc(r.cli("preemption", "--prometheus", prom, "--match", fleet, "--run", str(run_dir), "--json"),
                       "--run")
    if by_run:
        t_b = json.loads(before[0].read_text())["t_wall"]
        t_a = json.loads(after[0].read_text())["t_wall"]
        check(abs(by_run["window"]["start"] - t_b) < 1e-3 and abs(by_run["window"]["end"] - t_a) < 1e-3,
              f"--run takes the window from the folder's snapshots: {by_run['window']}")

    # A fleet's run folder, laid out as `xray --url A --url B --url C` writes it: one folder
    # per replica, named in results.json's plan. The window runs from the earliest replica's
    # before to the latest one's after.
    fleet_dir = tmp / "fleet-run-folder"
    fleet_dir.mkdir()
    folders = []
    for i in range(len(replicas)):
        sub = fleet_dir / f"replica-{i}"
        sub.mkdir()
        shutil.copy(before[i], sub / "before.snapshot.json")
        shutil.copy(after[i], sub / "after.snapshot.json")
        folders.append({"folder": sub.name, "url": f"http://{replicas[i]}"})
    (fleet_dir / "results.json").write_text(json.dumps({"schema": "inferlint.xray/1", "plan": {"replicas": folders}}))
    starts = [json.loads(p.read_text())["t_wall"] for p in before]
    ends = [json.loads(p.read_text())["t_wall"] for p in after]
    by_fleet = fleet_doc(r.cli("preemption", "--prometheus", prom, "--match", fleet, "--run", str(fleet_dir),
                               "--json"), "--run on a fleet's folder")
    if by_fleet:
        check(abs(by_fleet["window"]["start"] - min(starts)) < 1e-3 and
              abs(by_fleet["window"]["end"] - max(ends)) < 1e-3 and len(by_fleet["replicas"]) == len(replicas),
              f"--run on a fleet's folder: from the earliest before to the latest after: {by_fleet['window']}")
    # A replica killed mid-run has no after snapshot: the window is the others', and the
    # replica is still read from Prometheus. The one taken away is the one whose after
    # snapshot was the latest, so the window's end moves.
    last = max(range(len(replicas)), key=lambda i: ends[i])
    others = [i for i in range(len(replicas)) if i != last]
    (fleet_dir / f"replica-{last}" / "after.snapshot.json").unlink()
    no_after = fleet_doc(r.cli("preemption", "--prometheus", prom, "--match", fleet, "--run", str(fleet_dir),
                               "--json"), "--run on a fleet's folder with a replica's after snapshot missing")
    if no_after:
        check(abs(no_after["window"]["end"] - max(ends[i] for i in others)) < 1e-3 and
              ends[last] > max(ends[i] for i in others) and
              abs(no_after["window"]["start"] - min(starts[i] for i in others)) < 1e-3 and
              len(no_after["replicas"]) == len(replicas),
              f"--run with replica {last}'s after snapshot missing: the others' window, every replica read: "
              f"{no_after['window']}, {len(no_after['replicas'])} replicas")
    for i in others:
        (fleet_dir / f"replica-{i}" / "after.snapshot.json").unlink()
    none = r.cli("preemption", "--prometheus", prom, "--match", fleet, "--run", str(fleet_dir), "--json")
    check(none.returncode == 2 and "no replica has before and after snapshots" in none.stderr and
          str(fleet_dir) in none.stderr and none.stderr.count("\n") == 1 and not none.stdout.strip(),
          f"--run on a fleet's folder where no replica has both snapshots: one line, exit 2: {none.stderr!r}")

    page = tmp / "fleet.html"
    rep = r.cli("report", *win, "--requested", "12", "-o", str(page))
    html = page.read_text() if page.is_file() else ""
    check(rep.returncode in (0, 1) and all(x in html for x in replicas) and "Replicas" in html,
          f"report --prometheus writes one page with the replicas: exit {rep.returncode}, {rep.stderr.strip()[:200]}")
    check("<script src=" not in html and 'href="http' not in html and 'src="http' not in html,
          "the fleet page fetches nothing")

    # Replica 2 killed mid-load, then started again on its port: a gap and a restart.
    t2 = time.time()
    load = r.start([r.sim, "vllm", "bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", f"http://{replicas[2]}",
                    "--num-prompts", "40", "--max-concurrency", "4", "--random-input-len", "64",
                    "--random-output-len", "512", "--ignore-eos"], "kill-load.log")
    time.sleep(1.0)
    sims[2].kill()
    sims[2].wait()
    load.wait(timeout=30)
    time.sleep(1.5)
    port = int(replicas[2].rsplit(":", 1)[1])
    sims[2] = r.start(r.sim_argv(port), "replica-2-again.log")
    restarted_at = time.time()

    def up_again() -> bool:
        q = urllib.parse.quote('up{instance="%s"}' % replicas[2])
        got = get_json(f"{prom}/api/v1/query?query={q}")["data"]["result"]
        return bool(got) and got[0]["value"][1] == "1" and got[0]["value"][0] > restarted_at

    wait_for("replica 2 up again in Prometheus", up_again, 20)
    again = r.start([r.sim, "vllm", "bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", f"http://{replicas[2]}",
                     "--num-prompts", "4", "--max-concurrency", "4", "--random-input-len", "64",
                     "--random-output-len", "64", "--ignore-eos"], "again-load.log")
    again.wait(timeout=60)
    time.sleep(0.8)
    t3 = time.time()
    res = r.cli("preemption", "--prometheus", prom, "--match", '{instance="%s"}' % replicas[2],
                "--start", f"{t2:.3f}", "--end", f"{t3:.3f}", "--json")
    doc = fleet_doc(res, "a replica killed and started again")
    if doc:
        x = doc["replicas"][0]
        gap = sum(b - a for a, b in x["gaps"])
        t1r = result_of(x["results"], "T1")
        check(gap >= 1.0 and x["samples"] <= (t3 - t2 - gap) / 0.25 + 2,
              f"the killed replica's gap is listed ({gap:.2f} s in {x['gaps']}), with no samples in it ({x['samples']})")
        check(res.returncode == 1 and t1r["status"] == "fail" and t1r["evidence"].get("restarted") is True,
              f"T1 says the replica restarted: exit {res.returncode}, {t1r['status']}: {t1r['message']}")
    ser = r.cli("series", "--prometheus", prom, "--match", '{instance="%s"}' % replicas[2],
                "--start", f"{t2:.3f}", "--end", f"{t3:.3f}", "--step", "0.25", "--json")
    d = fleet_doc(ser, "series over the killed replica's window")
    if d:
        ev = result_of(d["replicas"][0]["results"], "T9")
        check(ev is not None, f"series over the gap gives T9: {ev and ev['status']}")


class FakeProm(BaseHTTPRequestHandler):
    """A Prometheus that lies in one way at a time (FakeProm.mode)."""
    mode = "partial"

    def log_message(self, *args) -> None:
        pass

    def answer(self, doc: dict, status: int = 200) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        mode, path = FakeProm.mode, self.path
        if mode == "hang":
            time.sleep(10)
            return
        sets = [{"__name__": "vllm:num_requests_running", "instance": "10.0.0.1:8000", "job": "vllm"}]
        if path.startswith("/api/v1/series"):
            if mode == "empty":
                return self.answer({"status": "success", "data": []})
            doc = {"status": "success", "data": sets}
            if mode == "partial":
                doc["warnings"] = ["partial response: store 10.0.0.9:10901 unavailable"]
            return self.answer(doc)
        if path.startswith("/api/v1/targets"):
            return self.answer({"status": "success", "data": {"activeTargets": [
                {"labels": {"instance": "10.0.0.1:8000", "job": "vllm"}, "scrapeInterval": "1s", "health": "up"}]}})
        if path.startswith("/api/v1/query_range"):
            return self.answer({"status": "error", "errorType": "bad_data",
                                "error": "exceeded maximum resolution of 11,000 points per timeseries. Try "
                                         "decreasing the query resolution (?step=XX)"}, 400)
        return self.answer({"status": "success", "data": {"resultType": "vector", "result": []}})


def fleet_bad_input(r: Run, prom: str, tmp: pathlib.Path) -> None:
    fake = ThreadingHTTPServer(("127.0.0.1", 0), FakeProm)
    fake.daemon_threads = True
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{fake.server_address[1]}"
    now = time.time()
    win = ["--start", f"{now - 60:.3f}", "--end", f"{now:.3f}"]
    dead = free_port()
    cases = [("partial", url, [], "may be partial"),
             ("too_long", url, [], "exceeded maximum resolution"),
             ("empty", url, [], "no series of vLLM, SGLang or TensorRT-LLM"),
             ("hang", url, ["--timeout", "1"], url.split("//")[1]),
             ("down", f"http://127.0.0.1:{dead}", [], f"127.0.0.1:{dead}"),
             ("none", prom, ["--match", '{job="nope"}'], "no series"),
             ("bad selector", prom, ["--match", '{job=~"("}'], "Prometheus refused the query"),
             ("no window", prom, ["--match", '{job="vllm"}', "--start", ""], "--start and --end"),
             ("another engine", prom, ["--match", '{job="vllm"}', "--engine", "sglang"], "vLLM")]
    try:
        for mode, where, extra, says in cases:
            FakeProm.mode = mode
            args = ["series", "--prometheus", where, *win, *extra]
            if mode == "no window":
                args = ["series", "--prometheus", where, "--match", '{job="vllm"}']
            t = time.monotonic()
            res = r.cli(*args)
            took = time.monotonic() - t
            lines = res.stderr.strip().splitlines()
            check(res.returncode == 2 and len(lines) == 1 and says in lines[0] and not res.stdout.strip() and took < 8,
                  f"fleet bad input, {mode}: exit {res.returncode} in {took:.1f} s, {lines}")
    finally:
        fake.shutdown()


if __name__ == "__main__":
    sys.exit(main())
