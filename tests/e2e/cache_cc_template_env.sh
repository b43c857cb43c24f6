#!/usr/bin/env bash
# tier: quick
# `kdet cc INPUT -o OUT -- TEMPLATE` takes KDET_CACHE_VERIFY_RATE and KDET_CACHE_ON_VARIANTS as
# launcher mode does (docs/CACHE.md): a bad value is exit 2 naming the variable, and an option
# given on the command line wins. Before, template mode ignored both (exit 0 every time).
# Also `kdet cache verify` on a key.json moved from another key says so.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
export KDET_CACHE_DIR=$T/cache
unset KDET_CACHE_VERIFY_RATE KDET_CACHE_ON_VARIANTS
printf 'kernel one\n' >"$T/k.txt"
cc() { "$KDET" cc "$T/k.txt" -o "$T/k.out" "$@" -- "$FAKES/fake_cc" env {input} {output}; }

expect_rc 0 cc --verify-rate 0
# A second variant under the same key (FAKE_CC_ENV is not in it): a verification finds it.
FAKE_CC_ENV=two expect_rc 0 cc --verify-rate 1
KDET_CACHE_ON_VARIANTS=fail expect_rc 1 cc --verify-rate 0
grep -q 'holds 2 variants' "$T/err" || fail "no reason: $(cat "$T/err")"
KDET_CACHE_ON_VARIANTS=fail expect_rc 0 cc --verify-rate 0 --on-variants serve-first
KDET_CACHE_VERIFY_RATE=-1 expect_rc 2 cc
grep -q 'KDET_CACHE_VERIFY_RATE' "$T/err" || fail "the variable is not named: $(cat "$T/err")"
KDET_CACHE_ON_VARIANTS=FAIL expect_rc 2 cc
grep -q 'KDET_CACHE_ON_VARIANTS' "$T/err" || fail "the variable is not named: $(cat "$T/err")"
# The rate is honoured: 1 recompiles every hit (here a third output: a mismatch), 0 none.
FAKE_CC_ENV=three KDET_CACHE_VERIFY_RATE=1 expect_rc 0 cc --json "$T/r1.json"
expect_eq "result at KDET_CACHE_VERIFY_RATE=1" "$(json_get "$T/r1.json" '["result"]')" mismatch
FAKE_CC_ENV=four KDET_CACHE_VERIFY_RATE=1 expect_rc 0 cc --json "$T/r0.json" --verify-rate 0
expect_eq "result with --verify-rate 0 over the variable" "$(json_get "$T/r0.json" '["result"]')" hit

# key.json of one key copied over another's: verify names the key it describes.
printf 'kernel two\n' >"$T/k2.txt"
expect_rc 0 "$KDET" cc "$T/k2.txt" -o "$T/k2.out" --verify-rate 0 -- "$FAKES/fake_cc" env {input} {output}
e1=$(dirname "$(grep -lF '"k.txt"' "$T"/cache/v1/entries/*/*/key.json | head -1)")
e2=$(dirname "$(grep -lF '"k2.txt"' "$T"/cache/v1/entries/*/*/key.json | head -1)")
[[ -n $e1 && -n $e2 && $e1 != "$e2" ]] || fail "two keys not found"
cp "$e2/key.json" "$e1/key.json"
expect_rc 0 "$KDET" cache verify --dir "$T/cache"
grep -q "key.json describes another key of this cache ($(basename "$e2")): moved or copied" "$T/out" ||
  fail "verify does not say the key.json was moved: $(cat "$T/out")"
grep -q 'UTF-8' "$T/out" && fail "verify speaks of UTF-8: $(cat "$T/out")"
echo "$NAME: ok"
