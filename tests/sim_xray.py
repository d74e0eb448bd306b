"""One xray run on the simulator, for the Python tests that check what such a run writes
(tests/ci_formats.py, tests/schemas.py): the simulator stands in for `vllm` and
`nvidia-smi` on PATH, on a free port of 127.0.0.1."""
from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess


def xray_on_sim(binary: str, sim: str, tmp: pathlib.Path, args: list[str]) -> tuple[pathlib.Path, subprocess.CompletedProcess]:
    """Runs `inferlint xray -o tmp/xray-run ARGS --serve ... -- vllm bench serve ...` and
    returns the run folder and the finished process (stdout and stderr as bytes)."""
    fake = tmp / "bin"
    fake.mkdir(exist_ok=True)
    for name in ("vllm", "nvidia-smi"):
        if not (fake / name).exists():
            (fake / name).symlink_to(sim)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp / "xray-run"
    serve = (f"vllm serve Qwen/Qwen3-8B --port {port} --max-num-seqs 16 --max-model-len 2048 --num-gpu-blocks 400 "
             "--block-size 16 --sim-time-scale 4 --sim-boot-s 1 --sim-log-interval-s 1")
    load = ["vllm", "bench", "serve", "--model", "Qwen/Qwen3-8B", "--port", str(port), "--num-prompts", "8",
            "--max-concurrency", "8", "--random-input-len", "256", "--random-output-len", "64", "--ignore-eos"]
    env = {k: v for k, v in os.environ.items() if k not in ("INFERLINT_ENGINE", "NO_COLOR")}
    env["INFERLINT_TRIPWIRES"] = "all"
    env["PATH"] = f"{fake}:{os.environ['PATH']}"
    env["INFERLINT_NVIDIA_SMI"] = str(fake / "nvidia-smi")
    r = subprocess.run([binary, "xray", "-o", str(out), *args, "--serve", serve, "--", *load], capture_output=True,
                       env=env, timeout=300)
    return out, r


def xray_fleet_on_sim(binary: str, sim: str, tmp: pathlib.Path, args: list[str]) -> tuple[pathlib.Path, subprocess.CompletedProcess]:
    """Runs `inferlint xray -o tmp/xray-fleet ARGS --serve ... --serve ... -- sh -c '...'`:
    two simulated replicas, one benchmark client on each, side by side."""
    fake = tmp / "bin"
    fake.mkdir(exist_ok=True)
    for name in ("vllm", "nvidia-smi"):
        if not (fake / name).exists():
            (fake / name).symlink_to(sim)
    ports = []
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    out = tmp / "xray-fleet"
    serves = []
    for p in ports:
        serves += ["--serve", f"vllm serve Qwen/Qwen3-8B --port {p} --max-num-seqs 16 --max-model-len 2048 "
                              "--num-gpu-blocks 400 --block-size 16 --sim-time-scale 4 --sim-boot-s 1 --sim-log-interval-s 1"]
    clients = " & ".join(f"vllm bench serve --model Qwen/Qwen3-8B --port {p} --num-prompts 8 --max-concurrency 4 "
                         "--random-input-len 256 --random-output-len 64 --ignore-eos >/dev/null" for p in ports)
    env = {k: v for k, v in os.environ.items() if k not in ("INFERLINT_ENGINE", "NO_COLOR")}
    env["INFERLINT_TRIPWIRES"] = "all"
    env["PATH"] = f"{fake}:{os.environ['PATH']}"
    env["INFERLINT_NVIDIA_SMI"] = str(fake / "nvidia-smi")
    r = subprocess.run([binary, "xray", "-o", str(out), *args, *serves, "--requested", "8", "--",
                        "sh", "-c", clients + " & wait"], capture_output=True, env=env, timeout=300)
    return out, r


def copies_of_run(run: pathlib.Path, into: pathlib.Path, n: int) -> list[pathlib.Path]:
    """n copies of a run folder under `into` (run-1 .. run-n): arms for `compare`."""
    out = []
    for i in range(1, n + 1):
        dest = into / f"run-{i}"
        shutil.copytree(run, dest)
        out.append(dest)
    return out
