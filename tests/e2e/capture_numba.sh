#!/usr/bin/env bash
# tier: slow
# kdet capture on a real Python pipeline: numba (Debian's python3-numba)
# compiling three kernels to PTX through libNVVM, which it loads with ctypes
# (dlopen + dlsym) and feeds libdevice lazily. numba 0.56 writes NVVM IR 1.6,
# which libNVVM 13.0 refuses (IR version mismatch): then every compile fails,
# and capture must still record each one with its modules, options, return
# code and log. A numba whose IR the library accepts must give PTX outputs.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA toolkit not found under /usr/local/cuda"
PY=/usr/bin/python3
$PY -c 'import numba.cuda' 2>/dev/null || skip "python3-numba is not installed (scripts/setup.sh installs it)"
NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so.* /usr/local/cuda/nvvm/lib64/libnvvm.so.* 2>/dev/null || true) | head -1)
LIBDEVICE=$( (ls /usr/local/cuda/nvvm/libdevice/libdevice.*.bc 2>/dev/null || true) | head -1)
[[ -n $NVVM && -n $LIBDEVICE ]] || skip "libNVVM or libdevice not found"
# numba 0.56 looks for CUDA_HOME/nvvm/lib64 and CUDA_HOME/lib64 (cudart, for the version); CUDA 13
# keeps libnvvm in lib64: a private CUDA_HOME of links shows it the layout it expects.
H=$T/cuda_home
mkdir -p "$H/nvvm/lib64"
ln -s "$NVVM" "$H/nvvm/lib64/libnvvm.so"
ln -s "$(dirname "$LIBDEVICE")" "$H/nvvm/libdevice"
ln -s /usr/local/cuda/lib64 "$H/lib64"

set +e
CUDA_HOME=$H "$KDET" capture --out "$T/c" --json "$T/c.json" -- "$PY" "$KDET_SOURCE_DIR/tests/capture/numba_kernels.py" >"$T/out" 2>&1
rc=$?
set -e
# No compile can vary here: 0, or 3 when this libNVVM refuses numba's IR (the pipeline fails).
[[ $rc == 0 || $rc == 3 ]] || { cat "$T/out" >&2; fail "capture exited $rc (no compile can vary here)"; }
expect_output 'compiles   nvvm 3, nvrtc 0'
[[ $(json_eval "$T/c.json" 'len(d["bundles"])') == 3 ]] || fail "three kernels, three bundles"
[[ $(json_eval "$T/c.json" 'd["bundles"][0]["library"]["path"]') == $(realpath "$NVVM") ]] || fail "library path"
# libdevice, added lazily and last, is the file numba read.
unpack_bundles "$T/c"
for b in $(json_eval "$T/c.json" '" ".join(b["id"] for b in d["bundles"])'); do
  J=$T/c/bundles/$b/bundle.json
  [[ $(json_eval "$J" 'd["inputs"][-1]["lazy"]') == True ]] || fail "$b: libdevice not lazy"
  [[ $(json_eval "$J" 'all(not i["lazy"] for i in d["inputs"][:-1])') == True ]] || fail "$b: only libdevice is lazy"
  cmp "$T/c/bundles/$b/$(json_eval "$J" 'd["inputs"][-1]["file"]')" "$LIBDEVICE" || fail "$b: libdevice bytes"
  [[ $(json_eval "$J" '"-arch=compute_80" in d["options"]') == True ]] || fail "$b: options"
done
if grep -q '^failed' "$T/out"; then
  # Refused by this libNVVM: each compile recorded with NVVM_ERROR_IR_VERSION_MISMATCH (3) and its log.
  grep -q 'IR version' "$T/out" || fail "numba failed for another reason than the IR version"
  expect_eq "a failed pipeline's capture" "$rc" 3
  [[ $(json_eval "$T/c.json" '[c["result"] for c in d["compiles"]]') == "[3, 3, 3]" ]] || fail "results"
  [[ $(cat "$T"/c/raw/records/*.log | grep -Ec '^[0-9]+ log [0-9a-f]{32} [0-9]+$') == 3 ]] || fail "3 logs recorded"
  echo "capture_numba: OK (numba's IR is refused by this libNVVM; compiles and failures captured)"
else
  [[ $(json_eval "$T/c.json" 'all(c["result"] == 0 and c["output"] for c in d["compiles"])') == True ]] || fail "PTX outputs"
  expect_eq "a clean capture" "$rc" 0
  echo "capture_numba: OK (PTX captured)"
fi
