#!/usr/bin/env bash
# The plain build's tests RUNS times in a row (default 5) with both cores kept busy by
# stress-ng (Debian's stress-ng, --cpu NPROC), as `make test` runs them: ctest -j NPROC over
# all but three, the campaign test beside them, then ci-formats and schemas (which want no
# simulator but their own). A test that flakes under load fails here. One line per run,
# and the count of failed runs; each run's output is kept in BUILD_DIR/stress-run-N.log.
# Exit 1 if any run failed.
#   usage: bench/stress.sh BUILD_DIR [RUNS]
set -uo pipefail
build=$(cd "${1:?usage: bench/stress.sh BUILD_DIR [RUNS]}" && pwd)
runs=${2:-5}
jobs=$(nproc 2>/dev/null || echo 2)
command -v stress-ng >/dev/null || { echo "bench/stress.sh: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
stress-ng --cpu "$jobs" --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null' EXIT
serial='^(campaign|ci-formats|schemas)$'
failed=0
for i in $(seq 1 "$runs"); do
    start=$SECONDS
    log="$build/stress-run-$i.log"
    (
        cd "$build" || exit 1
        ctest --output-on-failure -R '^campaign$' >"$log.campaign" 2>&1 &
        campaign=$!
        rc=0
        ctest --output-on-failure -j "$jobs" -E "$serial" || rc=1
        wait "$campaign" || rc=1
        cat "$log.campaign" && rm -f "$log.campaign"
        ctest --output-on-failure -R '^(ci-formats|schemas)$' || rc=1
        exit "$rc"
    ) >"$log" 2>&1
    if [ $? -eq 0 ]; then
        verdict=passed
    else
        verdict="FAILED ($(grep -c '\*\*\*Failed\|\*\*\*Timeout' "$log") tests; see $log)"
        failed=$((failed + 1))
    fi
    echo "stress run $i/$runs (stress-ng --cpu $jobs beside the plain tests, as make test runs them): $verdict in $((SECONDS - start)) s"
done
echo "stress: $failed of $runs runs failed"
[ "$failed" -eq 0 ]
