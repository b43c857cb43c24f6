#!/usr/bin/env bash
# tier: cuda
# kdet capture with the real CUDA compilers: NVRTC loaded by soname and driven
# from 4 threads (sources with and without headers, PTX and cubin fetched),
# NVRTC through Python ctypes from threads and forked children; libNVVM
# loaded by path with dlopen + dlsym in both IR dialects. Real
# compilers are deterministic here: exit 0, one output per bundle.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
have_cuda || skip "CUDA toolkit not found under /usr/local/cuda"
[[ -x $CL/capture_nvrtc_client && -x $CL/capture_nvvm_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
ls /usr/local/cuda/lib64/libnvrtc.so.* >/dev/null 2>&1 || skip "NVRTC not installed"
SONAME=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)")

# NVRTC: 2 files + 1 program with a header, 4 threads each: 12 compiles, 3 bundles of 4.
expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/r" --json "$T/r.json" -- \
  "$CL/capture_nvrtc_client" "$SONAME" 4 sm_90 "$EX/cuda/warp_scan.cu" "$EX/cuda/stencil_1d.cu"
expect_output 'compiles   nvvm 0, nvrtc 12'
[[ $(json_eval "$T/r.json" 'sorted(b["compiles"] for b in d["bundles"])') == "[4, 4, 4]" ]] || fail "3 bundles of 4 compiles"
[[ $(json_eval "$T/r.json" 'len({c["thread"] for c in d["compiles"]})') == 4 ]] || fail "4 threads seen"
[[ $(json_eval "$T/r.json" 'all(sorted(o["kind"] for o in b["output_counts"]) == ["cubin", "ptx"] for b in d["bundles"])') == True ]] || fail "ptx and cubin recorded"
lib=$(json_eval "$T/r.json" 'd["bundles"][0]["library"]["path"]')
[[ $lib == $(realpath /usr/local/cuda/lib64/"$SONAME") ]] || fail "library path $lib is not the resolved soname"
hb=$(json_eval "$T/r.json" '[b["id"] for b in d["bundles"] if len(b["inputs"]) == 2][0]')
unpack_bundles "$T/r"
B=$T/r/bundles/$hb
[[ $(json_eval "$B/bundle.json" '[(i["tag"], i["name"]) for i in d["inputs"]]') == "[('source', 'with_header.cu'), ('header', 'k.h')]" ]] || fail "header recorded"
grep -q 'K_VALUE 42' "$B/inputs/01-header.h" || fail "header content"
ptx=$(json_eval "$B/bundle.json" '[o["file"] for o in d["outputs"] if o["kind"] == "ptx"][0]')
grep -q '.entry k' "$B/$ptx" || fail "PTX of the header program"
cubin=$(json_eval "$B/bundle.json" '[o["file"] for o in d["outputs"] if o["kind"] == "cubin"][0]')
[[ $(head -c 4 "$B/$cubin" | od -An -c | tr -d ' ') == 177ELF ]] || fail "cubin is an ELF file"

# Python: NVRTC through ctypes, from a thread pool and from forked multiprocessing children that
# inherit the loaded library: every compile of every process is seen; VALUE (from the header)
# makes 4 bundles, value 0 compiled 3 times (parent, thread, child).
if /usr/bin/python3 -c 'import ctypes, multiprocessing' 2>/dev/null; then
  expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --json "$T/p.json" -- \
    /usr/bin/python3 "$KDET_SOURCE_DIR/tests/capture/nvrtc_ctypes.py" "$SONAME" 4 sm_90
  expect_output 'the pipeline exited 0'
  [[ $(json_eval "$T/p.json" 'len(d["compiles"]), len({c["pid"] for c in d["compiles"]}) >= 2, sorted(b["compiles"] for b in d["bundles"])') == "(9, True, [2, 2, 2, 3])" ]] || fail "python ctypes pipeline"
  [[ $(json_eval "$T/p.json" 'all(len(b["outputs"]) == 1 for b in d["bundles"])') == True ]] || fail "one PTX per bundle"
fi

# libNVVM by path: LLVM-7 IR for compute_90a, modern IR for compute_100a.
NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so* /usr/local/cuda/nvvm/lib64/libnvvm.so* 2>/dev/null || true) | head -1)
expect_exit 0 "$KDET" capture --json "$T/n.json" -- sh -c '"$1" "$2" 2 2 "$3" -- -arch=compute_90a && "$1" "$2" 2 1 "$4" -- -arch=compute_100a' \
  sh "$CL/capture_nvvm_client" "$NVVM" "$EX/nvvm/llvm7/saxpy.ll" "$EX/nvvm/modern/vector_fma.ll"
[[ $(json_eval "$T/n.json" 'sorted(b["compiles"] for b in d["bundles"])') == "[2, 4]" ]] || fail "nvvm bundles"
[[ $(json_eval "$T/n.json" 'all(len(b["outputs"]) == 1 and b["results"] == {"0": b["compiles"]} for b in d["bundles"])') == True ]] || fail "one output per bundle"
[[ $(json_eval "$T/n.json" 'd["bundles"][0]["library"]["path"]') == $(realpath "$NVVM") ]] || fail "libnvvm path"
echo "capture_real: OK"
