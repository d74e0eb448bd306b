#!/usr/bin/env bash
# compare on two arms of 10 runs each (the four recorded runs of each arm of
# tests/fixtures/vllm-sim/compare, taken again in turn), beside one `cat` of the same files.
# usage: bench/compare.sh BUILD_DIR [RUNS]
set -euo pipefail
BIN="${1:-build}/inferlint"
RUNS=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
dir="$here/../tests/fixtures/vllm-sim/compare"
arm() { local i; for i in $(seq 0 $(( RUNS - 1 ))); do echo "$dir/$1/run-$(( i % 4 + 1 ))"; done; }
mapfile -t a < <(arm base)
mapfile -t b < <(arm faster)
now() { date +%s%N; }
t0=$(now); "$BIN" compare "${a[@]}" --vs "${b[@]}" > /dev/null || true; t1=$(now)
files=(); for r in "${a[@]}" "${b[@]}"; do files+=("$r"/*); done
t2=$(now); cat "${files[@]}" > /dev/null; t3=$(now)
python3 -c "
c=($t1-$t0)/1e9; y=max(($t3-$t2)/1e9, 1e-6)
print(f'compare: {$RUNS} runs vs {$RUNS}: {c*1000:.1f} ms; yardstick cat of the same files: {y*1000:.1f} ms; ratio {c/y:.1f}x')"
py=${INFERLINT_PY:-$(command -v inferlint-py || true)}
if [ -z "$py" ]; then echo "compare: Python inferlint not found (inferlint-py or INFERLINT_PY): skipped"; fi
