#!/usr/bin/env python3
"""T19 and T2 on a cluster: NVIDIA's DCGM exporter read back through Debian's real Prometheus.

usage: tests/prometheus_dcgm.py BUILD_DIR

The test starts two simulated vLLM replicas (given the pod labels vllm-0 and vllm-1 in
Prometheus's config, as a Kubernetes service discovery would), a fake dcgm-exporter it serves
itself on 127.0.0.1 (tests/fixtures/dcgm/*.prom, modelled on dcgm-exporter's output: one series
per GPU and pod, labels gpu, UUID, Hostname, pod, namespace, container), and a Prometheus
scraping all three every 250 ms. Three windows, each with a load on both replicas:
  - the exporter serves no DCGM series: `report --prometheus` gives T19 Can't tell, naming
    the query that found nothing;
  - the exporter serves node.prom (each replica's pod on a GPU of its own): T19 passes;
  - node-tenant.prom from the middle of the window on (a pod of another namespace mapped to
    vllm-0's GPU, 40,962 MiB more used there): T19 fails naming the pod and the GPU.
`gpu-inspect --prometheus` reads the node's GPUs at a moment: T2 fails naming the pods that
hold them (exit 1); a node DCGM does not know is Can't tell (exit 2, as gpu-inspect's
unknowns are). `report` writes its page and exits 0 whatever the verdicts, as it does. Bad input: a Prometheus answering garbage, or hanging, is one line and exit 2.
Exit 77 (skipped) where prometheus is not installed; 1 on any failure.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from prometheus_source import Run, check, failures, fleet_doc, free_port, get_json, result_of, wait_for  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "dcgm"


class Exporter(BaseHTTPRequestHandler):
    """dcgm-exporter's /metrics: nothing, one node's GPUs, or the same with a tenant."""
    body = ""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        data = Exporter.body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class BadProm(BaseHTTPRequestHandler):
    """A Prometheus that answers garbage, or hangs (BadProm.mode)."""
    mode = "garbage"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if BadProm.mode == "hang":
            time.sleep(10)
            return
        data = b"<html>502 Bad Gateway</html>"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(handler) -> tuple[ThreadingHTTPServer, str]:
    s = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s, f"127.0.0.1:{s.server_address[1]}"


def main() -> int:
    build = pathlib.Path(sys.argv[1]).resolve()
    prometheus = shutil.which("prometheus")
    if not prometheus:
        print("prometheus_dcgm: skipped (prometheus is not installed: apt-get install prometheus)")
        return 77
    with tempfile.TemporaryDirectory(prefix="inferlint-dcgm-") as t:
        tmp = pathlib.Path(t)
        r = Run(build, tmp)
        try:
            body(r, prometheus, tmp)
        finally:
            r.stop_all()
    print(f"prometheus_dcgm: {len(failures)} failure(s)")
    return 1 if failures else 0


def window(r: Run, replicas: list[str], tmp: pathlib.Path, tag: str, midway=None) -> tuple[float, float]:
    """A load on both replicas; `midway` called once the first has begun. The window's ends."""
    time.sleep(0.6)
    t0 = time.time()
    loads = [r.start([r.sim, "vllm", "bench", "serve", "--model", "sim/Qwen3-8B", "--base-url", f"http://{rep}",
                      "--num-prompts", "8", "--max-concurrency", "4", "--random-input-len", "64",
                      "--random-output-len", "256", "--ignore-eos"], f"{tag}-load-{i}.log")
             for i, rep in enumerate(replicas)]
    if midway:
        time.sleep(1.0)
        midway()
    for i, load in enumerate(loads):
        check(load.wait(timeout=120) == 0, f"{tag}: the load on replica {i} completed")
    time.sleep(0.8)
    return t0, time.time()


def t19_of(r: Run, prom: str, tmp: pathlib.Path, tag: str, t0: float, t1: float):
    page = tmp / f"{tag}.html"
    res = r.cli("report", "--prometheus", prom, "--match", '{job="vllm"}', "--start", f"{t0:.3f}", "--end",
                f"{t1:.3f}", "-o", str(page), "--json")
    doc = fleet_doc(res, f"{tag}: report --prometheus")
    if doc is None:
        return None, res
    x = result_of(doc["fleet"]["results"], "T19")
    check(x is not None, f"{tag}: the fleet's verdicts include T19")
    return x, res


def body(r: Run, prometheus: str, tmp: pathlib.Path) -> None:
    ports = [free_port(), free_port()]
    replicas = [f"127.0.0.1:{p}" for p in ports]
    for i, p in enumerate(ports):
        r.start([r.sim, "vllm", "serve", "sim/Qwen3-8B", "--port", str(p), "--sim-boot-s", "0.05",
                 "--sim-log-interval-s", "0.5", "--sim-time-scale", "10", "--sim-orphan-linger-s", "0"],
                f"replica-{i}.log")
    exporter, dcgm = serve(Exporter)
    prom_port = free_port()
    prom = f"http://127.0.0.1:{prom_port}"
    (tmp / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\n"
        "scrape_configs:\n  - job_name: vllm\n    static_configs:\n"
        f"      - targets: ['{replicas[0]}']\n        labels: {{pod: vllm-0, namespace: bench}}\n"
        f"      - targets: ['{replicas[1]}']\n        labels: {{pod: vllm-1, namespace: bench}}\n"
        "  - job_name: dcgm-exporter\n    honor_labels: true\n    static_configs:\n"
        f"      - targets: ['{dcgm}']\n")
    r.start([prometheus, f"--config.file={tmp / 'prometheus.yml'}", f"--storage.tsdb.path={tmp / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prom_port}"], "prometheus.log")
    try:
        def all_up() -> bool:
            active = get_json(prom + "/api/v1/targets")["data"]["activeTargets"]
            return len(active) == 3 and all(a["health"] == "up" for a in active)

        if not wait_for("Prometheus scrapes the two replicas and the exporter", all_up):
            print((tmp / "prometheus.log").read_text()[-2000:])
            return

        # 1. No DCGM series: Can't tell, naming the query.
        t0, t1 = window(r, replicas, tmp, "none")
        x, res = t19_of(r, prom, tmp, "none", t0, t1)
        if x:
            check(x["status"] == "unknown" and "DCGM_FI_DEV_FB_USED{pod=~" in x["message"] and
                  "found nothing" in x["message"], f"no DCGM series: T19 Can't tell naming the query: {x['message']}")

        # 2. Each replica's pod on a GPU of its own: a pass.
        Exporter.body = (FIXTURES / "node.prom").read_text()
        time.sleep(1.0)
        t0, t1 = window(r, replicas, tmp, "alone")
        x, res = t19_of(r, prom, tmp, "alone", t0, t1)
        if x:
            check(x["status"] == "pass" and x["evidence"]["gpus"] == 2,
                  f"the replicas' pods alone on their GPUs: T19 passes: {x['status']}: {x['message']}")

        # 3. A tenant pod mapped to vllm-0's GPU from the middle of the window on.
        def tenant() -> None:
            Exporter.body = (FIXTURES / "node-tenant.prom").read_text()

        t0, t1 = window(r, replicas, tmp, "tenant", tenant)
        x, res = t19_of(r, prom, tmp, "tenant", t0, t1)
        if x:
            check(x["status"] == "fail" and res.returncode == 0 and
                  "pod ml-serving/watchdog-restored-0 was given GPU 0 on gpu-node-7" in x["message"] and
                  "73974 MiB" in x["message"],
                  f"a tenant pod on vllm-0's GPU mid-window: T19 fails naming it: exit {res.returncode}, "
                  f"{x['status']}: {x['message']}")
            others = x["evidence"]["other_pods"]
            check(len(others) == 1 and others[0]["namespace"] == "ml-serving",
                  f"the evidence lists the one other pod: {others}")
            print(f"verdict with the tenant: {x['status']}: {x['message']}")

        # gpu-inspect --prometheus: the node now, with the tenant.
        time.sleep(0.6)
        gi = r.cli("gpu-inspect", "--prometheus", prom, "--node", "gpu-node-7", "--json")
        try:
            doc = json.loads(gi.stdout)
        except json.JSONDecodeError:
            doc = None
        t2 = result_of(doc, "T2") if isinstance(doc, list) else None
        check(gi.returncode == 1 and t2 is not None and t2["status"] == "fail" and
              "ml-serving/watchdog-restored-0" in t2["message"] and len(t2["evidence"]["gpus"]) == 2,
              f"gpu-inspect --prometheus: T2 fails naming the pods that hold the node's GPUs: exit {gi.returncode}, "
              f"{gi.stdout[:400]} {gi.stderr[:200]}")
        text = r.cli("gpu-inspect", "--prometheus", prom, "--node", "gpu-node-7")
        check("pods: bench/vllm-0, ml-serving/watchdog-restored-0" in text.stdout and "40498 MiB" not in text.stdout
              and "73,974 MiB used" in text.stdout,
              f"gpu-inspect --prometheus prints each GPU's memory and pods: {text.stdout[:600]}")
        none = r.cli("gpu-inspect", "--prometheus", prom, "--node", "no-such-node", "--json")
        nd = json.loads(none.stdout) if none.stdout.strip().startswith("[") else []
        t2n = result_of(nd, "T2")
        check(none.returncode == 2 and t2n is not None and t2n["status"] == "unknown" and
              'Hostname="no-such-node"' in t2n["message"],
              f"gpu-inspect --prometheus on a node DCGM does not know: Can't tell naming the query: "
              f"exit {none.returncode}, {none.stdout[:300]}")

        bad_input(r, tmp)
    finally:
        exporter.shutdown()


def bad_input(r: Run, tmp: pathlib.Path) -> None:
    bad, where = serve(BadProm)
    now = time.time()
    try:
        for mode in ("garbage", "hang"):
            BadProm.mode = mode
            for args in (["gpu-inspect", "--prometheus", f"http://{where}", "--timeout", "1"],
                         ["report", "--prometheus", f"http://{where}", "--start", f"{now - 60:.3f}", "--end",
                          f"{now:.3f}", "--timeout", "1", "-o", str(tmp / f"bad-{mode}.html")]):
                t = time.monotonic()
                res = r.cli(*args)
                took = time.monotonic() - t
                lines = res.stderr.strip().splitlines()
                check(res.returncode == 2 and len(lines) == 1 and where in lines[0] and took < 8,
                      f"{args[0]} with a Prometheus that {'answers garbage' if mode == 'garbage' else 'hangs'}: "
                      f"one line, exit 2: exit {res.returncode} in {took:.1f} s, {lines}")
    finally:
        bad.shutdown()


if __name__ == "__main__":
    sys.exit(main())
