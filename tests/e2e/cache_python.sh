#!/usr/bin/env bash
# cache_python.sh: examples/python/cached_compile.py drives libkdet_cache.so through
# ctypes with the machine's python3: a miss, a hit, a verified hit and a detected mismatch
# (pure-Python fake compiler), then libNVVM through ctypes when present; `kdet cache
# report` on the same folder then lists the mismatching key and exits 1.
# Env: KDET, KDET_SOURCE_DIR, KDET_BINARY_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
lib=$KDET_BINARY_DIR/capi/libkdet_cache.so
need_cmd python3 "to run the example"
[[ -f $lib ]] || skip "$lib not built (ninja kdet_cache)"
KDET_CACHE_LIB=$lib KDET_NVVM_INPUT=$KDET_SOURCE_DIR/examples/nvvm/llvm7/saxpy.ll \
  python3 "$KDET_SOURCE_DIR/examples/python/cached_compile.py" "$T/cache" 2>"$T/err" | tee "$T/out"
grep -q 'detected mismatch' "$T/out"
grep -q 'verification MISMATCH' "$T/err"
if [[ -r ${CUDA_HOME:-/usr/local/cuda}/lib64/libnvvm.so ]]; then grep -q 'libNVVM through ctypes: miss, verified' "$T/out"; fi
rc=0
"$KDET" cache report --dir "$T/cache" >"$T/report" || rc=$?
[[ $rc == 1 ]]
grep -q '1 key holds more than one variant' "$T/report"
echo "cache_python: PASS"
