#!/usr/bin/env bash
# tier: quick
# kdet's probes of a compiler.
#  1. SIGTERM or SIGINT while kdet run probes its default levels (a level that hangs the
#     compiler): kdet stops within a second, exit 130, and calls no level broken whose probe it
#     did not finish.
#  2. The --version probe runs in a folder of kdet's own, never the user's working folder, and a
#     compiler that hangs on it costs 3 s once, not 10.
#  3. A failure that also happens at natural levels is the compiler's own rate: a compiler that
#     crashes on chosen calls (the plain compile; one level's probe once) gets no level called
#     broken; a level that hangs it still is, also when every plain compile crashes. The same
#     for kdet explain's probes (calls 1-2 are
#     its calibration, 3 the all-fixed probe, then a natural-level check, then one per level).
#  4. A named level that hangs the compiler: a short probe, and runs limited as the probe was.
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

# 2. Where --version runs, and what a hang there costs.
cat >"$T/ver.sh" <<SH
#!/bin/sh
if [ "\$1" = "--version" ]; then pwd >"$T/version-cwd"; : >written-by-version; echo "vercc 1.0"; exit 0; fi
cp "\$1" "\$2"
SH
chmod +x "$T/ver.sh"
mkdir "$T/work"
(cd "$T/work" && "$KDET" run "$IN" --cmd "$T/ver.sh {input} {output}" -n 1 --unnamed natural >"$T/out" 2>&1) ||
  { cat "$T/out"; fail "the --version compiler's run"; }
grep -q "compiler  exec: vercc 1.0" "$T/out" || { cat "$T/out"; fail "the version line"; }
[[ ! -e $T/work/written-by-version ]] || fail "--version ran in the user's working folder"
[[ $(cat "$T/version-cwd") == */kdet-version-* ]] || fail "--version ran in $(cat "$T/version-cwd")"
cat >"$T/hangver.sh" <<SH
#!/bin/sh
if [ "\$1" = "--version" ]; then exec sleep 1000; fi
cp "\$1" "\$2"
SH
chmod +x "$T/hangver.sh"
t0=$(date +%s%N)
"$KDET" run "$IN" --cmd "$T/hangver.sh {input} {output}" -n 1 --unnamed natural >"$T/out" 2>&1 ||
  { cat "$T/out"; fail "the compiler that hangs on --version"; }
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "unknown (--version gave nothing)" "$T/out" || { cat "$T/out"; fail "the unknown version"; }
((ms < 3000 + limit_ms + 2000)) || fail "a --version hang cost $ms ms"

# 3. Crashes by chance are no level's doing. The compiler crashes on the calls listed in
#    CRASH_ON (its --version not counted): 1 is the plain compile; 2 and 3 are the all-varied
#    probe and the first level's probe, which then runs like a plain compile.
cat >"$T/crash.sh" <<SH
#!/bin/sh
[ "\$1" = "--version" ] && { echo "crashcc 1"; exit 0; }
n=\$(( \$(cat "$T/count" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/count"
for c in \$CRASH_ON; do [ "\$c" = "\$n" ] && kill -SEGV \$\$; done
cp "\$1" "\$2"
SH
chmod +x "$T/crash.sh"
for on in "1" "2 3"; do
  rm -f "$T/count"
  CRASH_ON=$on "$KDET" run "$IN" --cmd "$T/crash.sh {input} {output}" -n 4 >"$T/out" 2>&1 || true
  if grep -q "breaks this compiler" "$T/out"; then
    cat "$T/out"
    fail "CRASH_ON=$on: a level was blamed for the compiler's own crashes"
  fi
done
rm -f "$T/count"
CRASH_ON=1 "$KDET" run "$IN" --cmd "$T/crash.sh {input} {output}" -n 4 >"$T/out" 2>&1 || true
expect_output "the plain compile \(every factor at its natural level\) failed 1 of 2 times \(crashed\): the compiler's own failure rate"
rm -f "$T/count"
CRASH_ON="2 3" "$KDET" run "$IN" --cmd "$T/crash.sh {input} {output}" -n 4 >"$T/out" 2>&1 || true
expect_output "failed one probe \(crashed.*and then ran like a plain compile: a fluke, not blamed"
for on in "3 4" "3 5"; do
  rm -f "$T/count"
  CRASH_ON=$on "$KDET" explain "$IN" --cmd "$T/crash.sh {input} {output}" -n 10 --seed 1 >"$T/out" 2>&1 || true
  if grep -q "cannot be tested with this compiler" "$T/out"; then
    cat "$T/out"
    fail "explain, CRASH_ON=$on: a level was blamed for the compiler's own crashes"
  fi
  case $on in
    "3 4") expect_output "finding +the compiler fails by itself: a run at its natural levels failed" ;;
    "3 5") expect_output "finding +holding [a-z]+ at [a-z]+=[a-z]+ failed one probe \(crashed.*and then ran: a fluke, not blamed" ;;
  esac
done
# A level that hangs the compiler is still blamed, at the cost of one short probe.
"$KDET" run "$IN" --cmd "$T/cc.sh {input} {output}" -n 2 >"$T/out" 2>&1 || { cat "$T/out"; fail "the TZ hang run"; }
expect_output "tz=vary breaks this compiler \(timed-out"
# A compiler that crashes on every plain compile, the same way, is no compiler failing by
# chance: a level that fails it otherwise (here a hang under any TZ) is still blamed, and the
# runs show the crash, not the hang.
cat >"$T/crashtz.sh" <<SH
#!/bin/sh
[ "\$1" = "--version" ] && { echo "crashcc 1"; exit 0; }
if [ -n "\${TZ:-}" ]; then exec sleep 1000; fi
kill -SEGV \$\$
SH
chmod +x "$T/crashtz.sh"
expect_exit 3 "$KDET" run "$IN" --cmd "$T/crashtz.sh {input} {output}" -n 2
expect_output "tz=vary breaks this compiler \(timed-out.*where a plain compile gave crashed"
expect_output "FAILED: the compiler failed on every run \(2 crashed"
# 4. A level the user named that hangs the compiler costs a short probe too: the runs keep it
#    (it was asked for), each limited to the probe's time and ending after two such failures,
#    with a finding that names the level, not "the plain compile".
start=$(date +%s)
expect_exit 3 "$KDET" run "$IN" --cmd "$T/cc.sh {input} {output}" --tz vary -n 12
expect_output "the levels named \(tz=vary\) break this compiler \(timed-out.*where every factor at its natural level gave ok"
expect_output "FAILED: the compiler failed on every run \(2 timed-out"
if grep -q "the plain compile (every factor at its natural level) gave no result" "$T/out"; then
  fail "a named level's hang is blamed on the plain compile"
fi
# Two probes and two runs of about 2 s each, not 12 runs of --timeout (300 s).
(($(date +%s) - start < 60)) || fail "a named level that hangs the compiler cost $(($(date +%s) - start)) s"
echo "$NAME: ok"
