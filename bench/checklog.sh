#!/usr/bin/env bash
# check-log and report on a big boot log: a real boot log repeated to MB megabytes, and to
# a tenth of that. Prints MB/s (target >= 100) and peak memory at both sizes (target: the same at
# both, since the log is read in pieces and memory must not grow with its length).
# usage: bench/checklog.sh BUILD_DIR [LOG] [MB]
set -euo pipefail
BIN="${1:-build}/inferlint"
LOG=${2:-$(dirname "$0")/../tests/fixtures/vllm-sim/preempted/boot.log}
MB=${3:-100}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
size=$(stat -c %s "$LOG")
for mb in $(( MB / 10 )) "$MB"; do
  n=$(( mb * 1000000 / size + 1 ))
  for _ in $(seq "$n"); do cat "$LOG"; done > "$WORK/big.log"
  bytes=$(stat -c %s "$WORK/big.log")
  # check-log, and report (which reads the boot log the same way) on the log alone
  for cmd in check-log report; do
    args=("$WORK/big.log")
    [ "$cmd" = report ] && args=(--boot-log "$WORK/big.log" -o "$WORK/report.html")
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" "$cmd" "${args[@]}" > /dev/null || true
    read -r wall user sys rss < "$WORK/time"
    python3 -c "
b=$bytes/1e6; w=max($wall, 0.01); c=max($user+$sys, 0.01)
print(f'$cmd: {b:.1f} MB ({$n} copies of $(basename "$LOG")): {w:.2f} s wall, {b/w:.0f} MB/s; '
      f'{c:.2f} s CPU, {b/c:.0f} MB/s per CPU second; peak RSS {$rss/1024:.1f} MB')"
  done
done
