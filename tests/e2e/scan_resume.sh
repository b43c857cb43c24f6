#!/usr/bin/env bash
# tier: slow
# scan_resume.sh: a scan killed with SIGKILL and started again resumes and
# loses no committed run: every run row stored before the kill is still there,
# unchanged, and every job finishes with exactly its budget of runs. A SIGINT
# gives exit 130 and is resumable too.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd python3 "for sqlite3 queries"
resume_manifest resume 5 1500 >"$T/m.toml"
rows() { sql "$1" "select job_id, idx, variant, seed, status from runs" | LC_ALL=C sort; }

"$KDET" scan "$T/m.toml" --db "$T/r.db" --jobs 2 -q &
stop_scan_at $! "$T/r.db" 200 KILL
((rc == 137)) || fail "the scan ended (rc $rc) before it could be killed; make it longer"
rows "$T/r.db" >"$T/before"
before=$(wc -l <"$T/before")
done_before=$(sql "$T/r.db" "select count(*) from jobs where done=1")
((before > 0)) || fail "nothing committed before the kill"

"$KDET" scan "$T/m.toml" --db "$T/r.db" --jobs 2 --json "$T/out.json" -q && rc=0 || rc=$?
((rc == 0)) || fail "resumed scan exited $rc"
rows "$T/r.db" >"$T/after"
lost=$(LC_ALL=C comm -23 "$T/before" "$T/after" | wc -l)
((lost == 0)) || fail "$lost committed runs lost or changed by the resume"
bad=$(sql "$T/r.db" "select count(*) from jobs j where done != 1 or runs != 1500 or runs != (select count(*) from runs r where r.job_id = j.id) or (select min(idx) from runs r where r.job_id=j.id) != 0 or (select max(idx) from runs r where r.job_id=j.id) != 1499")
((bad == 0)) || fail "$bad jobs are not exactly 1500 runs numbered 0..1499"
jobs=$(sql "$T/r.db" "select count(*) from jobs")

# SIGINT: exit 130, and the next invocation finishes it.
"$KDET" scan "$T/m.toml" --db "$T/i.db" --jobs 2 -q &
stop_scan_at $! "$T/i.db" 100 INT
((rc == 130)) || fail "SIGINT gave exit $rc, want 130"
"$KDET" scan "$T/m.toml" --db "$T/i.db" --jobs 2 -q
echo "scan_resume: killed with $before runs committed ($done_before of $jobs jobs done); resumed: none lost, all $jobs jobs have 1500 runs; SIGINT -> 130 and resumable"
