#!/usr/bin/env bash
# How often kdet explain reaches the same sufficient set with another seed: each case below is
# explained with seeds 1..N (default 20), JOBS at a time, and the causes are counted per case.
#   bench/explain_stability.sh KDET FAKES_DIR [N] [JOBS]
# Cases: the heap-order and load-address fakes (library), fake_cc's time, path, pid and pair
# modes (exec), a real Inductor PTX through the real ptxas (its cubin follows its sources'
# mtimes), and a kernel on which the real libNVVM 13.0 varies (tests/data/nvvm_real/gen_1473.ll).
# Prints one line per case as it ends: agreeing seeds, the expected cause, its wall time, and
# every other cause seen. KDET_STABILITY_NVVM=1 adds the libNVVM case (minutes per seed);
# KDET_STABILITY_ONLY=REGEX keeps the cases whose name matches it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kdet=${1:?usage: explain_stability.sh KDET FAKES_DIR [N] [JOBS]}
fakes=${2:?usage: explain_stability.sh KDET FAKES_DIR [N] [JOBS]}
n=${3:-20}
jobs=${4:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
in=$root/examples/nvvm/llvm7/saxpy.ll
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas

# The Inductor kernel and the two files its .file directives name.
src=cq32kd57vrsxmrwaa645pa4b7jm44xtgz6nn4kcpuoswza2xire3.py
mkdir -p "$work/src"
sed "s|@DIR@|$work/src|g" "$root/tests/data/inductor/triton_per_fused_softmax.ptx" >"$work/k.ptx"
cp "$root/tests/data/inductor/$src" "$work/src/$src"
head -c 16041 /dev/zero | tr '\0' '#' >"$work/src/standard.py"

# name|expected cause (sorted, comma-separated; A/B: either)|arguments after the input
cases=(
  "heaporder|aslr,heap,process|$in --lib $fakes/libfakenvvm.so -n 20 --min-cell-runs 10 -- -fake-mode=heaporder"
  "loadaddr|aslr|$in --lib $fakes/libfakenvvm.so -n 20 -- -fake-mode=loadaddr"
  "fake_cc time|time|$in --cmd '$fakes/fake_cc time {input} {output}' -n 10"
  "fake_cc path|path|$in --cmd '$fakes/fake_cc path {input} {output}' -n 10"
  "fake_cc pid|pid|$in --cmd '$fakes/fake_cc pid {input} {output}' -n 10"
  "fake_cc pair|cwd/tmpdir|$in --cmd '$fakes/fake_cc pair {input} {output}' -n 10"
)
if [[ -x $ptxas ]]; then
  cases+=("inductor ptxas|mtime|$work/k.ptx --cmd '$ptxas -lineinfo -v --gpu-name=sm_90a {input} -o {output}' --output-ext cubin")
fi
# The real libNVVM case takes minutes per seed on 2 cores: only with KDET_STABILITY_NVVM=1.
if [[ ${KDET_STABILITY_NVVM:-0} == 1 ]]; then
  cases+=("libNVVM gen_1473 -opt=3|aslr,heap,process|$root/tests/data/nvvm_real/gen_1473.ll -n 24 -- -arch=compute_80 -opt=3")
fi

# One case at a time, its seeds JOBS at a time, and its line printed as soon as it is done.
# Every explain gets LIMIT seconds (default 600); one that runs out counts as "(no report)".
limit=${KDET_STABILITY_LIMIT_S:-600}
printf '%-26s %-8s %-22s %-7s %s\n' case agree expected wall "other causes (seeds)"
i=0
for c in "${cases[@]}"; do
  IFS='|' read -r name want args <<<"$c"
  [[ $name =~ ${KDET_STABILITY_ONLY:-.} ]] || continue
  start=$SECONDS
  seq 1 "$n" | xargs -P "$jobs" -I{} bash -c '
    kdet=$1 work=$2 i=$3 s=$4 limit=$5 args=$6
    eval "set -- $args"
    env -u TMPDIR timeout -s INT -k 10 "$limit" "$kdet" explain --seed "$s" --color never \
      --json "$work/$i.$s.json" "$@" >"$work/$i.$s.log" 2>&1
  ' _ "$kdet" "$work" "$i" {} "$limit" "$args"
  python3 - "$work" "$i" "$n" "$name" "$want" "$((SECONDS - start))" <<'PY'
import json, sys, collections
work, i, n, name, want, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
seen = collections.Counter()
for s in range(1, n + 1):
    try:
        d = json.load(open(f"{work}/{i}.{s}.json"))
        seen[",".join(sorted(d.get("cause") or [])) or "(" + d.get("verdict", "?") + ")"] += 1
    except (OSError, ValueError):
        seen["(no report)"] += 1
agree = sum(seen.pop(w, 0) for w in want.split("/"))
other = "; ".join(f"{k} ({v})" for k, v in seen.most_common()) or "-"
print(f"{name:<26} {agree:>2}/{n:<5} {want:<22} {wall + ' s':<7} {other}", flush=True)
PY
  i=$((i + 1))
done
