#!/usr/bin/env python3
"""Writes examples/demo-run/: a small vLLM-shaped run whose numbers are known by construction.

Ground truth (what `inferlint` must say about it):
  T1  FAIL  7 preemptions (counter 0 -> 7)
  T10 PASS  32000 tokens over 80.000 s = 400.00 tokens/s
  T14 PASS  gauge steps of 1/100 with num_gpu_blocks = 101 (one null block)
  T9  WARN  ceiling moves between 10 and 12 (share 0.08 .. 0.098 of the cache)
  T8  FAIL  16 requested, never more than 12 running
  T16 PASS  0 of 16000 prompt tokens from the prefix cache
Run it again to regenerate; the output is deterministic.
"""
import json
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "examples", "demo-run")
T0_WALL, T0_MONO = 1_790_000_000.0, 50_000_000_000
BLOCKS = 101  # exported num_gpu_blocks; the gauge divides by BLOCKS - 1


def exposition(preempted: int, gen_tokens: int, prompt_tokens: int, finished: int, created: float) -> str:
    lines = [
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        'vllm:num_requests_running{engine="0",model_name="demo"} 0.0',
        "# TYPE vllm:num_requests_waiting gauge",
        'vllm:num_requests_waiting{engine="0",model_name="demo"} 0.0',
        "# TYPE vllm:kv_cache_usage_perc gauge",
        'vllm:kv_cache_usage_perc{engine="0",model_name="demo"} 0.0',
        "# TYPE vllm:num_preemptions_total counter",
        f'vllm:num_preemptions_total{{engine="0",model_name="demo"}} {float(preempted)}',
        f'vllm:num_preemptions_created{{engine="0",model_name="demo"}} {created}',
        "# TYPE vllm:prompt_tokens_total counter",
        f'vllm:prompt_tokens_total{{engine="0",model_name="demo"}} {float(prompt_tokens)}',
        f'vllm:prompt_tokens_created{{engine="0",model_name="demo"}} {created}',
        # vLLM counts the prompt tokens it looked up in its prefix cache; none was found there.
        "# TYPE vllm:prefix_cache_queries_total counter",
        f'vllm:prefix_cache_queries_total{{engine="0",model_name="demo"}} {float(prompt_tokens)}',
        f'vllm:prefix_cache_queries_created{{engine="0",model_name="demo"}} {created}',
        "# TYPE vllm:prefix_cache_hits_total counter",
        'vllm:prefix_cache_hits_total{engine="0",model_name="demo"} 0.0',
        f'vllm:prefix_cache_hits_created{{engine="0",model_name="demo"}} {created}',
        "# TYPE vllm:generation_tokens_total counter",
        f'vllm:generation_tokens_total{{engine="0",model_name="demo"}} {float(gen_tokens)}',
        f'vllm:generation_tokens_created{{engine="0",model_name="demo"}} {created}',
        "# TYPE vllm:request_success_total counter",
        f'vllm:request_success_total{{engine="0",finished_reason="length",model_name="demo"}} {float(finished)}',
        f'vllm:request_success_created{{engine="0",finished_reason="length",model_name="demo"}} {created}',
        "# TYPE vllm:cache_config_info gauge",
        'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",'
        f'gpu_memory_utilization="0.9",num_gpu_blocks="{BLOCKS}",num_cpu_blocks="0"}} 1.0',
    ]
    return "\n".join(lines) + "\n"


def snapshot(path: str, t_s: float, **counters: float) -> None:
    doc = {
        "schema": "inferlint.snapshot/1",
        "url": "http://127.0.0.1:8000/metrics",
        "t_wall": T0_WALL + t_s,
        "t_mono_ns": T0_MONO + int(t_s * 1e9),
        "latency_s": 0.004,
        "text": exposition(created=T0_WALL - 60.0, **counters),
    }
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(doc, indent=1) + "\n")


def series(path: str) -> None:
    rows = []
    # (running, waiting, used blocks): ramp up, saturate at 12 running, grow, preempt to 10, drain.
    plan = [(r, 16 - r, 6 * r) for r in range(1, 13)]
    plan += [(12, 4, 96)] * 40  # 12 requests hold 8 blocks each: share 0.08, ceiling 12
    plan += [(12, 4, 97), (11, 5, 97), (11, 5, 99)]
    plan += [(10, 6, 98)] * 60  # after 7 preemptions, 10 requests of ~9.8 blocks: ceiling 10
    plan += [(r, 0, 9 * r) for r in range(9, 0, -1)] + [(0, 0, 0)] * 4
    n = len(plan)
    for i, (running, waiting, used) in enumerate(plan):
        t = 0.25 + i * (79.5 / (n - 1))
        rows.append({
            "t_wall": round(T0_WALL + t, 6),
            "t_mono_ns": T0_MONO + int(t * 1e9),
            "running": float(running),
            "waiting": float(waiting),
            "kv_usage": used / (BLOCKS - 1),
            "preemptions": float(0 if i < 52 else 7),
            "generation_tokens": float(1000 + int(32000 * i / (n - 1))),
            "prompt_tokens": float(500 + int(16000 * i / (n - 1))),
        })
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"schema": "inferlint.series/1", "url": "http://127.0.0.1:8000",
                             "interval_s": 0.25, "engine": "vllm"}) + "\n")
        for r in rows:
            fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    snapshot(os.path.join(OUT, "before.snapshot.json"), 0.0, preempted=0, gen_tokens=1000,
             prompt_tokens=500, finished=0)
    snapshot(os.path.join(OUT, "after.snapshot.json"), 80.0, preempted=7, gen_tokens=33000,
             prompt_tokens=16500, finished=64)
    series(os.path.join(OUT, "run.series.jsonl"))
