#!/usr/bin/env bash
# tier: slow
# scan_resume_seeds.sh: a scan stopped by SIGINT and then by SIGTERM in the
# middle of rounds, and resumed each time, ends with exactly the runs of an
# uninterrupted scan of the same manifest and seed: every run (job, index)
# has the same seed, outcome and status (docs/SCAN.md promises it).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd python3 "for sqlite3 queries"
resume_manifest resume-seeds 11 500 >"$T/m.toml"

timeout 300 "$KDET" scan "$T/m.toml" --db "$T/u.db" --jobs 2 -q
scan_runs "$T/u.db" >"$T/uninterrupted"
total=$(wc -l <"$T/uninterrupted")

# Stop once with SIGINT and once with SIGTERM, each after some runs (mid-round: rounds are
# 40, 64, 64, ... runs and the stops come at counts that are not round boundaries).
stops=0
for sig_at in INT:90 TERM:330; do
  sig=${sig_at%%:*} at=${sig_at##*:}
  timeout 300 "$KDET" scan "$T/m.toml" --db "$T/i.db" --jobs 2 -q &
  stop_scan_at $! "$T/i.db" "$at" "$sig" 0.02
  ((rc == 130)) || fail "SIG$sig gave exit $rc, want 130 (the scan may have ended first)"
  stops=$((stops + 1))
done
partial=$(sql "$T/i.db" "select count(*) from runs")
mid=$(sql "$T/i.db" "select count(*) from jobs where done = 0 and runs > 0 and runs not in (40, 104, 168, 232, 296, 360, 424, 488)")
timeout 300 "$KDET" scan "$T/m.toml" --db "$T/i.db" --jobs 2 -q
scan_runs "$T/i.db" >"$T/resumed"

if ! cmp -s "$T/uninterrupted" "$T/resumed"; then
  diff "$T/uninterrupted" "$T/resumed" | head -10
  fail "the resumed scan's runs differ from the uninterrupted scan's (above)"
fi
((mid > 0)) || echo "scan_resume_seeds: note: no job was stopped inside a round this time"
echo "scan_resume_seeds: $stops stops (SIGINT, SIGTERM; $partial runs then, $mid jobs mid-round), resumed: all $total runs match the uninterrupted scan (seed, outcome, status)"
