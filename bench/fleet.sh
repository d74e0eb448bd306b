#!/usr/bin/env bash
# The fleet report: 16 replicas, 1 hour at 1 s steps, read from Debian's real Prometheus.
# The hour is written as OpenMetrics (each replica's running, waiting and KV gauges, its
# counters, cache_config_info, up and scrape_duration_seconds, every second), turned into
# TSDB blocks by promtool, and served by a Prometheus started on them. Then `report
# --prometheus` and `series --prometheus` over the hour, each with its wall time and peak
# memory, beside a yardstick in the same run: one curl-free `query_range` of the same
# gauges fetched by Python's urllib (what the report must at least do).
# usage: bench/fleet.sh BUILD_DIR [REPLICAS] [SECONDS]
set -euo pipefail
BIN="$(cd "${1:-build}" && pwd)/inferlint"
N=${2:-16}
SECS=${3:-3600}
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
  { echo "fleet: skipped (prometheus and promtool are not installed: apt-get install prometheus)"; exit 0; }
WORK=$(mktemp -d)
prom_pid=""
trap '[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
END=$(( $(date +%s) - 120 ))
START=$(( END - SECS ))
python3 - "$WORK/fleet.om" "$N" "$START" "$END" <<'PY'
import math, random, sys
path, n, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(1)
blocks = 4096
with open(path, "w") as f:
    def family(name, kind, value_of):
        f.write(f"# TYPE {name} {kind}\n")
        for r in range(n):
            labels = f'instance="10.0.0.{r + 1}:8000",job="vllm"'
            for t in range(start, end + 1):
                f.write(f"{name}{{{labels}}} {value_of(r, t)} {t}\n")
    run = lambda r, t: 8 + int(8 * math.sin((t + 97 * r) / 300.0) ** 2)
    family("vllm:num_requests_running", "gauge", run)
    family("vllm:num_requests_waiting", "gauge", lambda r, t: max(0, run(r, t) - 12))
    family("vllm:kv_cache_usage_perc", "gauge", lambda r, t: round(run(r, t) * 100 / blocks, 6))
    family("vllm:generation_tokens", "counter", lambda r, t: 40 * (t - start))
    family("vllm:prompt_tokens", "counter", lambda r, t: 10 * (t - start))
    family("vllm:num_preemptions", "counter", lambda r, t: 0)
    f.write("# TYPE vllm:cache_config_info gauge\n")
    for r in range(n):
        for t in range(start, end + 1):
            f.write(f'vllm:cache_config_info{{block_size="16",instance="10.0.0.{r + 1}:8000",job="vllm",'
                    f'num_gpu_blocks="{blocks}"}} 1 {t}\n')
    family("up", "gauge", lambda r, t: 1)
    family("scrape_duration_seconds", "gauge", lambda r, t: 0.004)
    f.write("# EOF\n")
PY
# OpenMetrics counters carry _total on their samples
sed -i -E 's/^(vllm:(generation_tokens|prompt_tokens|num_preemptions))\{/\1_total{/' "$WORK/fleet.om"
promtool tsdb create-blocks-from openmetrics "$WORK/fleet.om" "$WORK/tsdb" > "$WORK/promtool.log" 2>&1 ||
  { tail -5 "$WORK/promtool.log"; exit 1; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1s\nscrape_configs: []\n' > "$WORK/prometheus.yml"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$PORT" > "$WORK/prometheus.log" 2>&1 &
prom_pid=$!
PROM="http://127.0.0.1:$PORT"
for _ in $(seq 200); do
  python3 -c "import urllib.request,sys; urllib.request.urlopen('$PROM/-/ready', timeout=1)" 2>/dev/null && break
  sleep 0.1
done
win=(--prometheus "$PROM" --match '{job="vllm"}' --start "$START" --end "$END")
timed() {  # prints "WALL_S RSS_MB"
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" || true
  t1=$(date +%s%N)
  python3 -c "print(f'{($t1 - $t0) / 1e9:.2f} {int(open(\"$WORK/time\").read().split()[-1]) / 1024:.1f}')"
}
read -r yw yr < <(timed python3 -c "
import urllib.parse, urllib.request
q = urllib.parse.quote('{job=\"vllm\",__name__=~\"vllm:num_requests_running|vllm:num_requests_waiting|vllm:kv_cache_usage_perc\"}')
body = urllib.request.urlopen('$PROM/api/v1/query_range?query=' + q + '&start=$START&end=$END&step=1', timeout=120).read()
print(len(body))")
read -r rw rr < <(timed "$BIN" report "${win[@]}" --step 1 --requested 128 -o "$WORK/fleet.html")
tail -1 "$WORK/out" | grep -q "fleet.html" || { echo "fleet: report failed: $(tail -3 "$WORK/err")"; exit 1; }
page=$(stat -c %s "$WORK/fleet.html")
read -r sw sr < <(timed "$BIN" series "${win[@]}" --step 1 --requested 128 --json)
python3 - "$WORK/out" <<PY
import json, sys
doc = json.load(open(sys.argv[1]))
t8 = next(x for x in doc["fleet"]["results"] if x["tripwire"] == "T8")
print(f"fleet: {len(doc['replicas'])} replicas, {$SECS} s at 1 s steps, {sum(r['samples'] for r in doc['replicas']):,} samples; fleet T8 {t8['status']}")
PY
python3 -c "
print(f'fleet: report --prometheus: {$rw:.2f} s, peak RSS {$rr:.1f} MB, page {$page / 1e6:.2f} MB')
print(f'fleet: series --prometheus: {$sw:.2f} s, peak RSS {$sr:.1f} MB')
print(f'fleet: yardstick, one query_range of the three gauges by Python urllib: {$yw:.2f} s, {$yr:.1f} MB; report/yardstick {$rw / max($yw, 1e-3):.1f}x')"
