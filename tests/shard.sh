#!/bin/sh
# Runs one shard of the Catch2 test binary, so that CTest can run the shards side by side
# on a machine with several cores. Test cases are grouped by source file (Catch's -#
# gives each the tag [#file]); the files are dealt to the shards in turn.
#   unit:   the test cases without [shared], with the reference pointed at a folder that
#           does not exist, so one that needs it without the tag fails (support.hpp);
#   shared: the test cases tagged [shared], which read ../shared/reference (or the folder
#           INFERLINT_REFERENCE_DIR names); where it is absent they do not run, and the
#           shard says so and exits 77, which CTest reports as Skipped.
#   browser: the test cases tagged [browser], which drive a real Chromium; where it is not
#           installed (or the reference they read is absent) the shard says so and exits 77.
#   timing: the test cases tagged [timing], whose verdicts rest on how much faster one
#           simulated server runs than another, measured by the wall clock. The sanitizers
#           slow the clients and the servers unevenly (a 2x arm measured +28%, one run's
#           concurrency never reached), so in the sanitized build (BUILD_KIND sanitized) the
#           shard says so and exits 77, which CTest reports as Skipped.
# Hidden test cases ([.]) are never run, as in a plain run of the binary.
# usage: tests/shard.sh TEST_BINARY N I [unit|shared|browser|timing] [plain|sanitized]     (1 <= I <= N)
set -u
bin=$1 n=$2 i=$3 kind=${4:-unit} build_kind=${5:-plain}
case $kind in
  unit) filter='~[shared]~[browser]~[timing]~[.]' ;;
  shared) filter='[shared]~[browser]~[timing]~[.]' ;;
  browser) filter='[browser]~[.]' ;;
  timing) filter='[timing]~[shared]~[browser]~[.]' ;;
  *) echo "shard.sh: kind is unit, shared, browser or timing, not $kind" >&2; exit 2 ;;
esac
# [plain]: test cases that repeat code the sanitized build runs in smaller cases (a
# coverage simulation over 1,000 trials, the fleet's signal-by-stage matrix beside the
# single server's); each says why. The sanitized build leaves them to the plain one.
if [ "$build_kind" = sanitized ]; then filter="$filter~[plain]"; fi
if [ "$kind" = timing ] && [ "$build_kind" = sanitized ]; then
  echo "$kind shard $i/$n: skipped: the test cases that weigh simulated speed by the wall clock, which the sanitizers distort, run in the plain build"
  exit 77
fi
spec=$("$bin" -# --list-tags "$filter" | grep -o '\[#[^]]*\]' | sort -u |
  awk -v n="$n" -v i="$i" -v f="$filter" '{ if ((NR - 1) % n == i - 1) { printf "%s%s%s", sep, $0, f; sep = "," } }')
if [ -z "$spec" ]; then echo "$kind shard $i/$n: no test files listed" >&2; exit 2; fi
count=$("$bin" -# --list-test-names-only "$spec" | grep -c .)
if [ "$kind" = unit ] || [ "$kind" = timing ]; then
  INFERLINT_REFERENCE_DIR=/nonexistent/inferlint-unit-tests-use-no-reference
  export INFERLINT_REFERENCE_DIR
else
  ref=${INFERLINT_REFERENCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/reference}
  if [ ! -d "$ref/fixtures" ]; then
    total=$("$bin" --list-test-names-only '[shared]~[.]' | grep -c .)
    echo "$kind shard $i/$n: skipped: $count test cases (of the $total tagged [shared]) need $ref/fixtures, which is absent"
    exit 77
  fi
fi
if [ "$kind" = browser ] && ! command -v chromium >/dev/null 2>&1; then
  echo "$kind shard $i/$n: skipped: $count test cases drive Chromium, which is not installed (.ci/run installs it)"
  exit 77
fi
echo "$kind shard $i/$n: $count test cases: $spec"
# The test code compiles at -O0 (CMakeLists.txt). Its std::regex instantiations, which the
# linker may take for the core's calls too, recurse in frames several times larger under
# ASan than the -O1 code the sanitized program runs: there, a 4 KiB window (kRegexWindow)
# once overran the default 8 MiB stack. The sanitized shards get 64 MiB; the plain ones
# keep the default, which their -O0 frames stay well inside.
if [ "$build_kind" = sanitized ]; then ulimit -s 65536 2>/dev/null || ulimit -s unlimited 2>/dev/null || true; fi
"$bin" -# "$spec"
rc=$?
# Catch exits with the number of failed assertions: 77 of them must not read as Skipped.
[ "$rc" -eq 77 ] && rc=1
exit "$rc"
