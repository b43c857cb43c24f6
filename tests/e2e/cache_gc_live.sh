#!/usr/bin/env bash
# tier: quick
# cache_gc_live.sh: `kdet cache gc --staging-age 0` running in a loop beside 8
# concurrent misses with 20 MiB artifacts never removes a write in progress: every
# compile succeeds, stores its variant and serves the compiler's bytes.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
fake=${KDET_FAKES_DIR:-}/fake_cc
[[ -x $fake ]] || skip "fake compiler $fake not built"
for w in $(seq 1 8); do
  { echo "writer $w"; head -c 15000000 /dev/urandom | base64 -w 1000; } >"$T/in$w.txt"
done
( while [[ ! -e $T/stop ]]; do
    "$KDET" cache gc --dir "$T/c" --max-size 1T --staging-age 0 >/dev/null 2>>"$T/gc.err" || echo "gc exit $?" >>"$T/gc.err"
  done ) &
gc=$!
pids=()
for w in $(seq 1 8); do
  "$KDET" cc "$T/in$w.txt" --dir "$T/c" -q --verify-rate 0 -o "$T/out$w.txt" -- "$fake" echo {input} {output} \
    >"$T/w$w.log" 2>&1 &
  pids+=($!)
done
failed=0
for w in $(seq 1 8); do
  wait "${pids[$((w - 1))]}" || { failed=$((failed + 1)); cat "$T/w$w.log" >&2; }
done
touch "$T/stop"
wait "$gc"
((failed == 0)) || fail "$failed of 8 compiles failed while gc --staging-age 0 ran"
! grep -q "warning" "$T"/w*.log || { cat "$T"/w*.log >&2; fail "a compile warned (its store was disturbed)"; }
[[ ! -s $T/gc.err ]] || { cat "$T/gc.err" >&2; fail "gc reported errors"; }
keys=$("$KDET" cache stats --dir "$T/c" --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["keys"])')
[[ $keys == 8 ]] || fail "expected 8 stored keys, found $keys"
for w in $(seq 1 8); do
  "$fake" echo "$T/in$w.txt" "$T/expected.txt"
  cmp -s "$T/expected.txt" "$T/out$w.txt" || fail "writer $w was served other bytes"
done
echo "cache_gc_live: PASS"
