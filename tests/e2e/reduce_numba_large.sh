#!/usr/bin/env bash
# tier: slow
# kdet reduce on a large real numba kernel (tests/data/reduce_real/numba_stencil.ll.gz: 78 KB
# of NVVM IR, numba 0.56's wrapper kernel with 67 parameters calling a loop with branches,
# libdevice calls and an atomic; gen_numba_stencil.py) under a libNVVM look-alike
# (libparamnvvm.so): the real libNVVM, whose PTX varies (about 1 compile in 3) only while an
# entry loads two or more of its parameters in a row. The reduction has to keep that
# condition: a kernel (its annotation), a body that reads two parameters, the call numba's
# wrapper makes and whose status it ignores. It must reach 15 % of the input or less, still
# vary under the look-alike, still compile with the real libNVVM, and its verbose log must say
# why each rejected candidate was rejected, with the runs that judged it.
# Before the fix in ir_cleanup.cpp every candidate lost the wrapper's call (its value only fed
# dead compares) and was judged "stopped varying": the result was the input renamed (97 %).
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA toolkit not found under /usr/local/cuda (the look-alike forwards to its libNVVM)"
need_fakes libparamnvvm.so
LIB=$FAKES/libparamnvvm.so
gunzip -c "$KDET_SOURCE_DIR/tests/data/reduce_real/numba_stencil.ll.gz" >"$T/stencil.ll"
orig=$(stat -c %s "$T/stencil.ll")

# The input: compiled as numba's dialect wants (typed pointers: compute_80), it varies under the
# look-alike and not under the real library.
expect_exit 1 "$KDET" run "$T/stencil.ll" --lib "$LIB" -n 30 --seed 7 -- -arch=compute_80
expect_exit 0 "$KDET" run "$T/stencil.ll" -n 4 --seed 7 -- -arch=compute_80

start=$SECONDS
expect_exit 0 "$KDET" reduce "$T/stencil.ll" --lib "$LIB" --seed 11 -v -o "$T/small.ll" \
  -- -arch=compute_80
cp "$T/out" "$T/reduce.log"
small=$(stat -c %s "$T/small.ll")
((small * 100 <= orig * 15)) || fail "reduced to $small of $orig bytes (want <= 15 %)"
expect_output 'pass +ll-instructions: [0-9]+ tested, [1-9][0-9]* accepted'

# Every candidate's line names its outcome and the runs that judged it.
grep -c '^reduce: candidate ' "$T/reduce.log" >/dev/null || fail "no candidate lines in the -v log"
bad=$(grep '^reduce: candidate ' "$T/reduce.log" | grep -Ev ': (accepted: [0-9]+ outputs in [0-9]+ runs?|invalid: a compile error in each of [0-9]+ runs?|failed: no successful compile in [0-9]+ runs?|stopped varying: (one output|[0-9]+ outputs) in [0-9]+ runs?|changed kind: [a-z+-]+ in [0-9]+ runs?|interrupted after [0-9]+ runs?)' || true)
[[ -z $bad ]] || fail "candidates without a reason and a run count: $(head -3 <<<"$bad")"
grep -Eq ': stopped varying: one output in [0-9]+ runs' "$T/reduce.log" || fail "no rejected candidate"

# The result: the real libNVVM compiles it, a kernel stays, and the look-alike still varies.
expect_exit 0 "$KDET" run "$T/small.ll" --unnamed natural -n 1 -- -arch=compute_80
grep -q '"kernel"' "$T/small.ll" || fail "the kernel annotation went"
expect_exit 1 "$KDET" run "$T/small.ll" --lib "$LIB" -n 40 --seed 7 -- -arch=compute_80
echo "reduce_numba_large: OK ($orig -> $small bytes, $((small * 1000 / orig)) per mille, $((SECONDS - start)) s)"
