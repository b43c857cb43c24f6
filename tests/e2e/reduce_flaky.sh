#!/usr/bin/env bash
# tier: quick
# kdet reduce on a compiler that crashes at random, one run in three (fake_cc planted-flaky,
# at a fixed seed: the same runs crash on every machine). Its first check stops at two failures
# before any success, as a broken input should cost two runs; here the first two runs crash by
# chance, and reduce must measure the rate (8 more runs, all of them, then the whole check)
# before calling the input broken, as kdet explain does: it reduces, never "does not compile
# (2 of 2 runs failed)".
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
CC="$FAKES/fake_cc planted-flaky {input} {output}"
export FAKE_CC_FLAKY_COUNTER=$T/runs FAKE_CC_FLAKY_IN=3

# A global the kernel stores to, named kdet_planted (as reduce.sh plants it): the fake's output
# varies (its pid) while the input holds it.
"$KDET" corpus -o "$T/c" -n 1 --size small -q
python3 - "$T/c/gen_0000.ll" "$T/in.ll" <<'PY'
import sys
out, done = [], False
for l in open(sys.argv[1]).read().split("\n"):
    if l.startswith("define ") and not any(x.startswith("@kdet_planted") for x in out):
        out.append("@kdet_planted = internal addrspace(1) global i32 0, align 4")
    out.append(l)
    if not done and l == "entry:" and any(x.startswith("define void @") for x in out[-3:]):
        out.append("  store volatile i32 1, i32 addrspace(1)* @kdet_planted, align 4")
        done = True
open(sys.argv[2], "w").write("\n".join(out))
PY
grep -q 'store volatile i32 1, i32 addrspace(1)\* @kdet_planted' "$T/in.ll" || fail "planting"

# Seed 3 crashes runs 1 to 4 (the first check's first two among them) and 11 of the first 16,
# one in three in the long run: kdet before this check refused the input, "(2 of 2 runs
# failed)"; now the 8 more runs (3 to 10) succeed twice and the whole check follows.
export FAKE_CC_FLAKY_SEED=3
expect_exit 0 "$KDET" reduce "$T/in.ll" --cmd "$CC" --unnamed natural -n 16 -o "$T/small.ll"
grep -q 'does not compile' "$T/out" && fail "refused as not compiling"
expect_output 'reduced +[0-9]+ -> [0-9]+ bytes'
grep -q 'kdet_planted' "$T/small.ll" || fail "the reduced input lost the planted construct"

# A compiler that crashes every time is still refused, after 2 + 8 runs.
export FAKE_CC_FLAKY_IN=1
expect_exit 2 "$KDET" reduce "$T/in.ll" --cmd "$CC" --unnamed natural -n 16 -o "$T/none.ll"
expect_output 'does not compile under this setting \(10 of 10 runs failed\)'
echo "reduce_flaky: ok"
