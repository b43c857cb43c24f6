#!/usr/bin/env bash
# tier: quick
# SIGTERM while kdet run probes its default levels (a level that hangs the compiler): kdet
# stops within a second, exit 130, and calls no level broken whose probe it did not finish.
source "$(dirname "$0")/lib/common.bash"
IN=$EX/nvvm/llvm7/saxpy.ll
# A compiler that hangs under any TZ (tz=vary is one of run's default levels); it says when.
cat >"$T/cc.sh" <<SH
#!/bin/sh
if [ -n "\${TZ:-}" ]; then : >"$T/hanging"; exec sleep 1000; fi
cp "\$1" "\$2"
SH
chmod +x "$T/cc.sh"
limit_ms=1000
[[ -n ${KDET_SANITIZER:-} ]] && limit_ms=3000
for sig in TERM INT; do
  rm -f "$T/hanging"
  env --default-signal=INT "$KDET" run "$IN" --cmd "$T/cc.sh {input} {output}" -n 4 >"$T/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do [[ -e $T/hanging ]] && break; sleep 0.05; done
  [[ -e $T/hanging ]] || fail "$sig: the compiler never reached its hang"
  t0=$(date +%s%N)
  kill -"$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  expect_eq "$sig: exit" "$rc" 130
  ((ms <= limit_ms)) || fail "$sig: kdet took $ms ms to stop (limit $limit_ms ms)"
  if grep -q "breaks this compiler" "$T/out"; then
    cat "$T/out"
    fail "$sig: a level was called broken though its probe was stopped"
  fi
done
echo "$NAME: ok"
