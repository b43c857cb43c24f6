#!/usr/bin/env bash
# tier: quick
# adversary_cc_interrupt.sh: SIGTERM or SIGINT to `kdet cc` during a miss is exit 130
# (interrupted, as every command), not 3 ("the compiler failed: interrupted"); nothing is
# stored and the compiler, which ignores SIGTERM, is not left running.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib/common.bash"
export TMPDIR=$T
M=$KDET_E2E_MARK # in every hostile compiler's argv too: `exec --fix all` cleans the environment
printf 'kernel\n' >"$T/k.txt"
# The compiler says it has started (kdet cc catches SIGTERM and SIGINT by then) and ignores both.
printf '#!/bin/bash\ntrap "" TERM INT\n: >"%s/started"\nwhile :; do sleep 0.2; done\n' "$T" >"$T/stuck.sh"
chmod +x "$T/stuck.sh"
for sig in TERM INT; do
  rm -f "$T/started"
  "$KDET" cc "$T/k.txt" -o "$T/k.o" --dir "$T/cache" -q -- "$T/stuck.sh" $M "$T/k.txt" "$T/k.o" 2>"$T/err" &
  pid=$!
  # Signalled only once the compiler runs: a fixed sleep could land before kdet cc has set its
  # handlers (a slow start under a sanitizer), where SIGTERM kills it (143) and SIGINT, which
  # bash leaves ignored in a background job, is lost and kdet cc waits on the compiler forever.
  for ((i = 0; i < 600; i++)); do [[ -e $T/started ]] && break; sleep 0.1; done
  [[ -e $T/started ]] || { cat "$T/err" >&2; fail "the compiler did not start within 60 s"; }
  kill -$sig $pid
  set +e; wait $pid; rc=$?; set -e
  [[ $rc == 130 ]] || { cat "$T/err" >&2; fail "kdet cc after SIG$sig: exit $rc, want 130"; }
  wait_no_pids 3 || fail "the compiler outlived kdet cc after SIG$sig"
done
expect_exit 0 "$KDET" cache stats --dir "$T/cache"
expect_output "^keys +0"
echo "adversary_cc_interrupt: PASS"
