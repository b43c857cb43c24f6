#!/usr/bin/env bash
# tier: cuda
# cache_launcher.sh: `kdet cc COMPILER ARGS...` as a compiler launcher, with real ptxas and
# nvcc: a hit restores the output byte for byte and prints nothing; a changed header misses
# (nvcc -M keys headers); warnings are replayed on a hit; a failing compile gives the compiler's own exit status and message;
# `kdet cache stats` counts hits and misses and -z zeroes them; SIGTERM/SIGINT during nvcc -M
# exit 130 with nothing left running; a CMake project with
# CMAKE_CUDA_COMPILER_LAUNCHER="kdet;cc" builds through it and hits after a clean.
# Env: KDET. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA (ptxas, nvcc) not at /usr/local/cuda"
NVCC=/usr/local/cuda/bin/nvcc PTXAS=/usr/local/cuda/bin/ptxas
export KDET_CACHE_DIR=$T/cache
# No sampled verification, so the counts below are exact (nvcc -c objects vary in a few bytes
# between compiles: a sampled recompile would rightly warn). Verification is tested on ptxas.
export KDET_CACHE_VERIFY_RATE=0
cd "$T"
cp "$KDET_SOURCE_DIR/tests/data/diff/saxpy.ptx" k.ptx

# ptxas: miss, then a silent hit with the same bytes.
"$KDET" cc "$PTXAS" -arch=sm_90a k.ptx -o k.cubin 2>miss.err
cp k.cubin first.cubin && rm k.cubin
"$KDET" cc "$PTXAS" -arch=sm_90a k.ptx -o k.cubin >hit.out 2>hit.err
cmp first.cubin k.cubin || fail "ptxas hit is not the miss's bytes"
[[ ! -s hit.out && ! -s hit.err ]] || fail "a hit printed something: $(cat hit.out hit.err)"
# Every hit verified: ptxas recompiles to the same bytes, counted as deterministic.
KDET_CACHE_VERIFY_RATE=1 "$KDET" cc "$PTXAS" -arch=sm_90a k.ptx -o k.cubin 2>verify.err
[[ ! -s verify.err ]] || fail "a verified hit printed: $(cat verify.err)"
"$KDET" cache stats --json stats.json >stats.out
expect_eq "verified deterministic" "$(json_get stats.json '["counters"]["verified_match"]')" 1
# ptxas's default output name (elf.o) when -o is absent.
"$KDET" cc "$PTXAS" -arch=sm_90a k.ptx
cmp first.cubin elf.o || fail "ptxas without -o: elf.o differs"

# nvcc -c with a header: hit restores, a changed header misses.
mkdir inc
echo '#define SCALE 2.0f' >inc/h.h
printf '#include "h.h"\n__global__ void k(float* x) { x[threadIdx.x] *= SCALE; }\n' >k.cu
"$KDET" cc "$NVCC" -arch=sm_90a -Iinc -c k.cu -o k.o
cp k.o first.o && rm k.o
"$KDET" cc "$NVCC" -arch=sm_90a -Iinc -c k.cu -o k.o
cmp first.o k.o || fail "nvcc hit is not the miss's bytes"
"$KDET" cc "$NVCC" -arch=sm_90a -Iinc -c k.cu # nvcc's default name: k.o
cmp first.o k.o || fail "nvcc without -o: k.o differs"
"$KDET" cache stats --json stats.json >stats.out
expect_eq "hits before the header change" "$(json_get stats.json '["counters"]["hit"]')" 4
echo '#define SCALE 3.0f' >inc/h.h
"$KDET" cc "$NVCC" -arch=sm_90a -Iinc -c k.cu -o k.o
cmp -s first.o k.o && fail "a changed header served the old object"
"$NVCC" -arch=sm_90a -Iinc -c k.cu -o direct.o
"$KDET" cache stats --json stats.json >stats.out
# Misses: ptxas, ptxas to elf.o (another {output} extension), nvcc, nvcc after the change.
expect_eq "misses" "$(json_get stats.json '["counters"]["miss"]')" 4
"$KDET" cache stats >stats.txt
grep -q '^hits        4 / 8 (50.00 %)' stats.txt || fail "stats text: $(cat stats.txt)"

# The compiler's warnings reach stderr on the miss and are replayed on a hit.
printf '__global__ void w(float* x) { int unused; x[0] = 1; }\n' >w.cu
"$KDET" cc "$NVCC" -arch=sm_90a -c w.cu -o w.o 2>w-miss.err
"$KDET" cc "$NVCC" -arch=sm_90a -c w.cu -o w.o 2>w-hit.err
grep -q 'unused' w-miss.err || fail "the miss lost the compiler's warning"
cmp w-miss.err w-hit.err || fail "the hit did not replay the warning: $(cat w-hit.err)"

# A compile error: the compiler's exit status and its own message, nothing cached.
printf '__global__ void k( {\n' >bad.cu
rc=0
"$NVCC" -arch=sm_90a -c bad.cu -o bad.o 2>direct.err || rc=$?
expect_exit $rc "$KDET" cc "$NVCC" -arch=sm_90a -c bad.cu -o bad.o
grep -q 'bad.cu' "$T/out" || fail "the compiler's message is missing: $(cat "$T/out")"
[[ ! -e bad.o ]] || fail "a failed compile left bad.o"

# What kdet cannot cache runs as it is: same output, counted as uncacheable.
"$KDET" cc "$PTXAS" --version >v-kdet.out
"$PTXAS" --version >v-direct.out
cmp v-kdet.out v-direct.out || fail "an uncacheable call changed the compiler's output"
"$KDET" cache stats --json stats.json >stats.out
expect_eq "uncacheable" "$(json_get stats.json '["counters"]["uncacheable"]')" 1
# A bad setting names its variable.
expect_exit 2 env KDET_CACHE_VERIFY_RATE=abc "$KDET" cc "$PTXAS" -arch=sm_90a k.ptx -o k.cubin
grep -q 'KDET_CACHE_VERIFY_RATE abc' "$T/out" || fail "$(cat "$T/out")"

# stats -z zeroes the counters, not the entries.
"$KDET" cache stats -z >zero.out
"$KDET" cache stats --json stats.json >stats.out
expect_eq "hits after -z" "$(json_get stats.json '["counters"]["hit"]')" 0
expect_eq "keys after -z" "$(json_get stats.json '["keys"]')" 5

# SIGTERM or SIGINT while nvcc -M runs: kdet cc ends it and exits 130, leaving nothing behind.
mkdir -p slow
cat >slow/nvcc <<SH
#!/usr/bin/env bash
case " \$* " in *" -M "*) echo \$\$ >"$T/slow/dep.pid"; exec sleep 60 ;; esac
exit 1
SH
chmod +x slow/nvcc
for sig in TERM INT; do
  rm -f slow/dep.pid
  "$KDET" cc "$T/slow/nvcc" -arch=sm_90a -c k.cu -o slow.o 2>slow.err &
  cc=$!
  for ((i = 0; i < 100; i++)); do [[ -s slow/dep.pid ]] && break; sleep 0.1; done
  [[ -s slow/dep.pid ]] || fail "the slow nvcc -M never started: $(cat slow.err)"
  kill -$sig $cc
  rc=0
  wait $cc || rc=$?
  expect_eq "kdet cc exit on SIG$sig during nvcc -M" $rc 130
  kill -0 "$(cat slow/dep.pid)" 2>/dev/null && fail "SIG$sig left nvcc -M running"
done

# CMake, as CMAKE_CUDA_COMPILER_LAUNCHER.
command -v cmake >which.out && command -v ninja >>which.out || {
  echo "cache_launcher: PASS (CMake part skipped: cmake or ninja absent)"
  exit 0
}
mkdir -p proj/inc
cp k.cu proj/ && cp inc/h.h proj/inc/
cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(kc LANGUAGES CUDA)
add_library(kc OBJECT k.cu)
target_include_directories(kc PRIVATE inc)
set_target_properties(kc PROPERTIES CUDA_ARCHITECTURES 90a)
CM
if ! cmake -S proj -B b -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" \
  "-DCMAKE_CUDA_COMPILER_LAUNCHER=$KDET;cc" >cfg.log 2>&1; then
  echo "cache_launcher: PASS (CMake part skipped: CUDA does not configure: $(tail -1 cfg.log))"
  exit 0
fi
ninja -C b >build1.log
obj=b/CMakeFiles/kc.dir/k.cu.o
cp $obj cmake1.o
ninja -C b -t clean >clean.log
ninja -C b >build2.log
cmp cmake1.o $obj || fail "CMake rebuild from the cache differs"
ninja -C b -n >noop.log
grep -q 'no work to do' noop.log || fail "the depfile did not reach ninja: $(cat noop.log)"
"$KDET" cache stats --json stats.json >stats.out
expect_eq "CMake hits" "$(json_get stats.json '["counters"]["hit"]')" 1
echo "cache_launcher: PASS"
