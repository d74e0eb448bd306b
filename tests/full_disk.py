#!/usr/bin/env python3
"""Nothing half-written on a full disk: snapshot, report, compare, xray, watch and --output-file with
their output on a small tmpfs this test mounts (as root; skipped, with the reason, otherwise).

usage: tests/full_disk.py BUILD_DIR

The simulator (BUILD_DIR/inferlint-sim) serves on 127.0.0.1 at a free port. For each
command the disk is filled to leave a few KiB (less than the file needs), an older whole
file is put where the output goes, and the command must: exit 2 with one line on stderr
naming the file; leave the older file whole (or nothing) and no temporary file behind; and
for watch, leave every line it wrote whole. Prints the figure: cases, files left truncated.
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
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
RUN = ROOT / "tests" / "fixtures" / "vllm-sim" / "healthy"
SKIP = 77


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fill(disk: pathlib.Path, leave_kib: int) -> None:
    """Fills the tmpfs until about leave_kib KiB are free."""
    (disk / "filler").unlink(missing_ok=True)
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "filler", "wb") as f:
        f.write(b"\0" * max(0, free - leave_kib * 1024))


def whole_json(p: pathlib.Path) -> bool:
    try:
        json.loads(p.read_text())
        return True
    except (OSError, ValueError):
        return False


def main() -> int:
    build = pathlib.Path(sys.argv[1])
    binary, sim = (build / "inferlint").resolve(), (build / "inferlint-sim").resolve()
    if os.geteuid() != 0:
        print("full-disk: SKIPPED: not root, so no tmpfs can be mounted")
        return SKIP
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="il-full-disk-"))
    disk = tmp / "disk"
    disk.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"full-disk: SKIPPED: mount -t tmpfs failed: {r.stderr.strip()}")
        shutil.rmtree(tmp)
        return SKIP
    server = None
    failures, cases, truncated = [], 0, 0
    t0 = time.monotonic()
    try:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        (tmp / "bin").mkdir()
        (tmp / "bin" / "vllm").symlink_to(sim)
        boot_log = tmp / "boot.log"
        with open(boot_log, "wb") as log:
            server = subprocess.Popen([str(tmp / "bin" / "vllm"), "serve", "sim/Qwen3-8B", "--port", str(port),
                                       "--sim-boot-s", "0.05", "--sim-time-scale", "20"], stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(500):
            try:
                if urllib.request.urlopen(url + "/health", timeout=1).status == 200:
                    break
            except OSError:
                time.sleep(0.02)
        env = {k: v for k, v in os.environ.items() if not k.startswith("INFERLINT_")}

        def case(name, argv, target: pathlib.Path, leave_kib=4, old=True, check_whole=whole_json, names=None):
            nonlocal cases, truncated
            cases += 1
            for p in disk.iterdir():
                if p.is_dir():
                    shutil.rmtree(p)
                else:
                    p.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            if old:  # an older whole result where the output goes
                target.write_text('{"older": "whole"}\n')
            fill(disk, leave_kib)
            r = subprocess.run([str(binary), *argv], capture_output=True, text=True, env=env, timeout=120)
            errs = [l for l in r.stderr.splitlines() if l.startswith("inferlint:")]
            why = []
            if r.returncode != 2:
                why.append(f"exit {r.returncode}")
            named = names or str(target)
            if len(errs) != 1 or named not in errs[0]:
                why.append(f"no one line naming {named}: {r.stderr.strip()[-300:]!r}")
            left = [p for p in target.parent.iterdir() if ".tmp" in p.name]
            if left:
                why.append(f"temporary files left: {[p.name for p in left]}")
            if target.exists() and not check_whole(target):
                truncated += 1
                why.append(f"{target.name} left cut short")
            if old and target.exists() and check_whole is whole_json and "older" not in target.read_text():
                why.append(f"{target.name} is not the older file")
            print(f"{'ok  ' if not why else 'FAIL'} {name}: exit {r.returncode}, {errs[0] if errs else ''}")
            if why:
                failures.append(f"{name}: {'; '.join(why)}")
            return r

        case("snapshot", ["snapshot", url, "-o", str(disk / "s" / "before.snapshot.json")],
             disk / "s" / "before.snapshot.json")
        case("report", ["report", str(RUN), "-o", str(disk / "r" / "report.html")], disk / "r" / "report.html",
             check_whole=lambda p: p.read_text().rstrip().endswith("</html>") or "older" in p.read_text())
        case("report --output-file", ["report", str(RUN), "-o", str(tmp / "report.html"), "--format", "json",
                                      "--output-file", str(disk / "o" / "verdicts.json")],
             disk / "o" / "verdicts.json", leave_kib=0)
        case("compare -o", ["compare", str(RUN), "--vs", str(RUN), "-o", str(disk / "c" / "compare.html")],
             disk / "c" / "compare.html",
             check_whole=lambda p: p.read_text().rstrip().endswith("</html>") or "older" in p.read_text())
        case("xray", ["xray", "-o", str(disk / "x"), "--url", url, "--boot-log", str(boot_log), "--no-probe",
                      "--", "true"], disk / "x" / "results.json", leave_kib=0,
             names=str(disk / "x" / "boot.log"))  # the first file of the run, a copy of the log it checks

        # watch: a few lines fit, then the disk is full; every line left is whole JSON.
        def whole_lines(p: pathlib.Path) -> bool:
            text = p.read_text()
            if text and not text.endswith("\n"):
                return False
            for line in text.splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    return False
            return True

        r = case("watch", ["watch", url, "-o", str(disk / "w" / "run.series.jsonl"), "--interval", "0.01",
                           "--duration", "20"], disk / "w" / "run.series.jsonl", leave_kib=8, old=False,
                 check_whole=whole_lines)
        lines = (disk / "w" / "run.series.jsonl").read_text().splitlines()
        if len(lines) < 2:
            failures.append(f"watch: only {len(lines)} line(s) kept before the disk filled")
        print(f"     watch kept {len(lines)} whole lines")
    finally:
        if server:
            os.killpg(server.pid, 15)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
                server.wait()
        subprocess.run(["umount", str(disk)])
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"full disk: {cases} cases, {truncated} files left truncated, {len(failures)} failures "
          f"({time.monotonic() - t0:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
