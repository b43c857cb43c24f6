#!/usr/bin/env bash
# tier: quick
# kdet run without -n stops handing out runs once --time-budget has passed, but not before 32
# runs: slow compiles give the floor, said as such; -n N is still exactly N, and --time-budget
# beside -n is a usage error.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
IN=$EX/nvvm/llvm7/saxpy.ll
FAKE=$FAKES/libfakenvvm.so
# 32 slow compiles (20 ms each) outlast a budget of 0.2 s: the floor, and not one run more.
expect_rc 0 "$KDET" run "$IN" --lib "$FAKE" --time-budget 0.2 --json "$T/b.json" -- -fake-mode=slow
grep -q '^kdet run: up to 72 runs .*; fewer, but at least 32, if they take over 200 ms' "$T/err" ||
  { cat "$T/err"; fail "the plan is not said before the runs"; }
expect_eq "runs done, planned, out of time" \
  "$(json_eval "$T/b.json" 'd["runs"]["completed"], d["runs"]["planned"], d["out_of_time"]')" \
  "(32, 72, True)"
grep -q 'verdict   NO VARIANCE SEEN in 32 runs (a rate of up to 8.9% could go unseen) (the time budget of 200 ms ran out; 72 planned)' "$T/out" ||
  { cat "$T/out"; fail "the verdict does not say the budget ran out"; }
# -n is exactly N, whatever the time; no plan line then.
expect_rc 0 "$KDET" run "$IN" --lib "$FAKE" -n 3 --json "$T/n.json" -- -fake-mode=slow
expect_eq "-n 3: runs done, out of time" \
  "$(json_eval "$T/n.json" 'd["runs"]["completed"], d["out_of_time"]')" "(3, False)"
if grep -q '^kdet run: up to' "$T/err"; then fail "a plan line with -n"; fi
expect_exit 2 "$KDET" run "$IN" --lib "$FAKE" -n 3 --time-budget 5 -- -fake-mode=echo
expect_output 'time-budget'
echo OK
