#!/usr/bin/env bash
# tier: quick
# A scan database whose counts were changed behind kdet (negative or huge run counts, more
# successful runs than runs, deleted or altered variants, deleted artifacts or their blobs) is refused as unsound, exit 2 naming
# the file, by a resume and by compare; never reported from. The sound original still resumes.
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
  "DELETE FROM blobs" "DELETE FROM variant_artifacts"; do
  cp db bad.db
  sqlite3 bad.db "$q"
  expect_exit 2 "$KDET" scan m.toml --db bad.db -q
  expect_output "database bad.db: job [0-9a-f]+ .*not a sound scan database"
  expect_exit 2 "$KDET" compare db bad.db
  expect_output "bad.db.*not a sound scan database"
done
expect_exit 0 "$KDET" scan m.toml --db db -q
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
