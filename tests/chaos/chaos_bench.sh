#!/usr/bin/env bash
# chaos_bench.sh: how much slower ptxas and libNVVM run under libkdet_chaos.so.
# Not a CTest test (timings are machine-dependent); the numbers in docs/CHAOS.md
# come from it. Runs each case RUNS times without and with the library,
# interleaved, and prints the median wall time and the median peak RSS: "chaos" is
# the defaults, "heavy" pads up to 4 KiB with a decoy event on every allocation.
#
# Usage: tests/chaos/chaos_bench.sh BUILD_DIR [RUNS]   (default RUNS=7)
#   ptxas:   ptxas -arch=sm_90a on a generated PTX file (64 unrolled kernels,
#            made once with nvcc --ptx)
#   libNVVM: one Python process compiling examples/nvvm/llvm7/*.ll at
#            -arch=compute_90a -opt=3, 25 times each (tests/chaos/chaos_driver.py);
#            nvvm_inside is the time spent inside libNVVM calls only (no RSS)
#   nvcc:    nvcc --ptx -arch=sm_90 on the generated .cu (cicc does the work)
set -euo pipefail
build=${1:?usage: chaos_bench.sh BUILD_DIR [RUNS]}
runs=${2:-7}
src=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=$(cd "$build" && pwd)/src/libkdet_chaos.so
[[ -f $lib ]] || { echo "chaos_bench: $lib not built" >&2; exit 1; }
python=$(python3 -c 'import sys; print(sys.executable)')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A PTX file big enough to time: 64 kernels, each a fully unrolled polynomial loop.
{
  echo 'template <int K> __device__ float poly(float x) {'
  echo '  float acc = 0.f;'
  echo '#pragma unroll'
  echo '  for (int i = 0; i < 48 + K; ++i) acc = acc * x + (float)(i * K % 7) + __sinf(acc);'
  echo '  return acc; }'
  for k in $(seq 1 64); do
    echo "extern \"C\" __global__ void k$k(float* out, const float* in, int n) {"
    echo "  int i = blockIdx.x * blockDim.x + threadIdx.x;"
    echo "  if (i < n) out[i] = poly<$k>(in[i]) + poly<$((k + 1))>(in[n - 1 - i]); }"
  done
} >"$tmp/big.cu"
"$cuda/bin/nvcc" --ptx -arch=sm_90 "$tmp/big.cu" -o "$tmp/big.ptx"
echo "chaos_bench: generated PTX: $(wc -l <"$tmp/big.ptx") lines"

nvvm_jobs=()
for f in "$src"/examples/nvvm/llvm7/*.ll; do nvvm_jobs+=("$f:compute_90a"); done
mkdir -p "$tmp/out"

# measure NAME ENV... -- COMMAND...: appends "seconds kilobytes" lines to $tmp/NAME
measure() {
  local name=$1
  shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" /usr/bin/time -f '%e %M' -o "$tmp/one" "$@" >/dev/null 2>&1
  cat "$tmp/one" >>"$tmp/$name"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for ((r = 0; r < runs; ++r)); do
  for mode in plain chaos heavy; do
    envs=(KDET_CHAOS_SEED=$((r + 1)))
    [[ $mode != plain ]] && envs+=(LD_PRELOAD="$lib")
    [[ $mode == heavy ]] && envs+=(KDET_CHAOS_MAX_PAD=4096 KDET_CHAOS_DECOY_PERMILLE=1000)
    measure "ptxas.$mode" "${envs[@]}" -- "$cuda/bin/ptxas" -arch=sm_90a "$tmp/big.ptx" -o "$tmp/big.cubin"
    measure "nvvm.$mode" "${envs[@]}" -- "$python" "$src/tests/chaos/chaos_driver.py" "$tmp/out" \
      --cuda-home "$cuda" --repeat 25 --nvvm "${nvvm_jobs[@]}"
    echo "$(cat "$tmp/out/compile_seconds.txt") 0" >>"$tmp/nvvm_inside.$mode"
    measure "nvcc.$mode" "${envs[@]}" -- "$cuda/bin/nvcc" --ptx -arch=sm_90 "$tmp/big.cu" -o "$tmp/again.ptx"
  done
done

printf '%-14s %9s %9s %8s\n' case wall_s slowdown rss_MB
for c in ptxas nvvm nvvm_inside nvcc; do
  p=$(cut -d' ' -f1 "$tmp/$c.plain" | median)
  for mode in plain chaos heavy; do
    q=$(cut -d' ' -f1 "$tmp/$c.$mode" | median)
    qm=$(cut -d' ' -f2 "$tmp/$c.$mode" | median)
    awk -v c="$c.$mode" -v p="$p" -v q="$q" -v qm="$qm" \
      'BEGIN { printf "%-14s %9.2f %7.2fx %8.1f\n", c, q, q / p, qm / 1024 }'
  done
done
echo "chaos_bench: median of $runs runs each, $(nproc) cores, $(uname -m)"
