#!/usr/bin/env bash
# check-log on a 100 MB boot log: a real boot log repeated. Prints MB/s (target >= 100) and
# peak memory (target: independent of the log's length).
# usage: bench/checklog.sh BUILD_DIR [LOG] [MB]
set -euo pipefail
BIN="${1:-build}/inferlint"
LOG=${2:-$(dirname "$0")/../tests/fixtures/vllm-sim/preempted/boot.log}
MB=${3:-100}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
size=$(stat -c %s "$LOG")
n=$(( MB * 1000000 / size + 1 ))
for _ in $(seq "$n"); do cat "$LOG"; done > "$WORK/big.log"
bytes=$(stat -c %s "$WORK/big.log")
/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" check-log "$WORK/big.log" > /dev/null || true
read -r wall user sys rss < "$WORK/time"
python3 -c "
b=$bytes/1e6; w=$wall; c=$user+$sys
print(f'check-log: {b:.1f} MB ({$n} copies of $(basename "$LOG")): {w:.2f} s wall, {b/w:.0f} MB/s; '
      f'{c:.2f} s CPU, {b/c:.0f} MB/s per CPU second; peak RSS {$rss/1024:.1f} MB')"
