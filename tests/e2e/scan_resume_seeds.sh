#!/usr/bin/env bash
# scan_resume_seeds.sh: a scan stopped by SIGINT and then by SIGTERM in the
# middle of rounds, and resumed each time, ends with exactly the runs of an
# uninterrupted scan of the same manifest and seed: every run (job, index)
# has the same seed, outcome and status (docs/SCAN.md promises it).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
set -euo pipefail
trap 'echo "scan_resume_seeds: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_FAKES_DIR:?}" "${KDET_SOURCE_DIR:?}"
lib=$(realpath "$KDET_FAKES_DIR")/libfakenvvm.so
src=$(realpath "$KDET_SOURCE_DIR")
[[ -f $lib ]] || { echo "scan_resume_seeds: SKIP: $lib not built"; exit 77; }
command -v python3 >/dev/null || { echo "scan_resume_seeds: SKIP: python3 (for sqlite3 queries) absent"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/m.toml" <<TOML
name = "resume-seeds"
inputs = ["$src/examples/nvvm/llvm7/*.ll"]
[option_sets]
O0 = ["-opt=0"]
O3 = ["-opt=3"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[setting]
seed = 11
[budget]
max_runs = 500
first_round = 40
TOML
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print("|".join(map(str,r))) for r in c.execute(sys.argv[2])]' "$@"; }
runs_of() { q "$1" "select job_id, idx, seed, variant, status from runs" | LC_ALL=C sort; }

timeout 300 "$KDET" scan "$tmp/m.toml" --db "$tmp/u.db" --jobs 2 -q
runs_of "$tmp/u.db" >"$tmp/uninterrupted"
total=$(wc -l <"$tmp/uninterrupted")

# Stop once with SIGINT and once with SIGTERM, each after some runs (mid-round: rounds are
# 40, 64, 64, ... runs and the stops come at counts that are not round boundaries).
stops=0
for sig_at in INT:90 TERM:330; do
  sig=${sig_at%%:*} at=${sig_at##*:}
  timeout 300 "$KDET" scan "$tmp/m.toml" --db "$tmp/i.db" --jobs 2 -q &
  pid=$!
  for _ in $(seq 1 600); do
    kill -0 $pid 2>/dev/null || break
    n=$(q "$tmp/i.db" "select count(*) from runs" 2>/dev/null || echo 0)
    ((n >= at)) && break
    sleep 0.02
  done
  kill -$sig $pid
  wait $pid && rc=0 || rc=$?
  ((rc == 130)) || { echo "scan_resume_seeds: FAIL: SIG$sig gave exit $rc, want 130 (the scan may have ended first)"; exit 1; }
  stops=$((stops + 1))
done
partial=$(q "$tmp/i.db" "select count(*) from runs")
mid=$(q "$tmp/i.db" "select count(*) from jobs where done = 0 and runs > 0 and runs not in (40, 104, 168, 232, 296, 360, 424, 488)")
timeout 300 "$KDET" scan "$tmp/m.toml" --db "$tmp/i.db" --jobs 2 -q
runs_of "$tmp/i.db" >"$tmp/resumed"

if ! cmp -s "$tmp/uninterrupted" "$tmp/resumed"; then
  echo "scan_resume_seeds: FAIL: the resumed scan's runs differ from the uninterrupted scan's:"
  diff "$tmp/uninterrupted" "$tmp/resumed" | head -10
  exit 1
fi
((mid > 0)) || echo "scan_resume_seeds: note: no job was stopped inside a round this time"
echo "scan_resume_seeds: $stops stops (SIGINT, SIGTERM; $partial runs then, $mid jobs mid-round), resumed: all $total runs match the uninterrupted scan (seed, outcome, status)"
