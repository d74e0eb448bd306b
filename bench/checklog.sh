#!/usr/bin/env bash
# check-log and report on a big boot log: a real boot log repeated to MB megabytes, and to
# a tenth of that, each beside `grep -c INFO` of the same file in the same run (target:
# check-log within 4x of it), with peak memory at both sizes (target: the same at both,
# since the log is read in pieces and memory must not grow with its length).
# usage: bench/checklog.sh BUILD_DIR [LOG] [MB]
set -euo pipefail
BIN="${1:-build}/inferlint"
LOG=${2:-$(dirname "$0")/../tests/fixtures/vllm-sim/preempted/boot.log}
MB=${3:-100}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
size=$(stat -c %s "$LOG")
py=${INFERLINT_PY:-$(command -v inferlint-py || true)}
# best wall time of three runs (ns clock: /usr/bin/time's is 10 ms, grep's whole run), and
# the peak RSS (KB) of the last: "WALL RSS"
timed() {
  local best="" wall rss t0 t1
  for _ in 1 2 3; do
    t0=$(date +%s%N)
    # to a file: GNU grep stops at the first match when its output is /dev/null
    /usr/bin/time -f "%M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || true
    t1=$(date +%s%N)
    wall=$(python3 -c "print(($t1 - $t0) / 1e9)")
    read -r rss < "$WORK/time"
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $wall < $best else 1)"; then best=$wall; fi
  done
  echo "$best $rss"
}
for mb in $(( MB / 10 )) "$MB"; do
  n=$(( mb * 1000000 / size + 1 ))
  for _ in $(seq "$n"); do cat "$LOG"; done > "$WORK/big.log"
  bytes=$(stat -c %s "$WORK/big.log")
  read -r gwall _ < <(timed grep -c INFO "$WORK/big.log")
  # check-log, and report (which reads the boot log the same way) on the log alone
  for cmd in check-log report; do
    args=("$WORK/big.log")
    [ "$cmd" = report ] && args=(--boot-log "$WORK/big.log" -o "$WORK/report.html")
    read -r wall rss < <(timed "$BIN" "$cmd" "${args[@]}")
    python3 -c "
b=$bytes/1e6; w=max($wall, 1e-4); g=max($gwall, 1e-4)
print(f'$cmd: {b:.1f} MB ({$n} copies of $(basename "$LOG")): {w:.3f} s, {b/w:.0f} MB/s, peak RSS {$rss/1024:.1f} MB; '
      f'yardstick grep -c INFO: {g:.3f} s; ratio {w/g:.1f}x' + (' (target <= 4)' if '$cmd' == 'check-log' else ''))"
  done
  if [ -n "$py" ]; then
    read -r pwall prss < <(timed "$py" check-log "$WORK/big.log")
    echo "check-log: Python inferlint on the same log: $pwall s, peak RSS $(( prss / 1024 )) MB"
  fi
done
[ -n "$py" ] || echo "check-log: Python inferlint not found (inferlint-py or INFERLINT_PY): skipped"
