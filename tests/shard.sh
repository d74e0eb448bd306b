#!/bin/sh
# Runs one shard of the Catch2 test binary: every N-th test case, starting at the I-th, so
# that CTest can run the shards side by side on a machine with several cores.
# usage: tests/shard.sh TEST_BINARY N I     (1 <= I <= N)
set -u
bin=$1 n=$2 i=$3
list=$(mktemp "${TMPDIR:-/tmp}/inferlint-shard.XXXXXX") || exit 2
"$bin" --list-test-names-only | awk -v n="$n" -v i="$i" 'NF { k++; if ((k - 1) % n == i - 1) print }' > "$list"
if [ ! -s "$list" ]; then echo "shard $i/$n: no test cases listed" >&2; rm -f "$list"; exit 2; fi
echo "shard $i/$n: $(wc -l < "$list") test cases"
"$bin" -f "$list"
rc=$?
rm -f "$list"
exit $rc
