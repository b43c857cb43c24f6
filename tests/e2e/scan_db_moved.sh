#!/usr/bin/env bash
# tier: quick
# A scan database renamed while a scan writes it. SQLite keeps the WAL, which holds the runs
# written since the open, by the old name, so:
#  - the running scan stops at its next write with exit 2, naming the move, and does not
#    report a success it did not store;
#  - a second scan on the old name refuses to make a new database there (the WAL beside it is
#    the first one's) and removes nothing;
#  - the WAL is kept: once the file is put back, a resume reaches the very runs of a scan never
#    moved (job, index, seed, variant, status).
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd sqlite3 "the sqlite3 shell"
cd "$T"

# wait_for_runs DB N: until the running scan has stored N runs in DB (30 s at most).
wait_for_runs() {
  local n=0
  for _ in $(seq 1 600); do
    n=$(sql "$1" "select count(*) from runs" 2>/dev/null || echo 0)
    ((n >= $2)) && return 0
    sleep 0.05
  done
  fail "the scan stored $n runs in $1 in 30 s, not $2"
}

{
  printf 'name = "moved"\ninputs = ["%s/nvvm/llvm7/*.ll"]\n' "$EX"
  nvvm_compiler fake slow
  printf '[setting]\nseed = 3\nunnamed = "natural"\nprocess = "same"\n[budget]\nmax_runs = 60\nfirst_round = 4\n'
} >m.toml
expect_exit 0 "$KDET" scan m.toml --db ref.db --jobs 1 -q
scan_runs ref.db >ref.txt

"$KDET" scan m.toml --db a.db --jobs 1 -q >a.out 2>&1 &
first=$!
wait_for_runs a.db 8
mv a.db moved.db
[[ -e a.db-wal ]] || fail "no WAL beside the old name while the scan runs"
expect_exit 2 "$KDET" scan m.toml --db a.db -q
expect_output "database a.db: it is new, but a.db-wal is beside it"
[[ -e a.db-wal && ! -e a.db ]] || fail "the refused scan removed the WAL or left a file: $(ls)"
wait "$first" && rc=0 || rc=$?
[[ $rc == 2 ]] || { cat a.out; fail "the moved scan exited $rc, not 2"; }
grep -q "database a.db: was moved or removed while this scan wrote it" a.out || { cat a.out; fail "the move is not named"; }
[[ $(grep -c "kdet: error:" a.out) == 1 ]] || { cat a.out; fail "the error is not said once"; }
[[ -e a.db-wal ]] || fail "the WAL went with the moved scan's close"
mv moved.db a.db
expect_exit 0 "$KDET" scan m.toml --db a.db --jobs 1 -q
scan_runs a.db | cmp -s - ref.txt || fail "the resumed database holds other runs than a scan never moved"

# Another database renamed onto the name: it must never replay the scan's WAL as its own. The
# scan stops naming the replacement and sets its WAL aside; put back, both resume.
sqlite3 user.db "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(42)" >/dev/null
"$KDET" scan m.toml --db b.db --jobs 1 -q >b.out 2>&1 &
first=$!
wait_for_runs b.db 8
# One rename replaces the name (the scan's file stays reachable as scan-b.db): two renames would
# let the scan see the name missing in between and report a move instead.
ln b.db scan-b.db
mv user.db b.db
wait "$first" && rc=0 || rc=$?
[[ $rc == 2 ]] || { cat b.out; fail "the replaced scan exited $rc, not 2"; }
grep -q "database b.db: was replaced by another file" b.out || { cat b.out; fail "the replacement is not named"; }
[[ $(sqlite3 b.db "SELECT x FROM t") == 42 ]] || fail "the file put in the scan's place read the scan's WAL"
wal=$(ls b.db-wal.kdet-* 2>/dev/null | head -1)
[[ -n $wal ]] || fail "the scan's WAL was not set aside: $(ls)"
mv b.db user.db
mv scan-b.db b.db
mv "$wal" b.db-wal
rm -f b.db-shm
expect_exit 0 "$KDET" scan m.toml --db b.db --jobs 1 -q
scan_runs b.db | cmp -s - ref.txt || fail "the scan put back holds other runs than a scan never moved"
echo "$NAME: ok"
