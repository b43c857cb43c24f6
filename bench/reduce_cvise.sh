#!/bin/bash
# CUDA C++ reduction: kdet reduce (cvise as the engine, kdet's flaky-aware oracle deciding)
# against cvise given a naive interestingness test, on .cu-like kernels with a planted construct
# that makes tests/fakes/fake_cc vary. Naive tests: "1run" runs the compiler once and greps its
# output for the symptom (the "// pid:" line fake_cc adds when it varies); "2run" runs it twice
# and accepts any difference (cmp). Fakes: planted-rare (varies in a quarter of the runs) and
# planted-kind (crashes in half the runs once the "kdet_keep" marker is gone: the variance
# changed kind). Each result is then run 64 times with kdet run: "varies" is exit 1 with no
# crash among the outcomes. Every reduction is capped at CAP seconds (a capped one stalled).
# cvise skips its first check for all three (a naive test fails it by chance, and kdet checks
# the input itself).
# Usage: bench/reduce_cvise.sh [BUILD_DIR] [CAP] [SEEDS]. Numbers: docs/PERFORMANCE.md.
B=${1:-build}; CAP=${2:-180}; SEEDS=${3:-"1 2"}
K=$(realpath $B/src/kdet); F=$(realpath $B/tests/fakes/fake_cc)
command -v cvise >/dev/null || { echo "cvise not installed (apt-get install cvise)"; exit 77; }
T=$(mktemp -d); trap "rm -rf $T" EXIT
# gen SEED HELPERS: a kernel file with HELPERS device functions, the planted name in the kernel.
gen() {
  python3 - "$1" "$2" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1])); n = int(sys.argv[2])
print('// kdet_keep\n#include "cuda_runtime.h"\n#define N 256')
for i in range(n):
    print(f"__device__ float helper_{i}(const float* a, int i) {{\n  float s = 0.0f;")
    print(f"  for (int k = 0; k < {r.randint(2, 9)}; ++k)\n    s += a[(i + k) % N] * {r.randint(1, 99)}.5f;")
    print("  return s;\n}")
print("__global__ void kernel(float* out, const float* in) {")
print("  int i = blockIdx.x * blockDim.x + threadIdx.x;")
print(f"  float acc = helper_{r.randrange(n)}(in, i) + helper_{r.randrange(n)}(in, i);")
print("  int kdet_planted = i;\n  out[i] = acc + kdet_planted;\n}")
PY
}
# naive MODE KIND: the interestingness script a user would write for cvise.
naive() {
  if [[ $2 == 1run ]]; then
    printf '#!/bin/sh\n%s %s k.cu a.out 2>/dev/null && grep -q "^// pid:" a.out\n' "$F" "$1"
  else
    printf '#!/bin/sh\n%s %s k.cu a.out 2>/dev/null; %s %s k.cu b.out 2>/dev/null; ! cmp -s a.out b.out\n' \
      "$F" "$1" "$F" "$1"
  fi
}
# check MODE FILE: "varies" (exit 1, no crash in 64 runs), "crashes" or "steady".
check() {
  "$K" run "$2" --cmd "$F $1 {input} {output}" --unnamed natural -n 64 -q --json "$T/check.json" 2>/dev/null
  local rc=$?
  if grep -q '"crashed"' "$T/check.json"; then echo crashes
  elif ((rc == 1)); then echo varies
  else echo steady; fi
}
printf '%-12s %-5s %-6s %6s %6s %7s %s\n' mode seed method in out wall result
for mode in planted-rare planted-kind; do
  for seed in $SEEDS; do
    gen "$seed" 30 >"$T/in.cu"
    in=$(stat -c %s "$T/in.cu")
    for method in 1run 2run kdet; do
      W=$T/$mode-$seed-$method; mkdir -p "$W"; cp "$T/in.cu" "$W/k.cu"
      s=$(date +%s.%N)
      if [[ $method == kdet ]]; then
        (cd "$W" && "$K" reduce k.cu --cmd "$F $mode {input} {output}" --unnamed natural -j 2 \
          --timeout-total "$CAP" -q -o small.cu >/dev/null 2>&1)
        out=$W/small.cu
      else
        naive "$mode" "$method" >"$W/test.sh"; chmod +x "$W/test.sh"
        (cd "$W" && timeout -k 5 "$CAP" cvise --n 2 --tidy --skip-interestingness-test-check test.sh k.cu >/dev/null 2>&1)
        out=$W/k.cu
      fi
      wall=$(echo "$(date +%s.%N) - $s" | bc)
      res=$(check "$mode" "$out")
      (($(echo "$wall >= $CAP" | bc))) && res="$res,capped"
      printf '%-12s %-5s %-6s %6s %6s %7.1f %s\n' "$mode" "$seed" "$method" "$in" \
        "$(stat -c %s "$out")" "$wall" "$res"
    done
  done
done
