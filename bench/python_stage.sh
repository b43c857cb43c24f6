#!/usr/bin/env bash
# Python stages (kdet run --py): runs per second in one worker against a fresh interpreter per
# run, on kdet's llvmlite recipe (LLVM IR -> PTX through llvmlite's NVPTX back end). In one
# worker a run costs the stage's own time; a fresh worker pays an interpreter start and the
# imports (llvmlite and its LLVM) on every run. Every factor is natural but process, so the
# two commands differ only in where the runs happen.
# Usage: bench/python_stage.sh [KDET] [RUNS] [REPS]   (defaults: build/kdet, 200, 3)
# Env: PYTHON (default /usr/bin/python3, which must import llvmlite), KDET_BENCH_INPUT.
# Prints per mode and repetition the wall time of the command and runs/s, then the median ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kdet=$(realpath "${1:-$root/build/kdet}")
runs=${2:-200}
reps=${3:-3}
py=${PYTHON:-/usr/bin/python3}
input=${KDET_BENCH_INPUT:-$root/examples/nvvm/llvm7/tiled_matmul.ll}
recipe=$root/python/kdet_stage/llvmlite_ptx.py
"$py" -c 'import llvmlite.binding' 2>/dev/null || {
  echo "python_stage: $py cannot import llvmlite (Debian: apt-get install python3-llvmlite)" >&2
  exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
rate() { # MODE: prints the runs per second of one command
  local t0 t1
  t0=$(date +%s.%N)
  "$kdet" run "$input" --py "$recipe:compile" --python "$py" --process "$1" --unnamed natural \
    -n "$runs" --seed 1 --quiet --json "$T/$1.json" -- -mcpu=sm_80 || [[ $? == 1 ]]
  t1=$(date +%s.%N)
  python3 -c 'import sys; t=float(sys.argv[2])-float(sys.argv[1]); print(f"{t:.2f} {int(sys.argv[3])/t:.1f}")' \
    "$t0" "$t1" "$runs"
}
declare -a same fresh
for ((i = 1; i <= reps; i++)); do
  read -r ts rs < <(rate same)
  read -r tf rf < <(rate fresh)
  echo "rep $i: same ${ts} s (${rs} runs/s), fresh ${tf} s (${rf} runs/s)"
  same+=("$rs")
  fresh+=("$rf")
done
python3 - "${same[*]}" "${fresh[*]}" "$runs" <<'PY'
import statistics, sys
s = [float(x) for x in sys.argv[1].split()]
f = [float(x) for x in sys.argv[2].split()]
ms, mf = statistics.median(s), statistics.median(f)
print(f"median: one worker {ms:.1f} runs/s, fresh processes {mf:.1f} runs/s, ratio {ms / mf:.1f}x ({sys.argv[3]} runs per command)")
PY
