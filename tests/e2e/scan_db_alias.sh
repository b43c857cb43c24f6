#!/usr/bin/env bash
# tier: quick
# scan_db_alias.sh: one writer per scan database by identity, not by name. While a
# scan writes $T/r.db, a second `kdet scan` or `kdet merge` reaching the same file
# through another name (a hardlink, a symlink, "./" and ".." spellings, a bind mount
# in a private mount namespace when permitted) exits 2 naming the file it was given
# and the pid that holds it. `kdet merge` refuses an input that is its output by another
# name. The first scan's database stays sound (runs table equal to the job counts).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
lib=$(realpath "${KDET_FAKES_DIR:-/nonexistent}")/libfakenvvm.so
[[ -f $lib ]] || skip "$lib not built"
cat >"$T/m.toml" <<TOML
name = "alias"
inputs = ["$EX/nvvm/llvm7/*.ll"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[setting]
seed = 5
[budget]
max_runs = 400
first_round = 20
TOML
mkdir "$T/d" "$T/d/sub" "$T/bind"
db=$T/d/r.db
"$KDET" scan "$T/m.toml" --db "$db" --jobs 1 -q >"$T/first.out" 2>&1 &
first=$!
for _ in $(seq 1 300); do flock_held "$db" && break; sleep 0.02; done
flock_held "$db" || { cat "$T/first.out"; fail "the first scan never took its lock"; }
ln "$db" "$T/hard.db"
ln -s "$db" "$T/sym.db"
ln -s d/r.db "$T/relsym.db"
refused=0
for alias in "$T/hard.db" "$T/sym.db" "$T/relsym.db" "$T/d/./sub/../r.db" "$T/d//r.db"; do
  expect_exit 2 "$KDET" scan "$T/m.toml" --db "$alias" -q
  expect_output "database $alias: in use by pid $first"
  refused=$((refused + 1))
done
expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/hard.db" -q
expect_output "which writes it as $db"
expect_exit 2 "$KDET" merge "$T/hard.db" "$T/none.db"
expect_output "database $T/hard.db: in use by pid $first"
refused=$((refused + 2))
# A bind mount of the folder, in a mount namespace of this test's own (nothing of the host is mounted).
if unshare -m true 2>/dev/null; then
  set +e
  unshare -m sh -c 'mount --bind "$1/d" "$1/bind" && exec "$2" scan "$3" --db "$1/bind/r.db" -q' sh "$T" "$KDET" "$T/m.toml" >"$T/out" 2>&1
  rc=$?
  set -e
  [[ $rc == 2 ]] || { cat "$T/out"; fail "bind mount: exit $rc, not 2"; }
  expect_output "database $T/bind/r.db: in use by pid $first"
  refused=$((refused + 1))
else
  echo "scan_db_alias: note: unshare -m not permitted here; bind-mount check skipped"
fi
wait "$first" && rc=0 || rc=$?
((rc == 0 || rc == 1)) || { cat "$T/first.out"; fail "the first scan ended with $rc"; }
runs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$db")
jobs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select sum(runs) from jobs").fetchone()[0])' "$db")
[[ $runs == "$jobs" ]] || fail "runs table ($runs) and job counts ($jobs) disagree"
expect_exit "$rc" "$KDET" scan --report "$T/hard.db" -q
# merge: an input that is the output under another name.
expect_exit 2 "$KDET" merge "$db" "$T/hard.db"
expect_output "both output and input"
expect_exit 2 "$KDET" merge "$T/sym.db" "$db"
expect_output "both output and input"
[[ ! -e $db.lock && ! -e $T/hard.db.lock ]] || fail "a lock file was left beside the database"
echo "scan_db_alias: PASS ($refused second writers refused)"
