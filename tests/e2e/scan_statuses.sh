#!/usr/bin/env bash
# tier: quick threads
# scan_statuses.sh: a scan's statuses and exit code end to end.
# - an [[expect]]ed job quiet in 12 runs is "not-seen" (bound ~22%): exit 0, no JUnit failure,
#   and the summary's 'one output' line gives that bound in the shared phrasing;
# - the same job quiet in 60 runs (bound < 5%, the expected rate) "no longer varies": exit 1;
# - a job whose compiler fails on every run: exit 3, and it is listed;
# - unexpected variance together with an all-failed job: exit 1, both listed.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
cp "$(ls "$EX"/nvvm/llvm7/*.ll | head -1)" "$T/k.ll"
manifest() { # OPTION_SETS MAX_RUNS EXPECT(0/1)
  {
    printf 'inputs = ["k.ll"]\n[option_sets]\n%s\n' "$1"
    nvvm_compiler fake
    printf '[budget]\nmax_runs = %s\n' "$2"
    ((${3})) && printf '[[expect]]\ninput = "k.ll"\noptions = "quiet"\nreason = "was seen to vary"\n'
  } >"$T/m.toml"
  rm -f "$T/m.db"
}
scan() { "$KDET" scan "$T/m.toml" --db "$T/m.db" --jobs 2 --color never --junit "$T/m.xml" --json "$T/m.json" >"$T/out" 2>"$T/err" && rc=0 || rc=$?; }

manifest 'quiet = []' 12 1
scan
expect_eq "expected job quiet in 12 runs: exit" "$rc" 0
grep -q 'not seen          k.ll fake quiet  not seen in 12 runs (bound 22' "$T/out" || { cat "$T/out"; fail "no 'not seen in 12 runs (bound 22..%)' line"; }
grep -q 'failures="0"' "$T/m.xml" || fail "JUnit counts a not-seen job as a failure"
grep -q '"status": "not-seen"' "$T/m.json"
# The one output, in the words every command uses for "no variance seen", with its bound.
grep -qF 'one output:    1 job; no variance seen in 12 runs: a rate above 22% would have shown (95% confidence)' "$T/out" ||
  { cat "$T/out"; fail "no 'one output' line with the bound"; }

manifest 'quiet = []' 60 1
scan
expect_eq "expected job quiet in 60 runs: exit" "$rc" 1
grep -qF 'NO LONGER NONDETERMINISTIC  k.ll fake quiet  (one output in 60 runs: rate below 4.9% at 95% confidence, expected 5.0%' "$T/out" ||
  { cat "$T/out"; fail "no stale-expectation line with both numbers"; }

manifest $'quiet = []\nbroken = ["-fake-mode=fail"]' 8 0
scan
expect_eq "a job failing on every run: exit" "$rc" 3
grep -q 'FAILED            k.ll fake broken' "$T/out" || { cat "$T/out"; fail "the failed job is not listed"; }

manifest $'varies = ["-fake-mode=heaporder"]\nbroken = ["-fake-mode=fail"]' 64 0
scan
expect_eq "unexpected variance and a failed job: exit" "$rc" 1
grep -q 'NONDETERMINISTIC  k.ll fake varies' "$T/out" && grep -q 'FAILED            k.ll fake broken' "$T/out" ||
  { cat "$T/out"; fail "both jobs must be listed"; }
echo "scan_statuses: not-seen (12 runs) exit 0; no-longer-nondeterministic (60 runs) exit 1; all-failed exit 3; variance + failed exit 1"
