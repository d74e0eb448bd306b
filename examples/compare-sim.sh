#!/usr/bin/env bash
# Two arms of runs on the simulator, interleaved (A1 B1 A2 B2 ...), one `inferlint xray`
# each, for `inferlint compare` (docs/compare.md). The simulator stands in for vLLM and
# nvidia-smi, so no GPU is needed; B's server runs B_SCALE/A_SCALE times faster.
#
# usage: examples/compare-sim.sh OUT [RUNS]     (RUNS per arm, default 3)
# Settings (environment variables):
#   BUILD     the build folder with inferlint and inferlint-sim   (build)
#   A_SCALE   A's --sim-time-scale                                 (20)
#   B_SCALE   B's --sim-time-scale                                 (24)
#   A_ARGS    more `vllm serve` options for A                      (none)
#   B_ARGS    more `vllm serve` options for B                      (none)
#   LOAD_ARGS the load's options (--num-prompts 16 --max-concurrency 16
#             --random-input-len 64 --random-output-len 256 --ignore-eos)
# Leaves OUT/a/run-N and OUT/b/run-N; a run that fails is left as xray wrote it (its
# results.json says it did not complete), and the campaign goes on.
set -uo pipefail
out=${1:?usage: $0 OUT [RUNS]}
runs=${2:-3}
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${BUILD:-$root/build}" && pwd)"
load_args=${LOAD_ARGS:---num-prompts 16 --max-concurrency 16 --random-input-len 64 --random-output-len 256 --ignore-eos}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$build/inferlint-sim" "$bin/vllm"
ln -s "$build/inferlint-sim" "$bin/nvidia-smi"
export PATH="$bin:$PATH" INFERLINT_NVIDIA_SMI="$bin/nvidia-smi"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

one_run() {  # arm scale extra-serve-args
    local arm=$1 scale=$2 extra=$3 port
    port=$(free_port)
    # shellcheck disable=SC2086  # the option lists are split on spaces on purpose
    "$build/inferlint" xray -o "$out/$arm/run-$i" --interval 0.05 --no-probe \
        --serve "vllm serve sim/Qwen3-8B --port $port --sim-boot-s 0.05 --sim-time-scale $scale $extra" \
        -- vllm bench serve --model sim/Qwen3-8B --port "$port" $load_args >/dev/null 2>&1 &
    wait $!
    echo "$arm/run-$i: exit $?"
}

for i in $(seq "$runs"); do
    one_run a "${A_SCALE:-20}" "${A_ARGS:-}"
    one_run b "${B_SCALE:-24}" "${B_ARGS:-}"
done
