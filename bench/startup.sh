#!/usr/bin/env bash
# Start-up time of the commands a script calls most: `--version` and `explain T1`, beside
# /bin/true (the cost of starting any process on this machine).
# usage: bench/startup.sh BUILD_DIR [RUNS]
set -euo pipefail
BIN="${1:-build}/inferlint"
RUNS=${2:-200}
time_of() {
  local label=$1; shift
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$RUNS"); do "$@" >/dev/null; done
  end=$(date +%s%N)
  echo "startup: $label: $(( (end - start) / RUNS / 1000 )) us per run (mean of $RUNS)"
}
time_of "/bin/true (baseline)" /bin/true
time_of "inferlint --version" "$BIN" --version
time_of "inferlint explain T1" "$BIN" explain T1
