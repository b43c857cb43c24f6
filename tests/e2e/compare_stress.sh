#!/usr/bin/env bash
# tier: slow
# compare_stress.sh: `kdet compare --stress/--settle` on three fake compilers.
# A (libfakenvvm heaporder) varies with heap addresses under the default setting;
# B1 (echo) is deterministic; B2 (loadaddr: the address its library was loaded at)
# keeps an address dependence that its own scan's setting (one process, ASLR off)
# never shows. Expected: A -> B1 "fixed under stress" with a bound; A -> B2 "hidden"
# (never fixed), naming the regime (fresh+aslr); --settle turns B1's not-seen into
# fixed with enough runs, and a tiny --settle-budget leaves it not-seen. A changed
# input or compiler file makes the stress inconclusive, naming which.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
inputs="inputs = [\"$EX/nvvm/llvm7/*.ll\"]"
{ echo "$inputs"; nvvm_compiler nvvm heaporder; } >"$T/a.toml"
{ echo "$inputs"; nvvm_compiler nvvm echo; printf '[budget]\ntarget_rate = 0.1\n'; } >"$T/b1.toml"
{ echo "$inputs"; nvvm_compiler nvvm loadaddr
  printf '[setting]\nprocess = "same"\naslr = "off"\n[budget]\ntarget_rate = 0.1\n'; } >"$T/b2.toml"
"$KDET" scan "$T/a.toml" --db "$T/a.db" -q || true
"$KDET" scan "$T/b1.toml" --db "$T/b1.db" -q
"$KDET" scan "$T/b2.toml" --db "$T/b2.db" -q

# field FILE.json EXPR: a Python expression over the document d
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
labels='" ".join(f"{k}={v}" for k, v in sorted(d["counts"].items()) if v)'
outcomes='" ".join(sorted(set(p.get("stress", {}).get("outcome", "-") for p in d["pairs"])))'

# Without more runs B2 looks exactly like B1: not-seen everywhere.
"$KDET" compare "$T/a.db" "$T/b2.db" --json "$T/plain.json" >/dev/null
expect_eq "A -> B2 without stress" "$(field "$T/plain.json" "$labels")" "not-seen=4"

"$KDET" compare "$T/a.db" "$T/b1.db" --stress --json "$T/s1.json" >"$T/s1.txt" 2>"$T/s1.err" \
  && rc=0 || rc=$?
expect_eq "A -> B1 --stress: exit" "$rc" 0
expect_eq "A -> B1 --stress: outcomes" "$(field "$T/s1.json" "$outcomes")" "fixed under stress"
expect_eq "A -> B1: every job stressed, bound below 10%" \
  "$(field "$T/s1.json" '[d["answers"]["stress"][k] for k in ("jobs","fixed","hidden")], all(p["stress"]["upper_bound"] < 0.1 for p in d["pairs"])')" \
  "[4, 4, 0] True"
grep -q "fixed under stress: one output in [0-9]* runs over every regime, rate < " "$T/s1.txt" \
  || fail "no stress evidence in the text report"
grep -q "runs on B (0 --settle, [1-9][0-9]* --stress)" "$T/s1.err" || fail "no cost line"

# B2 was hiding the bug: the gate fails (exit 1), though B2's own scan saw one output.
"$KDET" compare "$T/a.db" "$T/b2.db" --settle --stress --json "$T/s2.json" >"$T/s2.txt" 2>/dev/null \
  && rc=0 || rc=$?
expect_eq "A -> B2 --stress: exit" "$rc" 1
expect_eq "A -> B2 --stress: outcomes" "$(field "$T/s2.json" "$outcomes")" "hidden"
expect_eq "A -> B2 --stress: never fixed" "$(field "$T/s2.json" "$labels")" "nondeterministic-both=4"
expect_eq "A -> B2: the regime that brought it out" \
  "$(field "$T/s2.json" 'd["answers"]["stress"]["hidden_by_regime"]')" "{'fresh+aslr': 4}"
grep -Eq "hidden: varies under stress \(fresh\+aslr: another output after [0-9]+ runs?\)" "$T/s2.txt" \
  || fail "no hidden evidence in the text report"
grep -q "does B vary?  yes: in 4 of 4 jobs" "$T/s2.txt" || fail "answers ignore the stress runs"

# --settle: B1's 29 stored runs bound its rate at ~10%, not 10x below A's 50%; more runs do.
"$KDET" compare "$T/a.db" "$T/b1.db" --settle --json "$T/t1.json" >/dev/null 2>&1
expect_eq "A -> B1 --settle" "$(field "$T/t1.json" "$labels")" "fixed=4"
expect_eq "A -> B1 --settle: runs added, bound" \
  "$(field "$T/t1.json" 'all(p["settle_runs"] > 0 and p["b_upper_bound"] * 10 <= p["a_rate"] for p in d["pairs"])')" True
"$KDET" compare "$T/a.db" "$T/b1.db" --settle --settle-budget 30 --json "$T/t2.json" >/dev/null 2>&1
expect_eq "A -> B1 --settle-budget 30" "$(field "$T/t2.json" "$labels")" "not-seen=4"

# A sample of the jobs A never varied on is stressed too: B1 against itself.
"$KDET" compare "$T/b1.db" "$T/b1.db" --stress --stress-sample 2 --json "$T/q.json" >/dev/null 2>&1
expect_eq "sampled jobs" "$(field "$T/q.json" 'sum(p.get("stress", {}).get("sampled", False) for p in d["pairs"])')" 2
# B2's own scan saw one output; stressed against itself the sample is hidden: regressed, exit 1.
"$KDET" compare "$T/b2.db" "$T/b2.db" --stress --stress-sample 1 --json "$T/r.json" >/dev/null 2>&1 \
  && rc=0 || rc=$?
expect_eq "B2 sample under stress: exit" "$rc" 1
expect_eq "B2 sample under stress" "$(field "$T/r.json" "$labels")" "identical=3 regressed=1"

# The same step inside a scan of several compilers: the first against each other one.
{ echo "$inputs"; nvvm_compiler a heaporder; nvvm_compiler b echo; } >"$T/two.toml"
"$KDET" scan "$T/two.toml" --db "$T/two.db" --stress --json "$T/two.json" >"$T/two.txt" 2>&1 \
  && rc=0 || rc=$?
expect_eq "scan --stress: exit (a varies unexpectedly)" "$rc" 1
expect_eq "scan --stress: outcomes" \
  "$(field "$T/two.json" '" ".join(sorted(set(p["stress"]["outcome"] for p in d["comparisons"][0]["pairs"])))')" \
  "fixed under stress"
grep -q "under stress (4 jobs re-run on B): 4 fixed under stress" "$T/two.txt" \
  || fail "scan --stress: no stress line in the summary"

# Bad option values are refused, naming the option.
"$KDET" compare "$T/a.db" "$T/b1.db" --settle --settle-budget 0 2>"$T/err" && rc=0 || rc=$?
expect_eq "--settle-budget 0: exit" "$rc" 2
grep -q -- "--settle-budget" "$T/err" || fail "the error does not name --settle-budget"
# An input changed since B's scan: that job is not re-run, so inconclusive, never fixed.
mkdir "$T/in" && cp "$EX"/nvvm/llvm7/*.ll "$T/in/"
{ echo "inputs = [\"$T/in/*.ll\"]"; nvvm_compiler nvvm heaporder; } >"$T/a3.toml"
{ echo "inputs = [\"$T/in/*.ll\"]"; nvvm_compiler nvvm echo; } >"$T/b3.toml"
"$KDET" scan "$T/a3.toml" --db "$T/a3.db" -q || true
"$KDET" scan "$T/b3.toml" --db "$T/b3.db" -q
echo "; changed" >>"$T/in/saxpy.ll"
"$KDET" compare "$T/a3.db" "$T/b3.db" --stress --json "$T/u.json" >/dev/null 2>&1 || true
expect_eq "changed input: outcomes" "$(field "$T/u.json" "$outcomes")" "fixed under stress inconclusive"
expect_eq "changed input: why" \
  "$(field "$T/u.json" '[p["stress"]["reason"] for p in d["pairs"] if p["stress"]["outcome"] == "inconclusive"][0].endswith("changed since the scan")')" True
# B's compiler file changed since its scan (its jobs have new ids): inconclusive, saying so.
cp "$FAKES/libfakenvvm.so" "$T/copy.so"
{ echo "$inputs"; nvvm_compiler nvvm echo "$T/copy.so"; printf '[budget]\nmax_runs = 2\n'; } >"$T/b4.toml"
"$KDET" scan "$T/b4.toml" --db "$T/b4.db" -q
printf 'x' >>"$T/copy.so"
"$KDET" compare "$T/a.db" "$T/b4.db" --stress --json "$T/v.json" >/dev/null 2>&1 || true
expect_eq "changed compiler: why" \
  "$(field "$T/v.json" 'all("compiler nvvm changed since the scan" in p["stress"]["reason"] for p in d["pairs"])')" True
# B failed on every run: no output, so no bound is claimed for it.
{ echo "$inputs"; nvvm_compiler nvvm fail; printf '[budget]\nmax_runs = 2\n'; } >"$T/b5.toml"
"$KDET" scan "$T/b5.toml" --db "$T/b5.db" -q || true
"$KDET" compare "$T/a.db" "$T/b5.db" --color never >"$T/f.txt" 2>&1 && rc=0 || rc=$?
expect_eq "B failed on every run: exit" "$rc" 3
grep -q "does B vary?  not seen in 4 jobs (none with one output; 4 failed on every run)" "$T/f.txt" \
  || fail "a B that always failed is given a rate bound"
# An input edited between A's scan and B's: B compiled other bytes, so --settle may spend B's
# runs but never calls that job fixed (the unedited ones are); the pair says why.
{ echo "inputs = [\"$T/in/*.ll\"]"; nvvm_compiler nvvm echo; printf '[budget]\ntarget_rate = 0.1\n'; } >"$T/b6.toml"
"$KDET" scan "$T/b6.toml" --db "$T/b6.db" -q
"$KDET" compare "$T/a3.db" "$T/b6.db" --settle --json "$T/e.json" >"$T/e.txt" 2>&1 || { cat "$T/e.txt"; fail "compare --settle of an edited input failed"; }
expect_eq "edited input: labels" \
  "$(field "$T/e.json" '" ".join(sorted(p["key"].split()[0].split("/")[-1] + "=" + p["label"] + ("+differs" if p.get("input_differs") else "") for p in d["pairs"]))')" \
  "$(cd "$T/in" && for f in *.ll; do [[ $f == saxpy.ll ]] && printf '%s=not-seen+differs ' "$f" || printf '%s=fixed ' "$f"; done | xargs -n1 | sort | xargs)"
grep -q "the input changed between A's scan and B's, so B's one output is no fix" "$T/e.txt" || { cat "$T/e.txt"; fail "no reason given for the edited input"; }

# Another user's database: --settle and --stress would run the compilers and commands its stored
# manifest names, so they are refused (exit 2, naming it); a plain compare still reads it.
if ((EUID == 0)); then
  cp "$T/b1.db" "$T/other.db"
  chown 65534 "$T/other.db"
  expect_exit 2 "$KDET" compare "$T/a.db" "$T/other.db" --settle
  expect_output "other.db: belongs to uid 65534, not to this user \\(uid 0\\)"
  expect_exit 2 "$KDET" compare "$T/a.db" "$T/other.db" --stress
  expect_exit 0 "$KDET" compare "$T/a.db" "$T/other.db"
else
  echo "$NAME: not root: the other user's database case is not run"
fi
echo "$NAME: PASS"
