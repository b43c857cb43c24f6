#!/usr/bin/env bash
# tier: quick threads
# scan_split.sh: fresh-process rounds split across an idle slot give exactly the runs of the
# same scan on one slot: every run (index, seed, outcome, status), verdict and variant count
# (docs/SCAN.md, "Order and splitting rounds"). Two jobs on two slots: once the varying one is
# done, the other's later rounds are split. One job on two slots: its first round is split, and
# the runs up to its second outcome come from the pieces. The fake's heap-order output follows
# the seeded heap churn (fresh processes, ASLR off, no extra threads), so an outcome is a function
# of the run's seed and the comparison is exact. Extra threads (threads, an unnamed factor that
# scan varies) are held at 0: under a sanitizer's allocator, one heap for all threads, their
# timing moves the compiler's addresses.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd python3 "for sqlite3 and JSON queries"
# manifest OPTION_SETS: the saxpy example on the fake libNVVM, fresh processes, ASLR off, churn.
manifest() {
  printf 'name = "split"\ninputs = ["%s/nvvm/llvm7/saxpy.ll"]\n' "$EX"
  nvvm_compiler fake
  printf '[option_sets]\n%s\n' "$1"
  printf '[setting]\nprocess = "fresh"\naslr = "off"\nheap = "churn"\nthreads = 0\nseed = 7\n'
  printf '[budget]\nmax_runs = 40\nfirst_round = 8\n'
}
# Two jobs: the varying one ends after its first round, the other's later rounds are split.
manifest 'echo = ["-fake-mode=echo"]
heap = ["-fake-mode=heaporder"]' >"$T/two.toml"
# One job: its first round is split, and the runs up to the second outcome come from pieces.
manifest 'heap = ["-fake-mode=heaporder"]' >"$T/one.toml"

declare -A want_split=([two]=2 [one]=1)
for m in two one; do
  for j in 1 2; do
    timeout 120 "$KDET" scan "$T/$m.toml" --db "$T/$m$j.db" --jobs "$j" --json "$T/$m$j.json" -q &&
      rc=0 || rc=$?
    ((rc <= 1)) || fail "$m: scan --jobs $j exited $rc"
    scan_runs "$T/$m$j.db" | cut -d'|' -f2- >"$T/$m.runs$j"
    json_eval "$T/$m$j.json" '[(j["status"], j["runs"], [v["count"] for v in j["variants"]]) for j in d["jobs"]]' >"$T/$m.verdict$j"
  done
  split1=$(sql "$T/${m}1.db" "select split_rounds from scans")
  split2=$(sql "$T/${m}2.db" "select split_rounds from scans")
  expect_eq "$m: rounds split on one slot" "$split1" 0
  ((split2 >= ${want_split[$m]})) || fail "$m: $split2 rounds split on two slots, want ${want_split[$m]}"
  if ! cmp -s "$T/$m.runs1" "$T/$m.runs2"; then
    diff "$T/$m.runs1" "$T/$m.runs2" | head -10
    fail "$m: the split scan's runs differ from the serial scan's (above)"
  fi
  cmp -s "$T/$m.verdict1" "$T/$m.verdict2" ||
    fail "$m: verdicts differ: --jobs 1 $(cat "$T/$m.verdict1"), --jobs 2 $(cat "$T/$m.verdict2")"
  echo "scan_split: $m: $split2 rounds split; $(wc -l <"$T/$m.runs1") runs and the verdicts $(cat "$T/$m.verdict1") match --jobs 1"
done

# history = N: same-process runs come in chains of N compiles, each chain one worker; a round
# split on idle slots at chain boundaries gives every run the history it has on one slot. The
# fake's crash-rate=K crashes the Kth compile of a worker, so it shows each run's place in its
# worker: with chains shorter than K nothing crashes, with longer ones the Kth run of each does.
chain_manifest() { # PROCESS HISTORY RATE
  printf 'name = "chain"\ninputs = ["%s/nvvm/llvm7/saxpy.ll"]\n' "$EX"
  nvvm_compiler fake
  printf '[option_sets]\nrate = ["-fake-mode=crash-rate=%s"]\n' "$3"
  printf '[setting]\nprocess = "%s"\nhistory = %s\naslr = "off"\nheap = "none"\nseed = 3\n' "$1" "$2"
  printf '[budget]\nmax_runs = 40\nfirst_round = 8\n'
}
# CASE PROCESS HISTORY RATE STATUS: the verdict wanted at --jobs 1 and 2.
# both0: without history the round's same-process runs stay in one worker (one piece) and only
# its fresh runs spread; the 3rd compile of that worker (run 5) crashes in both scans.
for c in "same4 same 4 5 deterministic" "same0 same 0 5 nondeterministic" "both2 both 2 3 deterministic" \
  "both3 both 3 3 nondeterministic" "both0 both 0 3 nondeterministic"; do
  read -r name process history rate want <<<"$c"
  chain_manifest "$process" "$history" "$rate" >"$T/$name.toml"
  for j in 1 2; do
    timeout 120 "$KDET" scan "$T/$name.toml" --db "$T/$name$j.db" --jobs "$j" --json "$T/$name$j.json" -q &&
      rc=0 || rc=$?
    ((rc <= 1)) || fail "$name: scan --jobs $j exited $rc"
    expect_eq "$name: status at --jobs $j" "$(json_eval "$T/$name$j.json" 'd["jobs"][0]["status"]')" "$want"
    sql "$T/$name$j.db" "select idx, seed, variant, status, nth_in_worker from runs" | LC_ALL=C sort -n >"$T/$name.runs$j"
  done
  if ! cmp -s "$T/$name.runs1" "$T/$name.runs2"; then
    diff "$T/$name.runs1" "$T/$name.runs2" | head -10
    fail "$name: with history $history the split scan's runs differ from the serial scan's (above)"
  fi
  most=$(sql "$T/${name}1.db" "select max(nth_in_worker) from runs")
  if ((history > 0)); then
    ((most <= history)) || fail "$name: a worker made $most compiles in a row; history is $history"
  fi
  split2=$(sql "$T/${name}2.db" "select split_rounds from scans")
  if ((history > 0)) || [[ $process == both ]]; then
    ((split2 >= 1)) || fail "$name: no round was split on two slots (history $history)"
  else
    expect_eq "$name: rounds split (same-process runs share one worker)" "$split2" 0
  fi
  echo "scan_split: $name: $want, $(wc -l <"$T/$name.runs1") runs equal at --jobs 1 and 2, at most $most compiles per worker"
done
