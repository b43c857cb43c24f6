#!/usr/bin/env bash
# tier: cuda
# chaos_real_compilers.sh: the real CUDA compilers give byte-identical output with
# and without libkdet_chaos.so preloaded (docs/CHAOS.md).
#
# Compilers: ptxas (PTX -> cubin; also --split-compile 4 on a generated 16-kernel
# file, so that ptxas allocates from 4 worker threads), nvcc --ptx and nvcc -cubin (CUDA -> PTX / cubin;
# nvcc -c objects are not compared: they embed temporary names), and in one
# Python process through ctypes libNVVM (IR -> PTX), NVRTC (CUDA -> PTX + cubin)
# and nvJitLink (PTX -> cubin), each input compiled twice with a reseed between
# (the in-process hook). Inputs: the bundled examples/ corpus.
# Runs: two without the library (to find outputs that vary even without it: those
# are reported and left out), then KDET_CHAOS_SEED=1, 0x2a, 987654321 and one
# heavy setting (pads up to 4 KiB, a decoy event on every allocation).
# Env: KDET (kdet binary; libkdet_chaos.so lies next to it), KDET_SOURCE_DIR.
# Exit 0 pass, 1 fail, 77 skipped (CUDA or the examples absent).
source "$(dirname "$0")/lib/common.bash"
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=$(dirname "$KDET")/libkdet_chaos.so
examples=$EX
driver=$KDET_SOURCE_DIR/tests/chaos/chaos_driver.py

for need in "$cuda/bin/ptxas" "$cuda/bin/nvcc" "$cuda/lib64/libnvrtc.so" "$cuda/lib64/libnvJitLink.so"; do
  [[ -e $need ]] || skip "$need not found"
done
[[ -e $cuda/lib64/libnvvm.so || -e $cuda/nvvm/lib64/libnvvm.so ]] ||
  skip "libnvvm.so not found under $cuda"
[[ -d $examples/ptx && -d $examples/cuda && -d $examples/nvvm ]] ||
  skip "$examples (the bundled corpus) not found"
[[ -f $lib ]] || fail "$lib not built"
# The real interpreter, not a wrapper script (pyenv shims would run under the library too).
python=$(python3 -c 'import sys; print(sys.executable)')


ptx_files=("$examples"/ptx/*.ptx)
cu_files=("$examples"/cuda/*.cu)
nvvm_jobs=()
for f in "$examples"/nvvm/llvm7/*.ll; do nvvm_jobs+=("$f:compute_90a"); done
for f in "$examples"/nvvm/modern/*.ll; do nvvm_jobs+=("$f:compute_100a"); done
nvrtc_jobs=()
for f in "${cu_files[@]}"; do nvrtc_jobs+=("$f:sm_90"); done
jit_jobs=()
for f in "${ptx_files[@]}"; do jit_jobs+=("$f:sm_90"); done

# 16 kernels in one PTX file for ptxas --split-compile (made once, without the library).
{
  echo 'template <int K> __device__ float poly(float x) {'
  echo '  float a = 0.f;'
  echo '#pragma unroll'
  echo '  for (int i = 0; i < 40 + K; ++i) a = a * x + (float)(i * K % 7) + __sinf(a);'
  echo '  return a; }'
  for k in $(seq 1 16); do
    echo "extern \"C\" __global__ void k$k(float* o, const float* in, int n) {"
    echo "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = poly<$k>(in[i]); }"
  done
} >"$T/split.cu"
"$cuda/bin/nvcc" --ptx -arch=sm_90 "$T/split.cu" -o "$T/split.ptx"

# compile_all DIR [env assignments...]: every compile, outputs into DIR, stderr into DIR.log/.
compile_all() {
  local out=$1
  shift
  mkdir -p "$out" "$out.log"
  local f b
  for f in "${ptx_files[@]}"; do
    b=$(basename "$f")
    env "$@" "$cuda/bin/ptxas" -arch=sm_90a "$f" -o "$out/ptxas.$b.cubin" 2>"$out.log/ptxas.$b"
  done
  env "$@" "$cuda/bin/ptxas" -arch=sm_90a --split-compile 4 "$T/split.ptx" \
    -o "$out/ptxas-split.cubin" 2>"$out.log/ptxas.split"
  for f in "${cu_files[@]}"; do
    b=$(basename "$f")
    env "$@" "$cuda/bin/nvcc" --ptx -arch=sm_90 "$f" -o "$out/nvcc.$b.ptx" 2>"$out.log/nvcc-ptx.$b"
    env "$@" "$cuda/bin/nvcc" -cubin -arch=sm_90 "$f" -o "$out/nvcc.$b.cubin" 2>"$out.log/nvcc-cubin.$b"
  done
  env "$@" "$python" "$driver" "$out" --cuda-home "$cuda" --repeat 2 --seed 11 \
    --nvvm "${nvvm_jobs[@]}" --nvrtc "${nvrtc_jobs[@]}" --nvjitlink "${jit_jobs[@]}" \
    2>"$out.log/driver"
  # counters, not compiler output
  mv "$out/compile_seconds.txt" "$out.log/"
  [[ ! -f $out/chaos_allocations.txt ]] || mv "$out/chaos_allocations.txt" "$out.log/"
}

SECONDS=0
compile_all "$T/base1"
compile_all "$T/base2"
base_s=$SECONDS
n_outputs=$(ls "$T/base1" | wc -l)
echo "chaos_real_compilers: $n_outputs outputs per run (baseline pair took ${base_s}s)"

# Outputs that differ between two plain runs cannot be blamed on the library.
excluded=()
for f in "$T"/base1/*; do
  b=$(basename "$f")
  if ! cmp -s "$f" "$T/base2/$b"; then
    excluded+=("$b")
    echo "chaos_real_compilers: note: $b differs even without the library; not compared"
  fi
done

failures=0
check_run() {
  local name=$1 dir=$T/$1
  local b compared=0
  for f in "$T"/base1/*; do
    b=$(basename "$f")
    [[ " ${excluded[*]-} " == *" $b "* ]] && continue
    if [[ ! -f $dir/$b ]]; then
      echo "chaos_real_compilers: FAIL: $name: $b missing"
      failures=$((failures + 1))
    elif ! cmp -s "$f" "$dir/$b"; then
      echo "chaos_real_compilers: FAIL: $name: $b differs from the run without the library"
      failures=$((failures + 1))
    fi
    compared=$((compared + 1))
  done
  # The library must really have been inside each compiler.
  local loaded
  loaded=$(cat "$dir.log"/ptxas.* "$dir.log"/nvcc-* | grep -c '^kdet-chaos: enabled=1' || true)
  local expected=$(( ${#ptx_files[@]} + 1 + 2 * ${#cu_files[@]} * 2 ))  # nvcc: cicc + ptxas at least
  if (( loaded < expected )); then
    echo "chaos_real_compilers: FAIL: $name: library seen in $loaded processes, expected >= $expected"
    failures=$((failures + 1))
  fi
  local blocks
  blocks=$(cat "$dir.log/chaos_allocations.txt" 2>/dev/null || echo 0)
  if (( blocks == 0 )); then
    echo "chaos_real_compilers: FAIL: $name: the driver process saw no chaos blocks"
    failures=$((failures + 1))
  fi
  # ptxas --split-compile 4 must have allocated from more than one thread
  local threads
  threads=$(sed -n 's/^kdet-chaos: exit .* threads=\([0-9]*\).*/\1/p' "$dir.log/ptxas.split")
  if (( ${threads:-0} < 2 )); then
    echo "chaos_real_compilers: FAIL: $name: ptxas --split-compile 4 allocated from ${threads:-0} thread(s)"
    failures=$((failures + 1))
  fi
  echo "chaos_real_compilers: $name: $compared outputs compared; library in $loaded compiler processes; $blocks chaos blocks in the library driver; ptxas --split-compile used ${threads:-0} threads"
}

for seed in 1 0x2a 987654321; do
  SECONDS=0
  compile_all "$T/seed_$seed" LD_PRELOAD="$lib" KDET_CHAOS_SEED="$seed" KDET_CHAOS_VERBOSE=1
  echo "chaos_real_compilers: seed $seed run took ${SECONDS}s"
  check_run "seed_$seed"
done
compile_all "$T/heavy" LD_PRELOAD="$lib" KDET_CHAOS_SEED=7 KDET_CHAOS_VERBOSE=1 \
  KDET_CHAOS_MAX_PAD=4096 KDET_CHAOS_DECOY_PERMILLE=1000
check_run heavy

if (( failures )); then
  echo "chaos_real_compilers: $failures failure(s)"
  exit 1
fi
echo "chaos_real_compilers: PASS (identical output under 4 chaos settings; ${#excluded[@]} output(s) excluded as nondeterministic without the library)"
