#!/usr/bin/env bash
# tier: cuda
# kdet run against the real CUDA 13.0 compilers: every backend compiles the
# bundled inputs, the verdict is deterministic and the identity is right.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA 13.0 compilers not found under /usr/local/cuda"

# libNVVM, LLVM-7 dialect, two archs and the optimization levels the reporter saw vary.
for f in "$EX"/nvvm/llvm7/*.ll; do
  for arch in compute_80 compute_90a; do
    expect_exit 0 "$KDET" run "$f" -n 4 --json "$T/r.json" -- -arch=$arch -opt=3
    expect_output 'verdict   NO VARIANCE SEEN in 4 runs'
    [[ $(json_get "$T/r.json" '["compiler"]["backend"]') == nvvm ]] || fail "backend"
    [[ $(json_get "$T/r.json" '["compiler"]["version"]') == "libNVVM 2.0, NVVM IR 2.0, debug metadata 3.2" ]] ||
      fail "libNVVM version: $(json_get "$T/r.json" '["compiler"]["version"]')"
    [[ $(json_get "$T/r.json" '["compiler"]["path"]') == *libnvvm.so* ]] || fail "path"
    [[ $(json_get "$T/r.json" '["compiler"]["content_hash"]') =~ ^[0-9a-f]{32}$ ]] || fail "content hash"
    [[ $(json_get "$T/r.json" '["variants"][0]["artifacts"][0]["name"]') == ptx ]] || fail "ptx artifact"
  done
done
# Modern dialect for compute_100a.
for f in "$EX"/nvvm/modern/*.ll; do
  expect_exit 0 "$KDET" run "$f" -n 3 -- -arch=compute_100a -opt=3
  expect_output 'NO VARIANCE SEEN in 3 runs'
done
# The modern dialect is refused for compute_90a: a compile error on every run, exit 3, not a kdet crash.
expect_exit 3 "$KDET" run "$EX/nvvm/modern/vector_fma.ll" -n 2 -- -arch=compute_90a
expect_output 'FAILED: the compiler failed on every run \(2 compile-error'

# The PTX libNVVM gave is the PTX kdet kept (the artifact is the compiler's exact output).
expect_exit 0 "$KDET" run "$EX/nvvm/llvm7/saxpy.ll" -n 2 --out "$T/saxpy" -- -arch=compute_90a -opt=3
ptx=$(ls "$T"/saxpy/variants/*/ptx)
grep -q '^.target sm_90a' "$ptx" || fail "PTX target line"
grep -q '.visible .entry saxpy' "$ptx" || fail "PTX entry"

# NVRTC: PTX and a cubin for a real arch; PTX only for a virtual one.
expect_exit 0 "$KDET" run "$EX/cuda/stencil_1d.cu" -n 3 --json "$T/nvrtc.json" -- -arch=sm_90
[[ $(json_get "$T/nvrtc.json" '["compiler"]["version"]') == "NVRTC 13.0" ]] || fail "NVRTC version"
[[ $(json_eval "$T/nvrtc.json" '[a["name"] for a in d["variants"][0]["artifacts"]]') == "['ptx', 'cubin']" ]] || fail "nvrtc artifacts"
expect_exit 0 "$KDET" run "$EX/cuda/warp_scan.cu" -n 2 --json "$T/nvrtc2.json" -- -arch=compute_90
[[ $(json_eval "$T/nvrtc2.json" '[a["name"] for a in d["variants"][0]["artifacts"]]') == "['ptx']" ]] || fail "virtual arch"

# nvJitLink: PTX to a cubin, which is an ELF file.
expect_exit 0 "$KDET" run "$EX/ptx/saxpy.ptx" -n 3 --out "$T/jit" -- -arch=sm_90
expect_output 'nvjitlink: nvJitLink 13.0'
head -c 4 "$T"/jit/variants/*/cubin | od -c | grep -q 'E   L   F' || fail "cubin is not ELF"

# ptxas through exec, a fresh process per run.
expect_exit 0 "$KDET" run "$EX/ptx/block_reduce.ptx" --cmd '/usr/local/cuda/bin/ptxas -arch=sm_90a {input} -o {output}' -n 3 --json "$T/ptxas.json"
[[ $(json_get "$T/ptxas.json" '["compiler"]["backend"]') == exec ]] || fail "exec backend"
[[ $(json_get "$T/ptxas.json" '["compiler"]["version"]') == *"release 13.0"* ]] || fail "ptxas version: $(json_get "$T/ptxas.json" '["compiler"]["version"]')"
[[ $(json_get "$T/ptxas.json" '["setting"]["process"]') == fresh ]] || fail "exec is fresh"
[[ $(json_get "$T/ptxas.json" '["runs"]["workers_started"]') -ge 1 ]] || fail "workers"

# Every factor fixed: real libNVVM in fresh workers with ASLR off gives one variant.
expect_exit 0 "$KDET" run "$EX/nvvm/llvm7/tiled_matmul.ll" -n 6 --process fresh --aslr off --unnamed natural --heap none -- -arch=compute_90a -opt=3
expect_output 'process=fresh heap=none aslr=off threads=0'
echo "ok: real compilers"
