#!/usr/bin/env bash
# tier: quick threads
# scan_db_lock.sh: one writer per scan database, read-only readers, and no
# unsound database read as sound.
#  1. A second `kdet scan` on a --db in use exits 2 with "in use by pid N" (N the first scan's pid);
#     so does a `kdet merge` into it. The first scan finishes unharmed. (Other names of one
#     database: scan_db_alias.sh.)
#  2. `scan --report`, `compare` and `merge` (its inputs) work on a database whose file and folder
#     are read-only (made read-only with chattr +i when root can; else skipped visibly).
#  3. Garbage, truncated and bit-flipped databases: exit 2 naming the file, never 0/1 or 70.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
lib=$(realpath "${KDET_FAKES_DIR:-/nonexistent}")/libfakenvvm.so
[[ -f $lib ]] || skip "$lib not built"
cat >"$T/m.toml" <<TOML
name = "lock"
inputs = ["$EX/nvvm/llvm7/*.ll"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[setting]
seed = 3
[budget]
max_runs = 400
first_round = 20
TOML

# 1. Two writers.
"$KDET" scan "$T/m.toml" --db "$T/r.db" --jobs 1 -q >"$T/first.out" 2>&1 &
first=$!
# The lock is an flock on the database file itself: wait until it is taken.
for _ in $(seq 1 200); do flock_held "$T/r.db" && break; sleep 0.02; done
flock_held "$T/r.db" || { cat "$T/first.out"; fail "the first scan never took its lock"; }
expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/r.db" -q
expect_output "in use by pid $first"
expect_exit 2 "$KDET" merge "$T/r.db" "$T/other.db"
expect_output "in use by pid $first"
wait "$first" && rc=0 || rc=$?
((rc == 0 || rc == 1)) || { cat "$T/first.out"; fail "the first scan ended with $rc"; }
expect_exit "$rc" "$KDET" scan --report "$T/r.db" -q
runs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$T/r.db")
jobs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*), sum(runs) from jobs").fetchone()[1])' "$T/r.db")
[[ $runs == "$jobs" ]] || fail "runs table ($runs) and job counts ($jobs) disagree"

# 2. Read-only database and folder.
mkdir "$T/ro" && cp "$T/r.db" "$T/ro/r.db" && cp "$T/r.db" "$T/ro/s.db"
if chattr +i "$T/ro/r.db" "$T/ro/s.db" "$T/ro" 2>/dev/null; then
  on_exit 'chattr -i "$T/ro" "$T/ro/r.db" "$T/ro/s.db" 2>/dev/null'
  expect_exit "$rc" "$KDET" scan --report "$T/ro/r.db" --json "$T/report.json"
  json_get "$T/report.json" '["schema"]' >/dev/null
  "$KDET" compare "$T/ro/r.db" "$T/ro/s.db" >"$T/out" 2>&1 || { r=$?; ((r <= 1)) || { cat "$T/out"; fail "compare of read-only databases: exit $r"; }; }
  "$KDET" merge "$T/merged.db" "$T/ro/r.db" "$T/ro/s.db" -q >"$T/out" 2>&1 || { r=$?; ((r <= 1)) || { cat "$T/out"; fail "merge from read-only databases: exit $r"; }; }
  chattr -i "$T/ro" "$T/ro/r.db" "$T/ro/s.db"
else
  echo "scan_db_lock: note: chattr +i not permitted here; read-only checks skipped"
fi

# 3. Unsound databases.
head -c 4096 /dev/urandom >"$T/garbage.db"
head -c 3000 "$T/r.db" >"$T/truncated.db"
cp "$T/r.db" "$T/flipped.db"
size=$(stat -c %s "$T/flipped.db")
python3 - "$T/flipped.db" "$size" <<'PY'
import sys
p, n = sys.argv[1], int(sys.argv[2])
with open(p, 'r+b') as f:
    for off in range(4096 + 100, n, 997):   # past page 1's header: every later page gets hit
        f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5a]))
PY
printf 'SQLite format 3\0' >"$T/header_only.db"
bad=0
for db in garbage truncated flipped header_only; do
  set +e
  "$KDET" scan --report "$T/$db.db" -q >"$T/out" 2>&1
  got=$?
  set -e
  if [[ $got != 2 ]] || ! grep -q "$T/$db.db" "$T/out"; then
    cat "$T/out" >&2
    echo "scan_db_lock: $db.db gave exit $got" >&2
    bad=$((bad + 1))
  fi
  [[ ! -e $T/$db.db.lock ]] || fail "a read-only open made a lock file beside $db.db"
done
((bad == 0)) || fail "$bad unsound databases were not refused with exit 2"
echo "scan_db_lock: PASS"
