#!/usr/bin/env bash
# Detection power of the chaos allocator against the reporter's seed-style heap
# churn: runs until the first second variant, median over many seeds, on the
# fake compilers whose output depends on heap addresses (one worker process,
# ASLR off, so only the heap perturbation can expose it).
#   bench/chaos_detection.sh [BUILD_DIR] [SEEDS] [MAX_RUNS]
set -euo pipefail
build=${1:-build}
seeds=${2:-41}
max=${3:-400}
kdet=$build/src/kdet
fake=$build/tests/fakes/libfakenvvm.so
in=$(dirname "$0")/../examples/nvvm/llvm7/saxpy.ll

runs_to_second() { # heap mode, fake mode, seed -> completed runs (max+1 when never)
  local out
  out=$("$kdet" run "$in" --lib "$fake" --process same --aslr off --heap "$1" -n "$max" --seed "$3" \
    --stop-on-variant --json - -q -- -fake-mode="$2" 2>/dev/null || true)
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["runs"]["completed"] if len(d["variants"])>1 else int(sys.argv[2])+1)' "$out" "$max"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "| fake mode | heap=churn: median runs to 2nd variant | heap=chaos | ratio churn/chaos | never seen (churn / chaos) |"
echo "| --- | --- | --- | --- | --- |"
for mode in heaporder pairorder; do
  churn=(); chaos=()
  for s in $(seq 1 "$seeds"); do
    churn+=("$(runs_to_second churn $mode $s)")
    chaos+=("$(runs_to_second chaos $mode $s)")
  done
  mc=$(printf '%s\n' "${churn[@]}" | median)
  mx=$(printf '%s\n' "${chaos[@]}" | median)
  nc=$(printf '%s\n' "${churn[@]}" | awk -v m="$max" '$1>m' | wc -l)
  nx=$(printf '%s\n' "${chaos[@]}" | awk -v m="$max" '$1>m' | wc -l)
  ratio=$(python3 -c "print(f'{$mc/$mx:.1f}x')")
  echo "| $mode | $mc | $mx | $ratio | $nc / $nx of $seeds |"
done
