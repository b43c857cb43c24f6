#!/usr/bin/env bash
# cache_python.sh: examples/python/cached_compile.py drives libkdet_cache.so through
# ctypes with the machine's python3: a miss, a hit, a verified hit and a detected mismatch
# (pure-Python fake compiler), then libNVVM through ctypes when present; `kdet cache
# report` on the same folder then lists the mismatching key and exits 1.
# Env: KDET, KDET_SOURCE_DIR, KDET_BINARY_DIR. Exit 0 pass, 1 fail, 77 skipped.
set -euo pipefail
trap 'echo "cache_python: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_SOURCE_DIR:?}" "${KDET_BINARY_DIR:?}"
lib=$KDET_BINARY_DIR/capi/libkdet_cache.so
command -v python3 >/dev/null || { echo "cache_python: SKIP: no python3"; exit 77; }
[[ -f $lib ]] || { echo "cache_python: SKIP: $lib not built (ninja kdet_cache)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KDET_CACHE_LIB=$lib KDET_NVVM_INPUT=$KDET_SOURCE_DIR/examples/nvvm/llvm7/saxpy.ll \
  python3 "$KDET_SOURCE_DIR/examples/python/cached_compile.py" "$tmp/cache" 2>"$tmp/err" | tee "$tmp/out"
grep -q 'detected mismatch' "$tmp/out"
grep -q 'verification MISMATCH' "$tmp/err"
if [[ -r ${CUDA_HOME:-/usr/local/cuda}/lib64/libnvvm.so ]]; then grep -q 'libNVVM through ctypes: miss, verified' "$tmp/out"; fi
rc=0
"$KDET" cache report --dir "$tmp/cache" >"$tmp/report" || rc=$?
[[ $rc == 1 ]]
grep -q '1 key holds more than one variant' "$tmp/report"
echo "cache_python: PASS"
