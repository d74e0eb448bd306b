#!/usr/bin/env bash
# Records the project's own fixtures from the simulator: tests/fixtures/vllm-sim/<scenario>/
# with boot.log, before/after.snapshot.json, run.series.jsonl, bench.json, load.log and
# truth.json (the simulator's /sim/state after the run: the answer key).
# Usage: tools/sim/record-fixtures.sh BUILD_DIR   (e.g. build)
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
sim="$build/inferlint-sim"
il="$build/inferlint"
root="$(cd "$(dirname "$0")/../.." && pwd)/tests/fixtures/vllm-sim"

record() {  # scenario interval serve-options... -- bench-options...
    local name=$1 interval=$2
    shift 2
    local serve=() bench=()
    while [[ $# -gt 0 && $1 != -- ]]; do serve+=("$1"); shift; done
    shift
    bench=("$@")
    local out="$root/$name"
    rm -rf "$out" && mkdir -p "$out"
    "$sim" vllm serve sim/Qwen3-8B --port 0 --sim-boot-s 0.2 "${serve[@]}" >"$out/boot.log" 2>&1 &
    local server=$!
    local port=""
    for _ in $(seq 200); do
        port=$(grep -o 'Starting vLLM server on http://127.0.0.1:[0-9]*' "$out/boot.log" | grep -o '[0-9]*$' || true)
        grep -q 'Application startup complete' "$out/boot.log" && [[ -n $port ]] && break
        sleep 0.05
    done
    local url="http://127.0.0.1:$port"
    "$il" snapshot "$url" -o "$out/before.snapshot.json" >/dev/null
    "$il" watch "$url" -o "$out/run.series.jsonl" --interval "$interval" >/dev/null 2>"$out/watch.err" &
    local watcher=$!
    "$sim" vllm bench serve --model sim/Qwen3-8B --base-url "$url" "${bench[@]}" --ignore-eos \
        --save-result --result-dir "$out" --result-filename bench.json >"$out/load.log" 2>&1
    sleep "$interval"
    kill -INT "$watcher" && wait "$watcher" || true
    "$il" snapshot "$url" -o "$out/after.snapshot.json" >/dev/null
    curl -s "$url/sim/state" >"$out/truth.json" 2>/dev/null || python3 -c \
        "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('$url/sim/state').read().decode())" \
        >"$out/truth.json"
    kill -TERM "$server" && wait "$server" || true
    rm -f "$out/watch.err"
    echo "$name: $(wc -l <"$out/run.series.jsonl") series lines; truth $(cat "$out/truth.json")"
}

# 65 blocks of 16 (64 usable) for 16 requests of 64 + 200 tokens: the pool, not
# --max-num-seqs, caps the batch, and the engine preempts (T1, T8, T14).
record preempted 0.1 --num-gpu-blocks 65 --block-size 16 --max-model-len 1024 --max-num-seqs 16 \
    --sim-time-scale 2 -- --num-prompts 16 --max-concurrency 16 --random-input-len 64 --random-output-len 200
# A pool large enough for all 32 requests at once: nothing to report but the throughput.
record healthy 0.25 --num-gpu-blocks 4096 --max-num-seqs 32 --max-model-len 16384 --sim-time-scale 20 \
    -- --num-prompts 32 --max-concurrency 32 --random-input-len 88 --random-output-len 1000
