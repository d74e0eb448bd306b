#!/usr/bin/env bash
# watch's schedule: `inferlint watch --interval 0.05` against the simulator under load for
# DURATION seconds (default 60). Prints the achieved intervals' median and p99 error; the
# schedule error, each reading's time against its own tick (start + k * interval, less the
# median offset: half the scrape's latency and the wake-up); the ticks skipped; and the CPU
# time and peak memory watch used. A reading's time is the midpoint of its request, so both
# errors hold the server's answer time varying from one scrape to the next; an interval's
# error holds two readings' errors.
# usage: bench/watch.sh BUILD_DIR [DURATION_S] [INTERVAL_S]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
DURATION=${2:-60}
INTERVAL=${3:-0.05}
BIN="$BUILD/inferlint"
SIM="$BUILD/inferlint-sim"
WORK=$(mktemp -d)
server=""
load=""
cleanup() {
  [ -n "$load" ] && kill "$load" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SIM" vllm serve sim/bench --port "$PORT" --sim-boot-s 0.1 > "$WORK/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  grep -q "Application startup complete" "$WORK/server.log" && break
  sleep 0.1
done
# Load all along, so /metrics has moving numbers and the server has work to do.
"$SIM" vllm bench serve --model sim/bench --port "$PORT" --num-prompts 100000 --max-concurrency 16 \
  --random-input-len 128 --random-output-len 256 --ignore-eos > "$WORK/load.log" 2>&1 &
load=$!
/usr/bin/time -f "%U %S %M" -o "$WORK/time" \
  "$BIN" watch "http://127.0.0.1:$PORT" -o "$WORK/w.series.jsonl" --interval "$INTERVAL" --duration "$DURATION" \
  > "$WORK/watch.out" 2> "$WORK/watch.err" || true
# The same schedule timed from outside, still under load: watch's own lateness apart from
# the server's answer time.
TIMING=""
if [ -x "$BUILD/watch_timing" ]; then
  TIMING=$("$BUILD/watch_timing" "http://127.0.0.1:$PORT" "$INTERVAL" 5 2>&1 || true)
fi
python3 - "$WORK/w.series.jsonl" "$WORK/time" "$INTERVAL" "$DURATION" <<'EOF'
import json, sys
path, timef, interval, duration = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
t = []
for line in open(path):
    d = json.loads(line)
    if "t_mono_ns" in d and d["t_mono_ns"] is not None:
        t.append(d["t_mono_ns"] / 1e9)
gaps = [b - a for a, b in zip(t, t[1:])]
err = sorted(abs(g - interval) * 1000 for g in gaps)
def pct(xs, p):
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]
ticks = [round((x - t[0]) / interval) for x in t]
offsets = sorted(x - t[0] - k * interval for x, k in zip(t, ticks))
median_offset = pct(offsets, 50)
sched = sorted(abs(o - median_offset) * 1000 for o in offsets)
user, sys_, rss = open(timef).read().split()
cpu = float(user) + float(sys_)
print(f"watch --interval {interval} for {duration:.0f} s: {len(t)} samples ({len(gaps)} intervals; "
      f"{duration / interval:.0f} scheduled)")
print(f"  interval error: median {pct(err, 50):.2f} ms, p99 {pct(err, 99):.2f} ms, max {err[-1]:.2f} ms")
print(f"  schedule error: median {pct(sched, 50):.2f} ms, p99 {pct(sched, 99):.2f} ms, max {sched[-1]:.2f} ms; "
      f"{len(set(ticks))} of {ticks[-1] + 1} ticks read")
print(f"  intervals: median {pct(sorted(gaps), 50) * 1000:.2f} ms, p99 {pct(sorted(gaps), 99) * 1000:.2f} ms")
print(f"  CPU {cpu:.2f} s ({100 * cpu / duration:.1f}% of one core), peak RSS {int(rss) / 1024:.1f} MB")
EOF
if [ -n "$TIMING" ]; then echo "$TIMING"; fi
