#!/usr/bin/env bash
# A benchmark campaign: several vLLM runs one after another, one per concurrency, each
# checked by inferlint, written so that a run cannot be disturbed by what an earlier one
# (or an earlier campaign that was killed) left behind. docs/orchestration.md explains
# each rule; the short version:
#
#   - every run gets its own port and its own folder (run id), so nothing still waiting
#     for an old server can mistake this run's server for its own (T13);
#   - a run waits on its own server: its pid and its own log, never "whatever answers on
#     the port";
#   - `inferlint gpu-inspect || exit 1` before every start, `inferlint teardown` after
#     every stop (T2), and no `pkill -f` anywhere (T3);
#   - every long step runs as `cmd & wait $!`, so an INT or TERM is handled at once
#     instead of after the step (bash defers a trap while a foreground child runs);
#   - a lock held by the campaign and inherited by everything it starts: a second
#     campaign refuses to start while anything of the first is still alive.
#
# Settings (environment variables; the defaults are for a real vLLM on one GPU):
#   INFERLINT      the inferlint binary                       (inferlint on PATH)
#   MODE           xray: one `inferlint xray` per run;        (xray)
#                  steps: serve, wait, check-log, probe, snapshot, watch, load,
#                  snapshot, stop, teardown and report, one command at a time
#   OUT            folder for the campaign                   (campaign-<date>-<time>)
#   MODEL          model to serve                            (Qwen/Qwen3-8B)
#   CONCURRENCIES  one run per value, in order               (8 16 32)
#   NUM_PROMPTS    requests per run                          (64)
#   INPUT_LEN      prompt tokens per request                 (88)
#   OUTPUT_LEN     output tokens per request                 (1000)
#   SERVE_ARGS     more `vllm serve` options, split on spaces (--max-model-len 16384)
#   BENCH_ARGS     more `vllm bench serve` options            (--dataset-name random)
#   PORTS          ports to use, one per run                  (a free port per run, from python3)
#   INTERVAL       seconds between gauge readings             (0.5)
#   READY_TIMEOUT  seconds a server may take to start         (900)
#   STOP_GRACE     seconds between SIGTERM and SIGKILL        (30; steps mode)
#   TEARDOWN       yes: `inferlint teardown` after every run, which stops every
#                  inference server on this machine; check: only look
#                  (`teardown --dry-run`, then `gpu-inspect`), for a shared machine (yes)
#   LOCK           lock file, one per machine or GPU          (/tmp/inferlint-campaign.lock)
#
# Every run leaves OUT/<run>/ with boot.log, before/after.snapshot.json, run.series.jsonl,
# bench.json, load.log, report.html and results.json (xray's document in xray mode; the
# verdicts of `inferlint report --json` in steps mode), and a line in OUT/summary.tsv.
#
# Needs bash 4.4 or later, python3 (free ports, reading results.json), vllm on PATH, and
# flock (util-linux) for the lock; without flock the lock is skipped.
#
# Exit status: 0 every run was carried out and checked (its findings, failed tripwires
# included, are in its folder and in summary.tsv); 1 a run could not be carried out (the
# card was not free, the server did not start or could not serve, the load failed): the
# campaign stops there, since the next run would start on an unknown card; 2 bad
# settings; 128+N stopped by signal N.
set -euo pipefail

INFERLINT=${INFERLINT:-inferlint}
MODE=${MODE:-xray}
OUT=${OUT:-campaign-$(date +%Y%m%d-%H%M%S)}
MODEL=${MODEL:-Qwen/Qwen3-8B}
CONCURRENCIES=${CONCURRENCIES:-8 16 32}
NUM_PROMPTS=${NUM_PROMPTS:-64}
INPUT_LEN=${INPUT_LEN:-88}
OUTPUT_LEN=${OUTPUT_LEN:-1000}
SERVE_ARGS=${SERVE_ARGS-"--max-model-len 16384"}
BENCH_ARGS=${BENCH_ARGS-"--dataset-name random"}
PORTS=${PORTS:-}
INTERVAL=${INTERVAL:-0.5}
READY_TIMEOUT=${READY_TIMEOUT:-900}
STOP_GRACE=${STOP_GRACE:-30}
TEARDOWN=${TEARDOWN:-yes}
LOCK=${LOCK:-/tmp/inferlint-campaign.lock}

# The campaign's own stdout and stderr, kept on 7 and 8: a trap runs with the redirections
# of the step it interrupted (`step ... >load.log`), and its words belong on the terminal.
exec 7>&1 8>&2
say() { printf 'campaign: %s\n' "$*" >&8; }
die() { say "$*"; exit 2; }

command -v "$INFERLINT" >/dev/null 2>&1 || die "INFERLINT=$INFERLINT: not found"
command -v vllm >/dev/null 2>&1 || die "vllm: not found on PATH"
case $MODE in xray | steps) ;; *) die "MODE=$MODE: use xray or steps" ;; esac
case $TEARDOWN in yes | check) ;; *) die "TEARDOWN=$TEARDOWN: use yes or check" ;; esac
read -r -a serve_args <<<"$SERVE_ARGS"
read -r -a bench_args <<<"$BENCH_ARGS"
read -r -a concurrencies <<<"$CONCURRENCIES"
read -r -a ports <<<"$PORTS"
[ "${#concurrencies[@]}" -gt 0 ] || die "CONCURRENCIES is empty"
if [ "${#ports[@]}" -gt 0 ] && [ "${#ports[@]}" -lt "${#concurrencies[@]}" ]; then
  die "PORTS has ${#ports[@]} ports for ${#concurrencies[@]} runs"
fi

# One campaign at a time. The lock's file descriptor is inherited by every process the
# campaign starts, so it stays taken while anything of this campaign is alive, a server
# or a waiter left behind included.
if command -v flock >/dev/null 2>&1; then
  exec 9>>"$LOCK"
  flock -n 9 || {
    say "another campaign, or a process one left behind, holds $LOCK (fuser -v $LOCK names it)"
    exit 1
  }
fi

# ---- processes of this campaign, always by pid ----

current=""  # the step running now
server=""   # steps mode: the server we started
watcher=""  # steps mode: the inferlint watch we started

# Runs one step as a background job and waits for it, so a signal is handled at once.
step() {
  "$@" &
  current=$!
  local rc=0
  wait "$current" || rc=$?
  current=""
  return "$rc"
}

# Alive and not a zombie (an exited child of ours stays one until we wait for it).
alive() {
  local state
  state=$(sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

nap() { sleep "$1" & wait $!; }

stop_watcher() {
  [ -n "$watcher" ] || return 0
  kill -TERM "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  watcher=""
}

# SIGTERM to our own server, SIGKILL after STOP_GRACE seconds; `inferlint teardown`
# afterwards finds anything it left (vLLM's VLLM::EngineCore can outlive a killed parent).
stop_server() {
  [ -n "$server" ] || return 0
  kill -TERM "$server" 2>/dev/null || true
  local t0=$SECONDS
  while alive "$server" && ((SECONDS - t0 < STOP_GRACE)); do sleep 0.2; done
  if alive "$server"; then kill -KILL "$server" 2>/dev/null || true; fi
  wait "$server" 2>/dev/null || true
  server=""
}

# After a server stopped: nothing of any inference server left, and the card free.
after_stop() {
  if [ "$TEARDOWN" = yes ]; then
    "$INFERLINT" teardown
  else
    "$INFERLINT" teardown --dry-run && "$INFERLINT" gpu-inspect
  fi
}

# A run that could not be carried out: stop what it started, leave the card clean, stop.
abort() {
  say "$*"
  stop_watcher
  stop_server
  after_stop || true
  exit 1
}

on_signal() {
  trap '' INT TERM HUP
  say "$1: stopping the run in progress"
  if [ -n "$current" ]; then
    kill -TERM "$current" 2>/dev/null || true  # xray stops its own server when told to
    wait "$current" 2>/dev/null || true
  fi
  stop_watcher
  stop_server
  after_stop || true
  exit "$2"
} >&7 2>&8
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM
trap 'on_signal SIGHUP 129' HUP
trap 'stop_watcher; stop_server' EXIT

# ---- one run ----

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Until our own server's log says it is ready. Fails when that server exits first or
# takes longer than READY_TIMEOUT: another server answering on the port proves nothing.
wait_ready() {
  local pid=$1 log=$2 t0=$SECONDS
  until grep -q "Application startup complete" "$log" 2>/dev/null; do
    if ! alive "$pid"; then
      say "the server exited before it was ready (its log: $log)"
      return 1
    fi
    if ((SECONDS - t0 >= READY_TIMEOUT)); then
      say "the server was not ready after ${READY_TIMEOUT}s (its log: $log)"
      return 1
    fi
    nap 0.25
  done
}

run_xray() {  # DIR PORT CONCURRENCY
  local dir=$1 port=$2 conc=$3
  local serve="vllm serve $MODEL --host 127.0.0.1 --port $port $SERVE_ARGS"
  local rc=0
  step "$INFERLINT" xray -o "$dir" --title "$(basename "$OUT") $(basename "$dir")" \
    --interval "$INTERVAL" --ready-timeout "$READY_TIMEOUT" --serve "$serve" \
    -- vllm bench serve --model "$MODEL" --host 127.0.0.1 --port "$port" \
    --num-prompts "$NUM_PROMPTS" --max-concurrency "$conc" \
    --random-input-len "$INPUT_LEN" --random-output-len "$OUTPUT_LEN" --ignore-eos \
    "${bench_args[@]}" || rc=$?
  # xray's verdicts decide nothing here; whether it carried the run out does.
  if [ -f "$dir/results.json" ] && python3 -c \
    'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["completed"] else 1)' "$dir/results.json"; then
    return 0
  fi
  say "xray could not carry out the run (exit status $rc; see $dir/results.json)"
  return 1
}

run_steps() {  # DIR PORT CONCURRENCY
  local dir=$1 port=$2 conc=$3 url="http://127.0.0.1:$2"
  if port_taken "$port"; then
    say "port $port is already taken"
    return 1
  fi
  vllm serve "$MODEL" --host 127.0.0.1 --port "$port" "${serve_args[@]}" >"$dir/boot.log" 2>&1 &
  server=$!
  wait_ready "$server" "$dir/boot.log" || return 1
  step "$INFERLINT" check-log "$dir/boot.log" || true  # findings, not a reason to stop
  step "$INFERLINT" probe "$url" || {
    say "the server does not serve (T7)"
    return 1
  }
  step "$INFERLINT" snapshot "$url" -o "$dir/before.snapshot.json" || return 1
  "$INFERLINT" watch "$url" -o "$dir/run.series.jsonl" --interval "$INTERVAL" >"$dir/watch.log" 2>&1 &
  watcher=$!
  local load=0
  step vllm bench serve --model "$MODEL" --host 127.0.0.1 --port "$port" \
    --num-prompts "$NUM_PROMPTS" --max-concurrency "$conc" \
    --random-input-len "$INPUT_LEN" --random-output-len "$OUTPUT_LEN" --ignore-eos \
    "${bench_args[@]}" --save-result --result-dir "$dir" --result-filename bench.json \
    >"$dir/load.log" 2>&1 || load=$?
  stop_watcher
  step "$INFERLINT" snapshot "$url" -o "$dir/after.snapshot.json" || return 1
  stop_server
  after_stop || return 1
  step "$INFERLINT" report "$dir" --title "$(basename "$OUT") $(basename "$dir")" --json \
    >"$dir/results.json" || return 1
  if [ "$load" -ne 0 ]; then
    say "the load exited with status $load (its output: $dir/load.log)"
    return 1
  fi
}

# The worst verdict in a run folder's results.json, a tab, then how many of each status:
# "warn<TAB>pass 11, warn 1".
verdict() {
  python3 - "$1/results.json" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
results = doc["results"] if isinstance(doc, dict) else doc
n = collections.Counter(r["status"] for r in results)
worst = next((s for s in ("fail", "unknown", "warn", "pass") if n[s]), "none")
print(worst, ", ".join(f"{k} {v}" for k, v in sorted(n.items())), sep="\t")
PY
}

mkdir -p "$OUT"
printf 'run\tmode\tport\tconcurrency\tworst\tverdicts\n' >"$OUT/summary.tsv"
say "$MODE mode, ${#concurrencies[@]} runs of $MODEL into $OUT"
i=0
for conc in "${concurrencies[@]}"; do
  i=$((i + 1))
  run=$(printf '%02d-c%s' "$i" "$conc")
  dir="$OUT/$run"
  port=${ports[$((i - 1))]:-$(free_port)}
  rm -rf "$dir" && mkdir -p "$dir"
  say "run $run: concurrency $conc, port $port"
  # Not ours to clean: whatever holds the card was there before this run.
  "$INFERLINT" gpu-inspect || {
    say "the card is not free: no run starts on it (inferlint teardown --dry-run lists what holds it)"
    exit 1
  }
  if [ "$MODE" = xray ]; then
    run_xray "$dir" "$port" "$conc" || abort "run $run could not be carried out"
    after_stop || abort "the card did not come free after run $run"
  else
    run_steps "$dir" "$port" "$conc" || abort "run $run could not be carried out"
  fi
  v=$(verdict "$dir")
  say "run $run: worst verdict ${v%%$'\t'*} (${v#*$'\t'}); report: $dir/report.html"
  printf '%s\t%s\t%s\t%s\t%s\n' "$run" "$MODE" "$port" "$conc" "$v" >>"$OUT/summary.tsv"
done
say "done: $OUT/summary.tsv"
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
