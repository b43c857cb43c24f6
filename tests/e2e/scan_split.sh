#!/usr/bin/env bash
# scan_split.sh: two jobs on two slots: once the varying one is done (its second run differs),
# the other's fresh-process rounds are split across the idle slot; every run (index, seed,
# outcome, status), verdict and variant count equals the same scan's on one slot (docs/SCAN.md,
# "Order and splitting rounds"). The fake's heap-order output follows the seeded heap churn
# (fresh processes, ASLR off), so outcomes are a function of the run's seed: the comparison is
# exact.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd python3 "for sqlite3 and JSON queries"
{
  printf 'name = "split"\ninputs = ["%s/nvvm/llvm7/saxpy.ll"]\n' "$EX"
  nvvm_compiler fake
  printf '[option_sets]\necho = ["-fake-mode=echo"]\nheap = ["-fake-mode=heaporder"]\n'
  printf '[setting]\nprocess = "fresh"\naslr = "off"\nheap = "churn"\nseed = 7\n'
  printf '[budget]\nmax_runs = 40\nfirst_round = 8\n'
} >"$T/m.toml"

for j in 1 2; do
  timeout 120 "$KDET" scan "$T/m.toml" --db "$T/j$j.db" --jobs "$j" --json "$T/j$j.json" -q &&
    rc=0 || rc=$?
  ((rc <= 1)) || fail "scan --jobs $j exited $rc"
  scan_runs "$T/j$j.db" | cut -d'|' -f2- >"$T/runs$j"
  json_eval "$T/j$j.json" '[(j["status"], j["runs"], [v["count"] for v in j["variants"]]) for j in d["jobs"]]' >"$T/verdict$j"
done
split1=$(sql "$T/j1.db" "select split_rounds from scans")
split2=$(sql "$T/j2.db" "select split_rounds from scans")
expect_eq "rounds split on one slot" "$split1" 0
((split2 >= 2)) || fail "one job left on two slots: no round was split (split_rounds $split2)"
if ! cmp -s "$T/runs1" "$T/runs2"; then
  diff "$T/runs1" "$T/runs2" | head -10
  fail "the split scan's runs differ from the serial scan's (above)"
fi
cmp -s "$T/verdict1" "$T/verdict2" ||
  fail "verdicts differ: --jobs 1 $(cat "$T/verdict1"), --jobs 2 $(cat "$T/verdict2")"
echo "scan_split: $split2 rounds split; $(wc -l <"$T/runs1") runs and the verdict $(cat "$T/verdict1") match --jobs 1"
