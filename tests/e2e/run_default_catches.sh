#!/usr/bin/env bash
# tier: slow
# kdet run without -n is sized to catch a 1-in-16 rate with 99% probability: a fake libNVVM
# whose output differs in about 1 run of 16 (cwd-rate: which runs is a function of --seed) is
# called NONDETERMINISTIC at each of 20 fixed seeds, 41 to 60, where 32 runs (the old default)
# miss it at 47, 50 and 51 (of seeds 1 to 60, at 4). One output in too few runs to exclude that
# rate is NO VARIANCE SEEN, with the rate left open, never DETERMINISTIC; the plan is said
# before the runs.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
IN=$EX/nvvm/llvm7/saxpy.ll
FAKE=$FAKES/libfakenvvm.so
missed=()
for seed in $(seq 41 60); do
  rc=0
  "$KDET" run "$IN" --lib "$FAKE" --seed "$seed" --json "$T/s$seed.json" -- -fake-mode=cwd-rate \
    -fake-rate=16 >"$T/s$seed.txt" 2>"$T/s$seed.err" || rc=$?
  [[ $rc == 1 ]] || missed+=("seed $seed: exit $rc, $(grep verdict "$T/s$seed.txt")")
done
((${#missed[@]} == 0)) || fail "the default missed a 1-in-16 rate: ${missed[*]}"
# The plan, before the runs; the runs it made.
grep -q '^kdet run: up to 72 runs (enough to catch a 1-in-16 rate with 99% probability)' "$T/s41.err" ||
  { cat "$T/s41.err"; fail "no plan before the runs"; }
expect_eq "seed 41: runs planned" "$(json_get "$T/s41.json" '["runs"]["planned"]')" 72
# 32 runs of one output cannot exclude that rate: NO VARIANCE SEEN, with the rate left open.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 32 --seed 1 --json "$T/n32.json" -- -fake-mode=echo
expect_output 'verdict   NO VARIANCE SEEN in 32 runs \(a rate of up to 8\.9% could go unseen\)'
expect_output 'bound     no variance seen in 32 runs: a rate above 8\.9% would have shown \(95% confidence\)'
expect_eq "32 runs: verdict (stable), excludes 1/16" \
  "$(json_eval "$T/n32.json" 'd["verdict"], d["rate"]["excludes_rate_of_interest"]')" \
  "('deterministic', False)"
# The default on a deterministic compiler: DETERMINISTIC, 72 runs, the bound excludes 1/16.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" --seed 1 --json "$T/d.json" -- -fake-mode=echo
expect_output 'verdict   DETERMINISTIC: all 72 runs gave the same output'
expect_eq "default: verdict, excludes 1/16" \
  "$(json_eval "$T/d.json" 'd["verdict"], d["rate"]["excludes_rate_of_interest"]')" \
  "('deterministic', True)"
echo OK
