#!/usr/bin/env bash
# tier: quick
# `kdet cache verify` recompiles what key.json names: in a shared cache anyone in the group can
# write one, so verify runs only the entries its own user wrote. An entry planted by another user
# (here: key.json handed to uid 65534) is skipped with the reason, and its command never runs.
source "$(dirname "$0")/lib/common.bash"
CC=$KDET_FAKES_DIR/fake_cc
[[ -x $CC ]] || skip "fake compilers not built (ninja kdet_test_fakes)"
[[ $(id -u) == 0 ]] || skip "needs root to hand a file to another uid"
printf 'line one\nline two\n' >"$T/k.txt"
"$KDET" cc "$T/k.txt" --dir "$T/cache" -q --verify-rate 0 -o "$T/k.out" -- "$CC" echo {input} {output}
# Its owner verifies it: the entry is recompiled and matches.
expect_exit 0 "$KDET" cache verify --dir "$T/cache"
expect_output 'match'
# Another user's key.json: skipped with the reason, nothing recompiled.
key=$(find "$T/cache" -name key.json | head -1)
[[ -n $key ]] || fail "no key.json in the cache"
chown 65534 "$key"
expect_exit 0 "$KDET" cache verify --dir "$T/cache"
expect_output 'skipped .*belongs to uid 65534, not to this user'
if grep -q '^match' "$T/out"; then cat "$T/out" >&2; fail "another user's entry was recompiled"; fi
echo OK
