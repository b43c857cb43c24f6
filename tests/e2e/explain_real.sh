#!/usr/bin/env bash
# tier: cuda
# kdet explain against the real compilers: libNVVM and ptxas are deterministic
# with every factor varied; nvcc -c objects differ from run to run, and explain
# names why (nvcc embeds temporary file names made from its pid). libfaketime
# hangs nvcc 13.0: that must come out as a finding about the time factor.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA compilers not found under /usr/local/cuda"
# nvcc killed in its libfaketime hang leaves its tmpxft_* files behind: in this test's folder.
export TMPDIR=$T

expect_exit 0 "$KDET" explain "$EX/nvvm/llvm7/block_reduce.ll" -n 12 -- -arch=compute_90a -opt=3
expect_output 'NO VARIANCE SEEN: one output with every factor varied, across processes and inside one process \(process=both\); no variance seen in 12 runs: a rate above 22% would have shown'
expect_exit 0 "$KDET" explain "$EX/ptx/saxpy.ptx" --cmd '/usr/local/cuda/bin/ptxas -arch=sm_90a {input} -o {output}' -n 8
expect_output 'NO VARIANCE SEEN'

# NVRTC LTO-IR (-dlto) embeds the working directory and the input path: explain names both.
expect_exit 1 "$KDET" explain "$EX/cuda/warp_scan.cu" -n 12 --json "$T/lto.json" -- -dlto -arch=sm_90
expect_output 'EXPLAINED: deterministic when path=fixed and cwd=fixed; each of the two alone makes it vary'

# nvcc -c: restricted to a few factors (and few runs) so the test stays under a few minutes.
expect_exit 1 "$KDET" explain "$EX/cuda/warp_scan.cu" --cmd '/usr/local/cuda/bin/nvcc -c -arch=sm_90 {input} -o {output}' \
  --output-ext o --factors aslr,pid,path,time --timeout 15 -n 4 --min-cell-runs 4 --max-cell-runs 6 --json "$T/nvcc.json"
expect_output 'finding     time cannot be tested with this compiler: holding it at time=fixed made the compiler fail \(timed-out'
expect_output 'EXPLAINED: deterministic when (path=fixed and pid=fixed|pid=fixed and path=fixed)'
echo "ok: explain on real compilers"
