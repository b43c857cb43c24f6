#!/bin/bash
# The GPU run of docs/IMPACT.md ("Dynamic reach"), from the repository root on a machine with
# a GPU and CUDA 13.0: the e2e test impact_gpu, compute-sanitizer's racecheck on new corpus
# kernels (and the old generator's gen_1473/gen_1277), memcheck on one, and the figures (three
# runs of the real pair with 4096 threads, one with one thread, the planted pair, two noise
# floors), two more planted pairs, and a hunt for real variant pairs among race-free corpus
# kernels, each launched. B: a folder holding a kdet binary (and the shared libraries it
# needs, which go on LD_LIBRARY_PATH); OUT: where the reports go.
#   B=devbin OUT=/tmp/out scripts/device_impact_gpu.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH
B=$(cd "${B:?B names a folder holding kdet}" && pwd); export LD_LIBRARY_PATH=$B; K=$B/kdet
OUT=${OUT:?OUT names the reports folder}
mkdir -p "$OUT"
# New (race-free) corpus kernels, compiled by libNVVM on this machine.
$K corpus --out $B/corpus --count 4 --size medium --seed 11 --force -q
for i in 0 2 3; do
  rm -rf $B/corpus/run$i
  $K run $B/corpus/gen_000$i.ll -n 1 -q --out $B/corpus/run$i -- -arch=compute_80 -opt=3
  cp $B/corpus/run$i/variants/*/ptx $B/gen_000$i.ptx
  cp $B/corpus/gen_000$i.recipe.toml $B/
done
G=tests/data/gpu; R=tests/data/nvvm_real
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; ptxas --version | tail -1; } > $OUT/env.txt 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)
$CS --version >> $OUT/env.txt 2>&1
KDET=$K KDET_SOURCE_DIR=$PWD timeout 120 bash tests/e2e/impact_gpu.sh > $OUT/e2e.txt 2>&1; echo "e2e rc=$?" >> $OUT/e2e.txt
: > $OUT/racecheck.txt
rc() { # name ptx recipe grid
  sed "s/^grid = .*/grid = $4/" $3 > /tmp/rc.toml
  echo "=== $1 ($2, grid $4)" >> $OUT/racecheck.txt
  timeout 90 $CS --tool racecheck --racecheck-report all $K impact $2 $2 --run --recipe /tmp/rc.toml --launches 1 > /tmp/rc.out 2>&1; echo "rc=$?" >> /tmp/rc.out
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard|rc=|run:|results|Error" /tmp/rc.out | sort | uniq -c | head -20 >> $OUT/racecheck.txt
}
for i in 0 2 3; do rc new_gen_000$i $B/gen_000$i.ptx $B/gen_000$i.recipe.toml 8; done
rc new_gen_0001 $G/gen_0001.a.ptx $G/gen_0001.recipe.toml 8
rc old_gen_1473 $R/gen_1473.a.ptx $R/gen_1473.recipe.toml 16
sed "s/^block = .*/block = 256/" $R/gen_1277.1thread.recipe.toml > /tmp/g1277.toml; rc old_gen_1277 $R/gen_1277.a.ptx /tmp/g1277.toml 16
echo "=== memcheck new_gen_0000" >> $OUT/racecheck.txt
sed "s/^grid = .*/grid = 8/" $B/gen_0000.recipe.toml > /tmp/mc.toml
timeout 90 $CS --tool memcheck $K impact $B/gen_0000.ptx $B/gen_0000.ptx --run --recipe /tmp/mc.toml --launches 1 2>&1 | grep -E "ERROR SUMMARY|run:|results" >> $OUT/racecheck.txt
m() { # name args...
  local n=$1; shift
  echo "=== $n: kdet impact $*" >> $OUT/measure.txt
  timeout 100 $K impact "$@" --json $OUT/$n.json >> $OUT/measure.txt 2>&1; echo "exit $?" >> $OUT/measure.txt
}
: > $OUT/measure.txt
for r in 1 2 3; do m real_full_$r $R/gen_1473.a.ptx $R/gen_1473.b.ptx --run --recipe $R/gen_1473.recipe.toml --launches 200; done
m real_1thread $R/gen_1473.a.ptx $R/gen_1473.b.ptx --run --recipe $R/gen_1473.1thread.recipe.toml --launches 200
m planted $G/gen_0001.a.ptx $G/gen_0001.b.ptx --run --recipe $G/gen_0001.recipe.toml --launches 200
m noise_gen_0001 $G/gen_0001.a.ptx $G/gen_0001.a.ptx --run --recipe $G/gen_0001.recipe.toml --launches 200
m noise_gen_1277 $R/gen_1277.a.ptx $R/gen_1277.b.ptx --run --recipe $R/gen_1277.1thread.recipe.toml --launches 200
# A one-ulp plant as well: the same folded constant of gen_0001.a, 3.0 one ulp up (the pair
# above changes it to 2.5); the report counts NaN, infinite and untouched outputs.
grep -q '0f40400000' <(sed -n 442p $G/gen_0001.a.ptx) || echo "device_impact_gpu: line 442 moved" >&2
sed '442s/0f40400000/0f40400001/' $G/gen_0001.a.ptx > $B/p_ulp.ptx
m planted_ulp $G/gen_0001.a.ptx $B/p_ulp.ptx --run --recipe $G/gen_0001.recipe.toml --launches 50
# Real libNVVM 13.0 variant pairs among race-free corpus kernels: 800 small kernels x sm_80,
# sm_90a at -opt=3, 10 runs each on every core; the first three that vary, launched.
NVVM=$(ls /usr/local/cuda/nvvm/lib64/libnvvm.so /usr/local/cuda/lib64/libnvvm.so* 2>/dev/null | head -1)
W=$B/hunt; rm -rf $W; mkdir -p $W
$K corpus --out $W/corpus --count 800 --size small --seed 5 --force -q
printf 'inputs = ["corpus/*.ll"]\ntargets = ["80", "90a"]\n[option_sets]\nO3 = ["-opt=3"]\n[[compiler]]\nname = "nvvm"\nbackend = "nvvm"\nlib = "%s"\n' "$NVVM" > $W/hunt.toml
(cd $W && timeout 300 $K scan hunt.toml --db h.db -j "$(nproc)" --max-runs 10 --json h.json -q) > $OUT/hunt.txt 2>&1
python3 -c 'import json,sys; [print(j["input"], j["target"]) for j in json.load(open(sys.argv[1]))["jobs"] if j["verdict"] == "nondeterministic"]' $W/h.json > $W/vary.txt
echo "varying jobs: $(wc -l < $W/vary.txt)" >> $OUT/hunt.txt
n=0
while read -r inp tgt && ((n < 3)); do
  b=$(basename $inp .ll)
  $K run $W/$inp -n 24 -q --out $W/r_$b -- -arch=compute_$tgt -opt=3 > /dev/null 2>&1
  vs=($W/r_$b/variants/*/ptx)
  ((${#vs[@]} >= 2)) || continue
  n=$((n + 1)); cp ${vs[0]} $OUT/${b}_$tgt.a.ptx; cp ${vs[1]} $OUT/${b}_$tgt.b.ptx
  m hunt_${b}_$tgt ${vs[0]} ${vs[1]} --run --recipe $W/corpus/$b.recipe.toml --launches 200
done < $W/vary.txt
cd $OUT && tar czf json.tgz *.json && rm -f *.json
