#!/usr/bin/env bash
# tier: quick
# A scan database changed behind kdet is refused as unsound, exit 2 naming the file, by a resume,
# a report and compare; never reported from: negative or huge run counts or times, more
# successful runs than runs, deleted or altered variants, runs that disagree with their job or
# variant, deleted artifacts, blobs, compilers or inputs, bytes that are not their hash's,
# stored numbers and settings kdet never writes, an input hash that is not the job id's. The
# sound original still resumes.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
need_cmd sqlite3 "the sqlite3 shell"
cd "$T"
cp "$EX/nvvm/llvm7/saxpy.ll" a.ll
cat >m.toml <<TOML
name = "unsound"
inputs = ["*.ll"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$FAKES/libfakenvvm.so"
[budget]
max_runs = 4
first_round = 2
TOML
expect_exit 0 "$KDET" scan m.toml --db db -q
for q in "UPDATE jobs SET runs=-5" "UPDATE jobs SET runs=999999999999999" "UPDATE jobs SET ok_runs=runs+3" \
  "DELETE FROM variants" "UPDATE variants SET count=count+1" "UPDATE variants SET count=-3" \
  "DELETE FROM blobs" "DELETE FROM variant_artifacts" \
  "UPDATE jobs SET seconds=-1e308" "DELETE FROM runs" "UPDATE runs SET variant='deadbeef'" \
  "UPDATE runs SET status='crashed'" "UPDATE runs SET idx=idx+1000" "UPDATE variants SET status='weird'" \
  "UPDATE jobs SET seconds=1e300" "UPDATE jobs SET seconds='abc'" "UPDATE jobs SET seconds=NULL" \
  "UPDATE jobs SET done=2" "UPDATE jobs SET seed='x'" \
  "UPDATE variants SET first_run=1000" "UPDATE variant_artifacts SET size=999999999999999"; do
  cp db bad.db
  sqlite3 bad.db "$q"
  expect_exit 2 "$KDET" scan m.toml --db bad.db -q
  expect_output "database bad.db: job [0-9a-f]+ .*not a sound scan database"
  expect_exit 2 "$KDET" compare db bad.db
  expect_output "bad.db.*not a sound scan database"
done
expect_exit 0 "$KDET" scan m.toml --db db -q
# Stored numbers and settings kdet never writes, compilers, inputs or the meta deleted, a flag out
# of range (a resume plans those rows and flags again from the manifest; a report or a compare
# must not read them); a job whose input hash is not its id's.
for q in "UPDATE meta SET value='-1' WHERE key='budget'" "UPDATE meta SET value='garbage' WHERE key='setting'" \
  "DELETE FROM compilers" "DELETE FROM inputs" "DELETE FROM meta" "UPDATE jobs SET expected_vary=7"; do
  cp db bad.db
  sqlite3 bad.db "$q"
  expect_exit 2 "$KDET" scan --report bad.db -q
  expect_output "database bad.db: .*not a sound scan database"
  expect_exit 2 "$KDET" compare db bad.db
  expect_output "bad.db.*not a sound scan database"
done
cp db bad.db
sqlite3 bad.db "UPDATE jobs SET input_hash='00000000000000000000000000000000'"
expect_exit 2 "$KDET" scan m.toml --db bad.db -q
expect_output "bad.db: unsound scan database: job [0-9a-f]+ .*holds input hash 000000000000"
# Bytes of an artifact changed behind kdet are refused where they would be shown: the diff of a
# varying job's variants in the HTML report.
sed 's/^lib = .*/&\noptions = ["-fake-mode=garbage"]/' m.toml >vary.toml
expect_exit 1 "$KDET" scan vary.toml --db vary.db -q
expect_exit 1 "$KDET" scan --report vary.db -q --report-html "$T/r.html"
sqlite3 vary.db "UPDATE blobs SET data=X'00'"
expect_exit 2 "$KDET" scan --report vary.db -q --report-html "$T/r.html"
expect_output "database vary.db: the bytes stored for artifact [0-9a-f]+ are not the bytes of that hash"
# A failed merge leaves no output file, and an existing output as it was: every input is merged
# beside it first, so the one refused (garbage, unsound, absent, of another manifest) is named.
echo garbage >garbage.db
cp db bad.db
sqlite3 bad.db "UPDATE jobs SET runs=-5"
sed 's/max_runs = 4/max_runs = 6/' m.toml >other.toml
expect_exit 0 "$KDET" scan other.toml --db other.db -q
for in in garbage.db bad.db absent.db other.db; do
  rm -f out.db
  expect_exit 2 "$KDET" merge out.db db "$in" -q
  expect_output "$in"
  [[ ! -e out.db ]] || fail "merge of $in failed and left out.db"
  [[ -z $(ls | grep kdet-merge) ]] || fail "merge of $in left its work file: $(ls)"
done
expect_exit 0 "$KDET" merge out.db db -q
sqlite3 out.db "SELECT id, runs, ok_runs FROM jobs ORDER BY id" >before.txt
for in in garbage.db bad.db other.db; do
  expect_exit 2 "$KDET" merge out.db "$in" -q
  expect_output "$in"
  sqlite3 out.db "SELECT id, runs, ok_runs FROM jobs ORDER BY id" | cmp -s - before.txt ||
    fail "a failed merge of $in changed out.db"
done
echo "$NAME: ok"
