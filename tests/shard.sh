#!/bin/sh
# Runs one shard of the Catch2 test binary, so that CTest can run the shards side by side
# on a machine with several cores. Test cases are grouped by source file (Catch's -#
# gives each the tag [#file]); the files are dealt to the shards in turn.
# usage: tests/shard.sh TEST_BINARY N I     (1 <= I <= N)
set -u
bin=$1 n=$2 i=$3
spec=$("$bin" -# --list-tags | grep -o '\[#[^]]*\]' | sort -u |
  awk -v n="$n" -v i="$i" '{ if ((NR - 1) % n == i - 1) { printf "%s%s", sep, $0; sep = "," } }')
if [ -z "$spec" ]; then echo "shard $i/$n: no test files listed" >&2; exit 2; fi
echo "shard $i/$n: $spec"
exec "$bin" -# "$spec"
