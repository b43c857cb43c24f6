#!/usr/bin/env bash
# tier: quick
# scan_compare.sh: compare labels on a corpus where one fake compiler version
# varies (libfakenvvm -fake-mode=heaporder) and the other does not (echo):
# inside one scan (base -> same: identical, base -> heap: regressed), with
# exec fakes (echo -> path: changed), and across two databases with
# `kdet compare` (old -> new: fixed, exit 0; a short B run: not-seen; new -> old: regressed, exit 1;
# old -> old: nondeterministic-both, exit 1; B failing on every run: exit 3).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so fake_cc
cp "$FAKES/libfakenvvm.so" "$T/libfakenvvm-copy.so"
inputs="inputs = [\"$EX/nvvm/llvm7/*.ll\"]"
{ echo "$inputs"; echo 'targets = ["80", "90a"]'
  nvvm_compiler base echo; nvvm_compiler same echo "$T/libfakenvvm-copy.so"; nvvm_compiler heap heaporder
  printf '[budget]\ntarget_rate = 0.1\n'; } >"$T/lib.toml"
{ echo "$inputs"
  for m in echo path heaporder; do
    printf '[[compiler]]\nname = "%s"\nbackend = "exec"\ncommand = "%s %s {input} {output}"\noutput_ext = "ptx"\n' \
      "x$m" "$FAKES/fake_cc" "$m"
  done
  printf '[budget]\ntarget_rate = 0.2\n'; } >"$T/exec-default.toml"
# xpath's output names its input's path: with path named fixed it is deterministic ("changed").
{ cat "$T/exec-default.toml"; printf '[setting]\npath = "fixed"\n'; } >"$T/exec.toml"
{ echo "$inputs"; nvvm_compiler nvvm heaporder; } >"$T/old.toml"
{ echo "$inputs"; nvvm_compiler nvvm echo "$T/libfakenvvm-copy.so"; } >"$T/new.toml"

# counts FILE.json COMPARISON_INDEX -> "label=n ..." for the non-zero labels
counts() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][int(sys.argv[2])]["counts"] if "comparisons" in d else d["counts"]
print(" ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))
PY
}
json_answers() { # a_nondeterministic b_nondeterministic b_emits_new_code
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["answers"]; print(a["a_nondeterministic"], a["b_nondeterministic"], a["b_emits_new_code"])' "$1"
}

"$KDET" scan "$T/lib.toml" --db "$T/lib.db" --json "$T/lib.json" --junit "$T/lib.xml" -q && rc=0 || rc=$?
expect_eq "exit of a scan with unexpected variance" "$rc" 1
expect_eq "base -> same" "$(counts "$T/lib.json" 0)" "identical=8"
expect_eq "base -> heap" "$(counts "$T/lib.json" 1)" "regressed=8"
junit=$(python3 - "$T/lib.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
print(len(cases), sum(c.find("failure") is not None for c in cases), root.get("failures"))
PY
)
expect_eq "JUnit: test cases, failures, failures attribute" "$junit" "24 8 8"

"$KDET" scan "$T/exec.toml" --db "$T/exec.db" --json "$T/exec.json" -q || true
expect_eq "xecho -> xpath" "$(counts "$T/exec.json" 0)" "changed=4"
# Unnamed, path varies as under kdet run (one meaning of default): xpath varies, a regression.
"$KDET" scan "$T/exec-default.toml" --db "$T/exec-default.db" --json "$T/exec-default.json" -q || true
expect_eq "xecho -> xpath, path unnamed" "$(counts "$T/exec-default.json" 0)" "regressed=4"
[[ $(json_eval "$T/exec-default.json" '"path=vary" in d["meta"]["defaults"]') == True ]] || fail "defaults in meta"
heap_exec=$(counts "$T/exec.json" 1)

"$KDET" scan "$T/old.toml" --db "$T/old.db" -q || true
"$KDET" scan "$T/new.toml" --db "$T/new.db" -q
"$KDET" compare "$T/old.db" "$T/new.db" --json "$T/c1.json" >"$T/c1.txt" && rc=0 || rc=$?
expect_eq "compare old new: exit" "$rc" 0
expect_eq "compare old new" "$(counts "$T/c1.json")" "fixed=4"
grep -q "fixed" "$T/c1.txt"
# Where A varied, B (the echo fake) emits code A never gave; the answers say so.
grep -q "where A varied (4 jobs), B emits: code A never gave in 4" "$T/c1.txt"
expect_eq "answers in JSON" "$(json_answers "$T/c1.json")" "4 0 4"
"$KDET" compare "$T/new.db" "$T/old.db" --json "$T/c2.json" >/dev/null && rc=0 || rc=$?
expect_eq "compare new old: exit" "$rc" 1
expect_eq "compare new old" "$(counts "$T/c2.json")" "regressed=4"
# B still varies where A varied: the gate fails (exit 1), as for a regression.
"$KDET" compare "$T/old.db" "$T/old.db" --json "$T/c3.json" >/dev/null && rc=0 || rc=$?
expect_eq "compare old old: exit" "$rc" 1
expect_eq "compare old old" "$(counts "$T/c3.json")" "nondeterministic-both=4"
"$KDET" compare "$T/old.db" "$T/old.db" --annotations >/dev/null 2>"$T/ann" || true
expect_eq "--annotations: one per job B varies in" \
  "$(grep -Ec '^::error file=[^,]+\.ll,title=kdet compare::.* nondeterministic-both: B varies$' "$T/ann")" 4
# B fails on every run: 3 (a compiler that now fails is not fixed); where A failed and B
# gives one output, B is fine: 0.
{ echo "$inputs"; nvvm_compiler nvvm fail; } >"$T/fail.toml"
"$KDET" scan "$T/fail.toml" --db "$T/fail.db" -q || true
"$KDET" compare "$T/new.db" "$T/fail.db" --json "$T/c8.json" >/dev/null && rc=0 || rc=$?
expect_eq "compare new fail: exit" "$rc" 3
expect_eq "compare new fail" "$(counts "$T/c8.json")" "failed=4"
"$KDET" compare "$T/fail.db" "$T/new.db" >/dev/null && rc=0 || rc=$?
expect_eq "compare fail new: exit" "$rc" 0
# --junit: a test case per job, valid XML, failing as the exit code does (B varies: failure;
# B failed on every run: error; fixed: passes); `-` is stdout, the summary then on stderr.
junit_counts() { # FILE -> "tests failures errors"
  python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.get("tests"), r.get("failures"), r.get("errors"), len(list(r.iter("testcase"))))' "$1"
}
"$KDET" compare "$T/new.db" "$T/old.db" --junit "$T/j2.xml" >/dev/null && rc=0 || rc=$?
expect_eq "compare new old --junit: exit" "$rc" 1
expect_eq "compare new old --junit" "$(junit_counts "$T/j2.xml")" "4 4 0 4"
grep -q 'classname="kdet.compare.regressed"' "$T/j2.xml" || fail "JUnit does not name the label"
"$KDET" compare "$T/new.db" "$T/fail.db" --junit - >"$T/j8.xml" 2>"$T/j8.err" && rc=0 || rc=$?
expect_eq "compare new fail --junit -: exit" "$rc" 3
expect_eq "compare new fail --junit -" "$(junit_counts "$T/j8.xml")" "4 0 4 4"
grep -q "failed" "$T/j8.err" || fail "--junit -: the summary is not on stderr"
"$KDET" compare "$T/old.db" "$T/new.db" --junit "$T/j1.xml" >/dev/null
expect_eq "compare old new --junit (fixed)" "$(junit_counts "$T/j1.xml")" "4 0 0 4"
# That scan's budget (target_rate 0.1) bounds B's rate only below ~10%: not ten times below
# A's rate, so "not-seen", with both numbers; a margin of 1 accepts it.
"$KDET" compare "$T/lib.db" "$T/lib.db" --a-compiler heap --b-compiler base --json "$T/c4.json" >"$T/c4.txt"
expect_eq "compare heap base in one db" "$(counts "$T/c4.json")" "not-seen=8"
grep -Eq "not-seen +.*A: [0-9]+ of [0-9]+ runs differ .*B: one output in [0-9]+ runs, rate < .* at 95%.*not 10x below" "$T/c4.txt"
grep -q "does B vary?  not seen in 8 jobs" "$T/c4.txt"
"$KDET" compare "$T/lib.db" "$T/lib.db" --a-compiler heap --b-compiler base --margin 1 --json "$T/c5.json" >/dev/null
expect_eq "compare heap base, margin 1" "$(counts "$T/c5.json")" "fixed=8"
"$KDET" compare "$T/lib.db" "$T/lib.db" --margin 0.5 2>/dev/null && rc=0 || rc=$?
expect_eq "compare --margin below 1: exit" "$rc" 2
"$KDET" compare "$T/lib.db" "$T/new.db" 2>"$T/err" && rc=0 || rc=$?
expect_eq "compare without naming one of several compilers: exit" "$rc" 2
grep -q "choose one with --a-compiler" "$T/err"
# Two scans under different settings: B's (fresh processes, ASLR off, no heap churn) hides the
# heap-order variance A's brought out, so even with a margin of 1 nothing is fixed, and the
# report names both settings (the seed aside).
{ echo "$inputs"; nvvm_compiler nvvm heaporder
  printf '[setting]\nprocess = "fresh"\naslr = "off"\nheap = "none"\nthreads = 0\nseed = 5\n[budget]\nmax_runs = 12\n'; } >"$T/calm.toml"
"$KDET" scan "$T/calm.toml" --db "$T/calm.db" -q
"$KDET" compare "$T/old.db" "$T/calm.db" --margin 1 --json "$T/c6.json" >"$T/c6.txt"
expect_eq "compare old calm (another setting), margin 1" "$(counts "$T/c6.json")" "not-seen=4"
grep -q "settings differ, so no job is called fixed:" "$T/c6.txt" || { cat "$T/c6.txt"; fail "no settings line"; }
grep -Eq "^  B  process=fresh heap=none aslr=off threads=0" "$T/c6.txt" || { cat "$T/c6.txt"; fail "B's setting not shown"; }
grep -q "A and B ran under different settings, so B's one output is no fix" "$T/c6.txt" || fail "no reason on the pairs"
[[ $(json_eval "$T/c6.json" '"seed" not in d["settings_differ"]["a"] and d["settings_differ"]["b"].startswith("process=fresh")') == True ]] ||
  fail "settings_differ in JSON: $(json_eval "$T/c6.json" 'd.get("settings_differ")')"
# The same [setting], but B's manifest leaves the factors it does not name natural where A's
# varied them: the settings the jobs ran under differ, so nothing is fixed, and the report
# spells out A's levels as they ran (threads=4, path=vary from the probe; heap=chaos, or churn
# where the chaos allocator is not built, as under the sanitizers), not its manifest's defaults.
{ cat "$T/new.toml"; printf '[setting]\nunnamed = "natural"\n'; } >"$T/natural.toml"
"$KDET" scan "$T/natural.toml" --db "$T/natural.db" -q
"$KDET" compare "$T/old.db" "$T/natural.db" --margin 1 --json "$T/c9.json" >"$T/c9.txt"
expect_eq "compare old natural (unnamed natural), margin 1" "$(counts "$T/c9.json")" "not-seen=4"
grep -Eq "^  A  process=both heap=(chaos|churn) aslr=on threads=4 .*path=vary" "$T/c9.txt" || { cat "$T/c9.txt"; fail "A's setting not as it ran"; }
# The same setting, another seed: compared as before (old -> new above had equal settings too).
[[ $(json_eval "$T/c1.json" '"settings_differ" in d') == False ]] || fail "equal settings reported as differing"
# Two scans with no job in common: said, not a silent table of "missing".
mkdir "$T/other" && cp "$EX/nvvm/llvm7/saxpy.ll" "$T/other/renamed.ll"
{ echo "inputs = [\"$T/other/*.ll\"]"; nvvm_compiler nvvm echo; printf '[budget]\nmax_runs = 2\n'; } >"$T/other.toml"
"$KDET" scan "$T/other.toml" --db "$T/other.db" -q
"$KDET" compare "$T/old.db" "$T/other.db" >"$T/c7.txt" || true
grep -q "nothing is compared" "$T/c7.txt" || { cat "$T/c7.txt"; fail "no word that no job was paired"; }
echo "scan_compare: identical, changed, regressed, fixed, nondeterministic-both all labelled as expected (exec heaporder: $heap_exec)"
