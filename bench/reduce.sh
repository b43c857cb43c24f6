#!/bin/bash
# kdet reduce: reduction ratio and wall time on corpus kernels of several sizes with a planted
# construct (fake_cc planted varies only while the input holds it); the result is also compiled
# with the real libNVVM (-arch=compute_90a). Usage: bench/reduce.sh [BUILD_DIR]. docs/PERFORMANCE.md.
B=${1:-build}; K=$B/src/kdet; F=$(realpath $B/tests/fakes/fake_cc)
T=$(mktemp -d); trap "rm -rf $T" EXIT
for size in small medium large 12000; do
  for seed in 1 2; do
    $K corpus -o $T/c-$size-$seed -n 1 --size $size --seed $seed -q
    python3 - $T/c-$size-$seed/gen_0000.ll $T/in-$size-$seed.ll <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
out, done = [], False
for l in lines:
    if l.startswith("define ") and not any(x.startswith("@kdet_planted") for x in out):
        out.append("@kdet_planted = internal addrspace(1) global i32 0, align 4")
    out.append(l)
    if not done and l == "entry:" and any(x.startswith("define void @") for x in out[-3:]):
        out.append("  store volatile i32 1, i32 addrspace(1)* @kdet_planted, align 4"); done = True
open(sys.argv[2], "w").write("\n".join(out))
PY
    for j in 1 2; do
      s=$(date +%s.%N)
      $K reduce $T/in-$size-$seed.ll --cmd "$F planted {input} {output}" --unnamed natural -j $j -q -o $T/out-$size-$seed-$j.ll
      rc=$?; e=$(date +%s.%N)
      $K run $T/out-$size-$seed-$j.ll --unnamed natural -n 1 -q -- -arch=compute_90a; real=$?
      echo "$size seed=$seed j=$j rc=$rc in=$(stat -c %s $T/in-$size-$seed.ll) out=$(stat -c %s $T/out-$size-$seed-$j.ll) wall=$(echo "$e - $s" | bc) real_nvvm_rc=$real"
    done
  done
done
