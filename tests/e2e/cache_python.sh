#!/usr/bin/env bash
# tier: quick
# cache_python.sh: examples/python/cached_compile.py drives libkdet_cache.so through the
# kdet_cache module (python/kdet_cache/, ctypes) with the machine's python3: a miss, a hit, a verified hit and a detected mismatch
# (pure-Python fake compiler), then libNVVM through ctypes when present; `kdet cache
# report` on the same folder then lists the mismatching key, with its names, and exits 1. The
# module, laid out as installed, finds the library with no variable; without one it raises an
# ImportError naming KDET_CACHE_LIB.
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
# C API calls count in kdet cache stats: the demo's mismatch is one found varying.
"$KDET" cache stats --dir "$T/cache" --json "$T/stats.json" >"$T/stats.txt"
expect_eq "found varying" "$(json_get "$T/stats.json" '["counters"]["verified_mismatch"]')" 1
[[ $(json_get "$T/stats.json" '["counters"]["hit"]') -ge 3 ]] || fail "hits: $(cat "$T/stats.txt")"
# The C API key is reported with the names the module gave it, not "(; ...)".
grep -q 'two.k  (fake-compiler 1.0; -nondet)' "$T/report" || fail "report names: $(cat "$T/report")"

# The module after an install: PREFIX/lib/libkdet_cache.so beside
# PREFIX/lib/python3/dist-packages/kdet_cache, found with no variable set.
P=$T/prefix
mkdir -p "$P/lib/python3/dist-packages"
cp "$lib" "$P/lib/"
cp -r "$KDET_SOURCE_DIR/python/kdet_cache" "$P/lib/python3/dist-packages/"
env -u KDET_CACHE_LIB PYTHONPATH="$P/lib/python3/dist-packages" python3 -c '
import sys, kdet_cache
c = kdet_cache.KdetCache(sys.argv[1], verify_rate=0)
f = c.cached(compiler_id="fake 1")(lambda src, opts: src[::-1])
assert f(b"abc", name="a.k") == b"cba" and f(b"abc") == b"cba"
assert kdet_cache.find_library() == sys.argv[2], kdet_cache.find_library()
print("installed module: found", kdet_cache.find_library())' "$T/cache2" "$P/lib/libkdet_cache.so"

# Without the library: an ImportError that says what to set, not a bare OSError.
mkdir -p "$T/alone"
cp -r "$KDET_SOURCE_DIR/python/kdet_cache" "$T/alone/"
if env -u KDET_CACHE_LIB PYTHONPATH="$T/alone" python3 -c '
import kdet_cache
kdet_cache.find_library = lambda: None  # as on a machine without kdet installed
kdet_cache.KdetCache()' 2>"$T/nolib.err"; then fail "no library, yet KdetCache() worked"; fi
grep -q 'KdetCacheLibraryNotFound: .*set KDET_CACHE_LIB=' "$T/nolib.err" || fail "$(cat "$T/nolib.err")"
rc=0
KDET_CACHE_LIB=$T/alone/none.so PYTHONPATH="$T/alone" python3 -c 'import kdet_cache; kdet_cache.KdetCache()' \
  2>"$T/bad.err" || rc=$?
[[ $rc == 1 ]] && grep -q 'would not load.*set KDET_CACHE_LIB' "$T/bad.err" || fail "$(cat "$T/bad.err")"
echo "cache_python: PASS"
