#!/usr/bin/env bash
# tier: quick
# kdet scan --max-runs and --target-rate size a scan from the command line, over the manifest's
# [budget], and the start line says how many runs are planned before any runs.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
{ echo "inputs = [\"$EX/nvvm/llvm7/saxpy.ll\", \"$EX/nvvm/llvm7/row_softmax.ll\"]"; nvvm_compiler nvvm echo
  printf '[setting]\nprocess = "same"\n[budget]\nmax_runs = 50\n'; } >"$T/m.toml"
runs='sorted(set(j["runs"] for j in d["jobs"]))'

"$KDET" scan "$T/m.toml" --db "$T/a.db" --max-runs 7 --json "$T/a.json" 2>"$T/a.err" >/dev/null
expect_eq "--max-runs 7 over the manifest's 50" "$(json_eval "$T/a.json" "$runs")" "[7]"
grep -q "at most 14 runs planned" "$T/a.err" || fail "no planned runs line: $(cat "$T/a.err")"

# --target-rate alone: the runs that bound the rate below 10% (29), not the manifest's max_runs.
"$KDET" scan "$T/m.toml" --db "$T/b.db" --target-rate 0.1 --json "$T/b.json" -q >/dev/null
expect_eq "--target-rate 0.1" "$(json_eval "$T/b.json" "$runs")" "[29]"

# Without either, the manifest's budget.
"$KDET" scan "$T/m.toml" --db "$T/c.db" --json "$T/c.json" -q >/dev/null
expect_eq "the manifest's max_runs" "$(json_eval "$T/c.json" "$runs")" "[50]"

expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/d.db" --target-rate 0.9
expect_output "--target-rate"
[[ ! -e $T/d.db ]] || fail "a refused option left a database"
# A number that is none (nan, inf) is refused as the option's, before any database is written
# (CLI11's Range lets NaN through: every comparison with it is false).
for bad in nan inf -inf; do
  expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/n.db" --target-rate "$bad"
  expect_output "--target-rate"
  [[ ! -e $T/n.db ]] || fail "--target-rate $bad left a database"
done
expect_exit 2 "$KDET" capture --out "$T/cap" --wait-children nan -- true
expect_output "--wait-children"
echo OK
