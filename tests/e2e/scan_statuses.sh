#!/usr/bin/env bash
# scan_statuses.sh: a scan's statuses and exit code end to end.
# - an [[expect]]ed job quiet in 12 runs is "not-seen" (bound ~22%): exit 0, no JUnit failure;
# - the same job quiet in 60 runs (bound < 5%, the expected rate) "no longer varies": exit 1;
# - a job whose compiler fails on every run: exit 3, and it is listed;
# - unexpected variance together with an all-failed job: exit 1, both listed.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
set -euo pipefail
trap 'echo "scan_statuses: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_FAKES_DIR:?}" "${KDET_SOURCE_DIR:?}"
lib=$(realpath "$KDET_FAKES_DIR")/libfakenvvm.so
[[ -f $lib ]] || { echo "scan_statuses: SKIP: $lib not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(ls "$(realpath "$KDET_SOURCE_DIR")"/examples/nvvm/llvm7/*.ll | head -1)" "$tmp/k.ll"
check() { [[ $2 == "$3" ]] || { echo "scan_statuses: FAIL: $1: got '$2', want '$3'"; exit 1; }; }
manifest() { # OPTION_SETS MAX_RUNS EXPECT(0/1)
  {
    printf 'inputs = ["k.ll"]\n[option_sets]\n%s\n' "$1"
    printf '[[compiler]]\nname = "fake"\nbackend = "nvvm"\nlib = "%s"\n[budget]\nmax_runs = %s\n' "$lib" "$2"
    ((${3})) && printf '[[expect]]\ninput = "k.ll"\noptions = "quiet"\nreason = "was seen to vary"\n'
  } >"$tmp/m.toml"
  rm -f "$tmp/m.db"
}
scan() { "$KDET" scan "$tmp/m.toml" --db "$tmp/m.db" --jobs 2 --color never --junit "$tmp/m.xml" --json "$tmp/m.json" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?; }

manifest 'quiet = []' 12 1
scan
check "expected job quiet in 12 runs: exit" "$rc" 0
grep -q 'not seen          k.ll fake quiet  not seen in 12 runs (bound 22' "$tmp/out" || { cat "$tmp/out"; echo "scan_statuses: FAIL: no 'not seen in 12 runs (bound 22..%)' line"; exit 1; }
grep -q 'failures="0"' "$tmp/m.xml" || { echo "scan_statuses: FAIL: JUnit counts a not-seen job as a failure"; exit 1; }
grep -q '"status": "not-seen"' "$tmp/m.json"

manifest 'quiet = []' 60 1
scan
check "expected job quiet in 60 runs: exit" "$rc" 1
grep -qF 'NO LONGER VARIES  k.ll fake quiet  (one output in 60 runs: rate below 4.9% at 95% confidence, expected 5.0%' "$tmp/out" ||
  { cat "$tmp/out"; echo "scan_statuses: FAIL: no stale-expectation line with both numbers"; exit 1; }

manifest $'quiet = []\nbroken = ["-fake-mode=fail"]' 8 0
scan
check "a job failing on every run: exit" "$rc" 3
grep -q 'FAILED            k.ll fake broken' "$tmp/out" || { cat "$tmp/out"; echo "scan_statuses: FAIL: the failed job is not listed"; exit 1; }

manifest $'varies = ["-fake-mode=heaporder"]\nbroken = ["-fake-mode=fail"]' 64 0
scan
check "unexpected variance and a failed job: exit" "$rc" 1
grep -q 'VARIES            k.ll fake varies' "$tmp/out" && grep -q 'FAILED            k.ll fake broken' "$tmp/out" ||
  { cat "$tmp/out"; echo "scan_statuses: FAIL: both jobs must be listed"; exit 1; }
echo "scan_statuses: not-seen (12 runs) exit 0; no-longer-varies (60 runs) exit 1; all-failed exit 3; variance + failed exit 1"
