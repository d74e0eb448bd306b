#!/usr/bin/env python3
"""The fleet, live: 16 simulated replicas in one run.

`inferlint xray` starts every replica (--serve once per replica), records each one and runs a
load of one benchmark client per replica side by side, while Debian's real Prometheus scrapes all
of them every 250 ms. Then `report --prometheus --run DIR` and `series --prometheus --run DIR` read
the same window back from Prometheus. Printed: xray's and the report's wall time and peak memory,
the page's size, and the verdicts of both, so the figures come with what they decided.

usage: bench/fleet_live.py BUILD_DIR [REPLICAS]
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def timed(argv: list[str], env: dict, timeout: float) -> tuple[subprocess.CompletedProcess, float, float]:
    """Runs argv under /usr/bin/time; returns (result, wall seconds, peak RSS in MB)."""
    with tempfile.NamedTemporaryFile() as t:
        t0 = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name, *argv], capture_output=True, text=True,
                           env=env, timeout=timeout)
        wall = time.monotonic() - t0
        rss = int(pathlib.Path(t.name).read_text().split()[-1]) / 1024
    return r, wall, rss


def main() -> int:
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    binary, sim = str(build / "inferlint"), str(build / "inferlint-sim")
    prometheus = shutil.which("prometheus")
    if not prometheus:
        print("fleet-live: skipped (prometheus is not installed: apt-get install prometheus)")
        return 0
    if not os.access("/usr/bin/time", os.X_OK):
        print("fleet-live: skipped (/usr/bin/time is not installed: apt-get install time)")
        return 0
    with tempfile.TemporaryDirectory(prefix="inferlint-fleet-live-") as t:
        tmp = pathlib.Path(t)
        fake = tmp / "bin"
        fake.mkdir()
        for name in ("vllm", "nvidia-smi"):
            (fake / name).symlink_to(sim)
        *ports, prom_port = free_ports(n + 1)
        targets = ", ".join(f"'127.0.0.1:{p}'" for p in ports)
        (tmp / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\n"
            f"scrape_configs:\n  - job_name: vllm\n    static_configs:\n      - targets: [{targets}]\n")
        prom = subprocess.Popen([prometheus, f"--config.file={tmp / 'prometheus.yml'}",
                                 f"--storage.tsdb.path={tmp / 'tsdb'}", f"--web.listen-address=127.0.0.1:{prom_port}"],
                                stdout=subprocess.DEVNULL, stderr=open(tmp / "prometheus.log", "w"))
        url = f"http://127.0.0.1:{prom_port}"
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(url + "/-/ready", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            # Prometheus hands its scrape loops their targets a few seconds after it is ready:
            # the replicas start once it has tried each of them (down, as nothing listens yet).
            def tried() -> bool:
                try:
                    active = json.load(urllib.request.urlopen(url + "/api/v1/targets", timeout=2))["data"]["activeTargets"]
                except OSError:
                    return False
                return len(active) == n and all(a["health"] != "unknown" for a in active)
            deadline = time.monotonic() + 60
            while not tried() and time.monotonic() < deadline:
                time.sleep(0.2)
            serves = []
            for p in ports:
                serves += ["--serve", f"vllm serve Qwen/Qwen3-8B --port {p} --max-num-seqs 16 --max-model-len 2048 "
                                      "--num-gpu-blocks 400 --block-size 16 --sim-time-scale 4 --sim-boot-s 1 "
                                      "--sim-log-interval-s 1 --sim-orphan-linger-s 0"]
            clients = " & ".join(f"vllm bench serve --model Qwen/Qwen3-8B --port {p} --num-prompts 8 "
                                 "--max-concurrency 4 --random-input-len 256 --random-output-len 1024 --ignore-eos "
                                 ">/dev/null" for p in ports)
            env = {k: v for k, v in os.environ.items() if k not in ("INFERLINT_ENGINE", "NO_COLOR")}
            env["PATH"] = f"{fake}:{os.environ['PATH']}"
            env["INFERLINT_NVIDIA_SMI"] = str(fake / "nvidia-smi")
            run = tmp / "xray-fleet"
            xr, xw, xm = timed([binary, "xray", "-o", str(run), *serves, "--requested", str(4 * n), "--json", "--",
                                "sh", "-c", clients + " & wait"], env, 600)
            try:
                xdoc = json.loads(xr.stdout)
            except ValueError:
                print(f"fleet-live: xray gave no JSON (exit {xr.returncode}): {xr.stderr.strip()[-400:]}")
                return 1
            dirs = sorted(p.name for p in run.iterdir() if p.is_dir())
            print(f"fleet-live: xray of {n} replicas: exit {xr.returncode}, {xw:.1f} s, peak RSS {xm:.1f} MB, "
                  f"{len(dirs)} folders under the run")
            fleet_results = (xdoc.get("fleet") or {}).get("results") or xdoc.get("results") or []
            print("fleet-live: xray's fleet verdicts: " +
                  ", ".join(f"{x['tripwire']} {x['status']}" for x in fleet_results))
            time.sleep(0.6)  # a scrape after xray's last snapshot
            win = ["--prometheus", url, "--match", '{job="vllm"}', "--run", str(run), "--requested", str(4 * n)]
            rr, rw, rm = timed([binary, "report", *win, "-o", str(tmp / "fleet.html")], env, 300)
            page = (tmp / "fleet.html").stat().st_size if (tmp / "fleet.html").is_file() else 0
            print(f"fleet-live: report --prometheus --run: exit {rr.returncode}, {rw:.2f} s, peak RSS {rm:.1f} MB, "
                  f"page {page / 1e6:.2f} MB")
            sr, sw, sm = timed([binary, "series", *win, "--json"], env, 300)
            try:
                sdoc = json.loads(sr.stdout)
            except ValueError:
                print(f"fleet-live: series gave no JSON (exit {sr.returncode}): {sr.stderr.strip()[-400:]}")
                return 1
            reps = sdoc["replicas"]
            t8 = next(x for x in sdoc["fleet"]["results"] if x["tripwire"] == "T8")
            print(f"fleet-live: series --prometheus --run: exit {sr.returncode}, {sw:.2f} s, peak RSS {sm:.1f} MB; "
                  f"{len(reps)} replicas, {sum(r['samples'] for r in reps):,} samples, "
                  f"{sum(len(r['gaps']) for r in reps)} gaps; fleet T8 {t8['status']}: {t8['message']}")
            # Each replica's own peak over the scrapes in the window (xray's probe, 8 at once on
            # each replica, comes just before it): the fleet's peak can't be above their sum.
            w = sdoc["window"]
            q = urllib.parse.urlencode({"query": 'max_over_time(vllm:num_requests_running{job="vllm"}[%dms])'
                                        % int((w["end"] - w["start"]) * 1000), "time": f"{w['end']:.3f}"})
            peaks = json.load(urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10))["data"]["result"]
            per = sorted(float(x["value"][1]) for x in peaks)
            print(f"fleet-live: each replica's peak running in the window (max_over_time): {len(per)} replicas, "
                  f"sum {sum(per):g}, from {per[0] if per else 0:g} to {per[-1] if per else 0:g}")
            ok = len(reps) == n and len(dirs) >= n and page > 0
            return 0 if ok else 1
        finally:
            prom.terminate()
            prom.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
