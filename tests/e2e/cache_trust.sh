#!/usr/bin/env bash
# tier: quick
# The shared cache's trust model (docs/CACHE.md, "Trust"): a variant another group member
# stored is never served to this user until this user's own compile gives it. Here a member
# stores a planted variant (fake_cc env mode with FAKE_CC_ENV=planted, which the key does not
# see), then plants a log line that orders it first: this user's kdet cc compiles, serves its
# own output, and says why; a member's variant that matches this user's compile becomes a hit.
source "$(dirname "$0")/lib/common.bash"
CC=$KDET_FAKES_DIR/fake_cc
[[ -x $CC ]] || skip "fake compilers not built (ninja kdet_test_fakes)"
[[ $(id -u) == 0 ]] || skip "needs root to act as another uid"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
member=(setpriv --reuid 65533 --regid 0 --clear-groups)
chmod 755 "$T"
"${member[@]}" "$KDET" --version >/dev/null 2>&1 || skip "uid 65533 cannot run $KDET (a private folder above it)"
"${member[@]}" test -x "$CC" || skip "uid 65533 cannot run $CC"
mkdir -p "$T/cache" "$T/m"
chmod 2775 "$T/cache"
chown 65533 "$T/m"
printf 'line one\n' >"$T/k.txt"
chmod 644 "$T/k.txt"
cc_env() { # cc_env OUT [kdet cc options]: the env-mode compile of k.txt into OUT
  local out=$1
  shift
  "$KDET" cc "$T/k.txt" --dir "$T/cache" --verify-rate 0 -o "$out" "$@" -- "$CC" env {input} {output}
}

# The member stores the planted variant.
FAKE_CC_ENV=planted "${member[@]}" "$KDET" cc "$T/k.txt" --dir "$T/cache" -q --verify-rate 0 \
  -o "$T/m/k.out" -- "$CC" env {input} {output} || fail "the member's compile failed"
grep -q 'FAKE_CC_ENV: planted' "$T/m/k.out" || fail "the member's output is not the planted one"
[[ $(stat -c %u "$(find "$T/cache" -name meta.json | head -1)") == 65533 ]] || fail "not the member's"

# This user: compiled, not served; its own output, and the reason on stderr.
cc_env "$T/k1.out" 2>"$T/k1.err" || fail "kdet cc failed: $(cat "$T/k1.err")"
grep -q 'FAKE_CC_ENV: (unset)' "$T/k1.out" || fail "the planted variant was served: $(cat "$T/k1.out")"
grep -q 'not trust.*passed over, not served; the input is compiled instead' "$T/k1.err" || fail "no reason given: $(cat "$T/k1.err")"

# A planted log line that orders the member's variant first changes nothing.
planted=$(grep -l 'planted' "$T"/cache/v1/entries/*/*/variants/*/a0 | head -1)
vid=$(basename "$(dirname "$planted")")
log=$(dirname "$(dirname "$(dirname "$planted")")")/log
"${member[@]}" sh -c "printf '{\"event\":\"variant\",\"variant\":\"$vid\",\"how\":\"fill\"}\\n' >>'$log'" \
  || fail "the member cannot append to the log"
cc_env "$T/k2.out" 2>"$T/k2.err" || fail "kdet cc failed: $(cat "$T/k2.err")"
grep -q 'FAKE_CC_ENV: (unset)' "$T/k2.out" || fail "the planted variant was served after its log line"
"$KDET" cache stats --dir "$T/cache" --json "$T/stats.json" >/dev/null
expect_eq "this user's second compile is a hit" "$(json_get "$T/stats.json" '["counters"]["hit"]')" 1

# A member's variant that this user's compile gives byte for byte is trusted from then on.
printf 'line two\n' >"$T/j.txt"
chmod 644 "$T/j.txt"
"${member[@]}" "$KDET" cc "$T/j.txt" --dir "$T/cache" -q --verify-rate 0 -o "$T/m/j.out" \
  -- "$CC" echo {input} {output} || fail "the member's second compile failed"
"$KDET" cc "$T/j.txt" --dir "$T/cache" -q --verify-rate 0 -o "$T/j1.out" -- "$CC" echo {input} {output}
cmp "$T/m/j.out" "$T/j1.out" || fail "the same compile gave other bytes"
"$KDET" cc "$T/j.txt" --dir "$T/cache" --verify-rate 0 -o "$T/j2.out" -- "$CC" echo {input} {output} \
  2>"$T/j2.err"
[[ ! -s $T/j2.err ]] || fail "a trusted hit printed: $(cat "$T/j2.err")"
"$KDET" cache stats --dir "$T/cache" --json "$T/stats.json" >/dev/null
expect_eq "hits after the member's matching variant" "$(json_get "$T/stats.json" '["counters"]["hit"]')" 2
echo OK
