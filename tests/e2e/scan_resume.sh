#!/usr/bin/env bash
# scan_resume.sh: a scan killed with SIGKILL and started again resumes and
# loses no committed run: every run row stored before the kill is still there,
# unchanged, and every job finishes with exactly its budget of runs. A SIGINT
# gives exit 130 and is resumable too.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
set -euo pipefail
trap 'echo "scan_resume: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_FAKES_DIR:?}" "${KDET_SOURCE_DIR:?}"
lib=$(realpath "$KDET_FAKES_DIR")/libfakenvvm.so
src=$(realpath "$KDET_SOURCE_DIR")
[[ -f $lib ]] || { echo "scan_resume: SKIP: $lib not built"; exit 77; }
command -v python3 >/dev/null || { echo "scan_resume: SKIP: python3 (for sqlite3 queries) absent"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/m.toml" <<TOML
name = "resume"
inputs = ["$src/examples/nvvm/llvm7/*.ll"]
[option_sets]
O0 = ["-opt=0"]
O3 = ["-opt=3"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[setting]
seed = 5
[budget]
max_runs = 1500
first_round = 40
TOML
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print("|".join(map(str,r))) for r in c.execute(sys.argv[2])]' "$@"; }

"$KDET" scan "$tmp/m.toml" --db "$tmp/r.db" --jobs 2 -q &
pid=$!
n=0
for _ in $(seq 1 300); do
  kill -0 $pid 2>/dev/null || break
  n=$(q "$tmp/r.db" "select count(*) from runs" 2>/dev/null || echo 0)
  ((n >= 200)) && break
  sleep 0.05
done
kill -KILL $pid
wait $pid && rc=0 || rc=$?
((rc == 137)) || { echo "scan_resume: FAIL: the scan ended (rc $rc) before it could be killed; make it longer"; exit 1; }
q "$tmp/r.db" "select job_id, idx, variant, seed, status from runs" | LC_ALL=C sort >"$tmp/before"
before=$(wc -l <"$tmp/before")
done_before=$(q "$tmp/r.db" "select count(*) from jobs where done=1")
((before > 0)) || { echo "scan_resume: FAIL: nothing committed before the kill"; exit 1; }

"$KDET" scan "$tmp/m.toml" --db "$tmp/r.db" --jobs 2 --json "$tmp/out.json" -q && rc=0 || rc=$?
((rc == 0)) || { echo "scan_resume: FAIL: resumed scan exited $rc"; exit 1; }
q "$tmp/r.db" "select job_id, idx, variant, seed, status from runs" | LC_ALL=C sort >"$tmp/after"
lost=$(LC_ALL=C comm -23 "$tmp/before" "$tmp/after" | wc -l)
((lost == 0)) || { echo "scan_resume: FAIL: $lost committed runs lost or changed by the resume"; exit 1; }
bad=$(q "$tmp/r.db" "select count(*) from jobs j where done != 1 or runs != 1500 or runs != (select count(*) from runs r where r.job_id = j.id) or (select min(idx) from runs r where r.job_id=j.id) != 0 or (select max(idx) from runs r where r.job_id=j.id) != 1499")
((bad == 0)) || { echo "scan_resume: FAIL: $bad jobs are not exactly 1500 runs numbered 0..1499"; exit 1; }
jobs=$(q "$tmp/r.db" "select count(*) from jobs")

# SIGINT: exit 130, and the next invocation finishes it.
"$KDET" scan "$tmp/m.toml" --db "$tmp/i.db" --jobs 2 -q &
pid=$!
for _ in $(seq 1 300); do
  kill -0 $pid 2>/dev/null || break
  n=$(q "$tmp/i.db" "select count(*) from runs" 2>/dev/null || echo 0)
  ((n >= 100)) && break
  sleep 0.05
done
kill -INT $pid
wait $pid && rc=0 || rc=$?
((rc == 130)) || { echo "scan_resume: FAIL: SIGINT gave exit $rc, want 130"; exit 1; }
"$KDET" scan "$tmp/m.toml" --db "$tmp/i.db" --jobs 2 -q
echo "scan_resume: killed with $before runs committed ($done_before of $jobs jobs done); resumed: none lost, all $jobs jobs have 1500 runs; SIGINT -> 130 and resumable"
