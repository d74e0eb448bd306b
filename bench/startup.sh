#!/usr/bin/env bash
# Start-up time of the commands a script calls most: `--version` and `explain T1`.
# usage: bench/startup.sh BUILD_DIR [RUNS]
set -euo pipefail
BIN="${1:-build}/inferlint"
RUNS=${2:-200}
for args in "--version" "explain T1"; do
  start=$(date +%s%N)
  for _ in $(seq "$RUNS"); do "$BIN" $args >/dev/null; done
  end=$(date +%s%N)
  echo "startup: inferlint $args: $(( (end - start) / RUNS / 1000 )) us per run (mean of $RUNS)"
done
