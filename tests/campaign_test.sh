#!/usr/bin/env bash
# Runs examples/campaign.sh against the vLLM simulator and checks what it leaves behind.
#
# usage: tests/campaign_test.sh BUILD_DIR        (e.g. build: it needs inferlint and inferlint-sim)
#
# In a temporary folder, with `vllm` (and `nvidia-smi`) on PATH standing for the simulator
# and a free port per run, it runs the campaign in xray mode and in steps mode, then once
# more in steps mode stopped by SIGTERM in the middle of its load; then examples/compare-sim.sh
# makes two arms for `inferlint compare`. It checks each exit
# status, that every run folder has report.html and results.json, and that no simulator
# process the campaign started is alive afterwards (by the pids the servers logged, and by
# their ports).
#
# The campaign's `inferlint teardown` stops every inference server it can see. So the test
# runs in a private PID namespace (unshare), where it sees only its own processes; where
# that is not possible it runs with TEARDOWN=check (look, signal nothing) and skips
# (exit 77) if another inference server is running on the machine.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "campaign_test: $1 is not a folder" >&2; exit 2; }
BIN="$BUILD/inferlint"
SIM="$BUILD/inferlint-sim"
CAMPAIGN="$ROOT/examples/campaign.sh"
for f in "$BIN" "$SIM" "$CAMPAIGN"; do
  [ -x "$f" ] || { echo "campaign_test: $f is missing or not executable" >&2; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "campaign_test: python3 is needed" >&2; exit 2; }
unset INFERLINT_ENGINE

# ---- into a PID namespace of our own, when the machine allows one ----
if [ -z "${CAMPAIGN_TEST_ISOLATION:-}" ]; then
  for ns in "unshare --pid --fork --mount-proc" "unshare --user --map-root-user --pid --fork --mount-proc"; do
    # shellcheck disable=SC2086
    if $ns true >/dev/null 2>&1; then
      export CAMPAIGN_TEST_ISOLATION="private PID namespace ($ns)"
      # shellcheck disable=SC2086
      exec $ns bash "$0" "$BUILD"
    fi
  done
  export CAMPAIGN_TEST_ISOLATION=none
fi

failures=0
ok() { printf 'ok    %s\n' "$*"; }
bad() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/campaign-test.XXXXXX")
STARTED=$SECONDS
echo "campaign_test: isolation: $CAMPAIGN_TEST_ISOLATION; work folder $TMP"

TEARDOWN_MODE=yes
if [ "$CAMPAIGN_TEST_ISOLATION" = none ]; then
  TEARDOWN_MODE=check
  if ! "$BIN" teardown --dry-run 2>/dev/null | grep -q '^no server processes found'; then
    echo "campaign_test: SKIP: another inference server runs on this machine, and without a private"
    echo "  PID namespace the campaign's GPU checks would see it (inferlint teardown --dry-run lists it)"
    rm -rf "$TMP"
    exit 77
  fi
fi

# ---- the simulator under the real names ----
FAKE="$TMP/bin"
mkdir -p "$FAKE"
ln -s "$SIM" "$FAKE/vllm"
ln -s "$SIM" "$FAKE/nvidia-smi"
# Called by that name the simulator reports one idle card (the demo relies on it too).
if ! "$FAKE/nvidia-smi" --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | grep -qx '0'; then
  echo "campaign_test: FAIL: $SIM linked as nvidia-smi does not answer --query-gpu=memory.used with 0" >&2
  rm -rf "$TMP"
  exit 1
fi
export PATH="$FAKE:$PATH"
export INFERLINT_NVIDIA_SMI="$FAKE/nvidia-smi"

# Distinct free ports, all held at once while chosen.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# The campaign's settings for short simulated runs (a few seconds each).
export INFERLINT="$BIN" TEARDOWN="$TEARDOWN_MODE" LOCK="$TMP/campaign.lock"
export MODEL=sim/Qwen3-8B NUM_PROMPTS=16 INPUT_LEN=32 OUTPUT_LEN=200 INTERVAL=0.1 READY_TIMEOUT=30 STOP_GRACE=10
export SERVE_ARGS="--max-num-seqs 32 --sim-time-scale 5 --sim-boot-s 0.5 --sim-log-interval-s 1" BENCH_ARGS=""

ALL_PORTS=()
ALL_RUNS=()

# Runs the campaign; its output goes to a log, shown when something is wrong.
campaign() {  # NAME EXPECTED_STATUS [VAR=VALUE ...]
  local name=$1 want=$2
  shift 2
  local log="$TMP/$name.out" t0=$SECONDS rc=0
  env OUT="$TMP/$name" "$@" "$CAMPAIGN" >"$log" 2>&1 || rc=$?
  if [ "$rc" -eq "$want" ]; then
    ok "$name: campaign exit status $rc, in $((SECONDS - t0)) s"
  else
    bad "$name: campaign exit status $rc, expected $want; its last lines:"
    tail -n 25 "$log" | sed 's/^/      /'
  fi
}

# report.html and results.json in every run folder, and a summary line per run.
check_folders() {  # NAME RUNS [completed]
  local name=$1 want=$2 dir n=0
  for dir in "$TMP/$name"/[0-9][0-9]-c*; do
    [ -d "$dir" ] || continue
    n=$((n + 1))
    ALL_RUNS+=("$dir")
    local f missing=""
    for f in report.html results.json; do [ -s "$dir/$f" ] || missing+=" $f"; done
    if [ -n "$missing" ]; then
      bad "$name/$(basename "$dir"): missing$missing"
    elif ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$dir/results.json" 2>/dev/null; then
      bad "$name/$(basename "$dir"): results.json is not JSON"
    else
      ok "$name/$(basename "$dir"): report.html and results.json"
    fi
  done
  if [ "$n" -eq "$want" ]; then ok "$name: $n run folders"; else bad "$name: $n run folders, expected $want"; fi
  if [ "$want" -gt 0 ]; then
    local lines
    lines=$(($(wc -l <"$TMP/$name/summary.tsv" 2>/dev/null || echo 0) - 1))
    if [ "$lines" -eq "$want" ]; then ok "$name: summary.tsv has $lines runs"; else bad "$name: summary.tsv has $lines runs"; fi
  fi
}

# 1. xray mode, two runs.
read -r -a ports <<<"$(free_ports 2)"
ALL_PORTS+=("${ports[@]}")
campaign xray 0 MODE=xray CONCURRENCIES="4 8" PORTS="${ports[*]}"
check_folders xray 2
if python3 -c '
import json, sys
sys.exit(0 if all(json.load(open(p))["completed"] for p in sys.argv[1:]) else 1)' "$TMP"/xray/[0-9][0-9]-c*/results.json 2>/dev/null; then
  ok "xray: every results.json says the run completed"
else
  bad "xray: a results.json says its run did not complete"
fi

# 2. steps mode, two runs.
read -r -a ports <<<"$(free_ports 2)"
ALL_PORTS+=("${ports[@]}")
campaign steps 0 MODE=steps CONCURRENCIES="4 8" PORTS="${ports[*]}"
check_folders steps 2

# 3. steps mode, stopped by SIGTERM during its load: exit status 143, nothing left running.
read -r -a ports <<<"$(free_ports 1)"
ALL_PORTS+=("${ports[@]}")
t0=$SECONDS
env OUT="$TMP/stopped" MODE=steps CONCURRENCIES=4 PORTS="${ports[*]}" OUTPUT_LEN=5000 \
  SERVE_ARGS="--max-num-seqs 32 --sim-time-scale 1 --sim-boot-s 0.2" "$CAMPAIGN" >"$TMP/stopped.out" 2>&1 &
victim=$!
# The signal comes once the load has printed its first line (load.log), with a generous ceiling.
for _ in $(seq 600); do
  [ -s "$TMP/stopped/01-c4/load.log" ] && break
  kill -0 "$victim" 2>/dev/null || break
  sleep 0.1
done
kill -TERM "$victim" 2>/dev/null
rc=0
wait "$victim" || rc=$?
if [ "$rc" -eq 143 ]; then
  ok "stopped: SIGTERM during the load, campaign exit status 143 after $((SECONDS - t0)) s"
else
  bad "stopped: campaign exit status $rc after SIGTERM, expected 143; its last lines:"
  tail -n 25 "$TMP/stopped.out" | sed 's/^/      /'
fi
[ -d "$TMP/stopped/01-c4" ] && ALL_RUNS+=("$TMP/stopped/01-c4")

# ---- the compare campaign: two arms interleaved, B's server four times as fast ----
# At the simulator's real speed (A: 20 ms a decode step at 16 running, B: 5 ms). A run's
# speed is the machine's too: on CI's 2 cores one run was once starved for its whole load
# (its TPOT 2.5 times its others'). B four times as fast keeps such a run still faster than
# every A run, so the paired interval stays above 0 without making anything twice; a
# smaller gain would have needed a retry, which hides what it retries.
t0=$SECONDS
out="$TMP/compare"
rc=0
if ! A_SCALE=1 B_SCALE=4 BUILD="$BUILD" bash "$ROOT/examples/compare-sim.sh" "$out" 3 >"$out.out" 2>&1; then
  bad "compare: examples/compare-sim.sh failed; its last lines:"
  tail -n 25 "$out.out" | sed 's/^/      /'
else
  "$BIN" compare "$out/a" --vs "$out/b" --paired --require-gain tpot_p50 --json >"$out.json" 2>"$out.err" || rc=$?
  verdict=$(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
tpot = [f for f in doc["figures"] if f["figure"] == "tpot_p50"][0]
runs = [len(doc["arms"][k]["completed"]) for k in ("a", "b")]
gate = [g["status"] for g in doc["gates"]]
print("ok" if tpot["gain"] > 0.1 and tpot["gain_interval"][0] > 0 and runs == [3, 3] and gate == ["pass"]
      else "bad: %s %s %s; tpot_p50 A %s, B %s" % (tpot["statement"], runs, gate,
           [round(x, 1) for x in tpot["a"]], [round(x, 1) for x in tpot["b"]]))' "$out.json" 2>&1)
  if [ "$rc" -eq 0 ] && [ "$verdict" = ok ]; then
    ok "compare: examples/compare-sim.sh made 3 + 3 runs; B faster with its interval above 0, gate passed" \
      "($((SECONDS - t0)) s)"
  else
    bad "compare: exit status $rc, $verdict"
    tail -n 5 "$out.err" | sed 's/^/      /'
  fi
fi
for d in "$out"/a/run-* "$out"/b/run-*; do [ -d "$d" ] && ALL_RUNS+=("$d"); done

# ---- nothing of the simulator left alive ----
# The pids every server logged ("(APIServer pid=N)", "(EngineCore pid=N)"), as boot-facts
# reads them: each must be gone, or be some other program now.
pids=()
for dir in "${ALL_RUNS[@]}"; do
  [ -s "$dir/boot.log" ] || continue
  while read -r p; do [ -n "$p" ] && pids+=("$p"); done < <(
    "$BIN" boot-facts --json "$dir/boot.log" 2>/dev/null | python3 -c '
import json, sys
for ps in json.load(sys.stdin).get("processes", {}).values():
    for p in ps: print(p)')
done
left=()
for p in "${pids[@]}"; do
  [ -r "/proc/$p/cmdline" ] || continue
  state=$(sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$p/stat" 2>/dev/null)
  [ "$state" = Z ] && continue
  cmd=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)
  case $cmd in *"vllm serve"* | VLLM::* | *inferlint-sim*) left+=("$p ($cmd)") ;; esac
done
if [ "${#pids[@]}" -eq 0 ]; then
  bad "no server pids found in the boot logs"
elif [ "${#left[@]}" -eq 0 ]; then
  ok "none of the ${#pids[@]} simulator processes the servers logged is alive"
else
  bad "simulator processes still alive: ${left[*]}"
fi
listening=()
for port in "${ALL_PORTS[@]}"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then listening+=("$port"); fi
done
if [ "${#listening[@]}" -eq 0 ]; then
  ok "nothing listens on the ${#ALL_PORTS[@]} ports the runs used (${ALL_PORTS[*]})"
else
  bad "still listening on port(s) ${listening[*]}"
fi
if [ "$CAMPAIGN_TEST_ISOLATION" != none ]; then
  # In our own namespace every process is ours: none but this script's own may remain.
  others=()
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = $$ ] && continue
    cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
    [ -n "$cmd" ] && others+=("$p: $cmd")
  done
  if [ "${#others[@]}" -eq 0 ]; then
    ok "no other process left in the test's PID namespace"
  else
    bad "processes left in the test's PID namespace:"
    printf '      %s\n' "${others[@]}"
  fi
fi

echo "campaign_test: $((SECONDS - STARTED)) s; $([ "$failures" -eq 0 ] && echo "all checks passed" || echo "$failures check(s) failed")"
if [ "$failures" -eq 0 ]; then rm -rf "$TMP"; else echo "campaign_test: files kept in $TMP"; fi
[ "$failures" -eq 0 ]
