#!/usr/bin/env bash
# scan_compare.sh: compare labels on a corpus where one fake compiler version
# varies (libfakenvvm -fake-mode=heaporder) and the other does not (echo):
# inside one scan (base -> same: identical, base -> heap: regressed), with
# exec fakes (echo -> path: changed), and across two databases with
# `kdet compare` (old -> new: fixed, exit 0; a short B run: not-seen; new -> old: regressed, exit 1;
# old -> old: varies-both).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
set -euo pipefail
trap 'echo "scan_compare: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_FAKES_DIR:?}" "${KDET_SOURCE_DIR:?}"
fakes=$(realpath "$KDET_FAKES_DIR")
src=$(realpath "$KDET_SOURCE_DIR")
[[ -f $fakes/libfakenvvm.so && -x $fakes/fake_cc ]] || { echo "scan_compare: SKIP: fakes not built in $fakes"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$fakes/libfakenvvm.so" "$tmp/libfakenvvm-copy.so"
inputs="inputs = [\"$src/examples/nvvm/llvm7/*.ll\"]"
lib() { # lib NAME PATH MODE
  printf '[[compiler]]\nname = "%s"\nbackend = "nvvm"\nlib = "%s"\noptions = ["-fake-mode=%s"]\n' "$1" "$2" "$3"
}
{ echo "$inputs"; echo 'targets = ["80", "90a"]'
  lib base "$fakes/libfakenvvm.so" echo; lib same "$tmp/libfakenvvm-copy.so" echo; lib heap "$fakes/libfakenvvm.so" heaporder
  printf '[budget]\ntarget_rate = 0.1\n'; } >"$tmp/lib.toml"
{ echo "$inputs"
  for m in echo path heaporder; do
    printf '[[compiler]]\nname = "%s"\nbackend = "exec"\ncommand = "%s %s {input} {output}"\noutput_ext = "ptx"\n' \
      "x$m" "$fakes/fake_cc" "$m"
  done
  printf '[budget]\ntarget_rate = 0.2\n'; } >"$tmp/exec.toml"
{ echo "$inputs"; lib nvvm "$fakes/libfakenvvm.so" heaporder; } >"$tmp/old.toml"
{ echo "$inputs"; lib nvvm "$tmp/libfakenvvm-copy.so" echo; } >"$tmp/new.toml"

# counts FILE.json COMPARISON_INDEX -> "label=n ..." for the non-zero labels
counts() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][int(sys.argv[2])]["counts"] if "comparisons" in d else d["counts"]
print(" ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))
PY
}
json_answers() { # a_varied b_varies b_emits_new_code
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["answers"]; print(a["a_varied"], a["b_varies"], a["b_emits_new_code"])' "$1"
}
check() { # check WHAT GOT WANT
  if [[ $2 != "$3" ]]; then echo "scan_compare: FAIL: $1: got '$2', want '$3'"; exit 1; fi
}

"$KDET" scan "$tmp/lib.toml" --db "$tmp/lib.db" --json "$tmp/lib.json" --junit "$tmp/lib.xml" -q && rc=0 || rc=$?
check "exit of a scan with unexpected variance" "$rc" 1
check "base -> same" "$(counts "$tmp/lib.json" 0)" "identical=8"
check "base -> heap" "$(counts "$tmp/lib.json" 1)" "regressed=8"
junit=$(python3 - "$tmp/lib.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
print(len(cases), sum(c.find("failure") is not None for c in cases), root.get("failures"))
PY
)
check "JUnit: test cases, failures, failures attribute" "$junit" "24 8 8"

"$KDET" scan "$tmp/exec.toml" --db "$tmp/exec.db" --json "$tmp/exec.json" -q || true
check "xecho -> xpath" "$(counts "$tmp/exec.json" 0)" "changed=4"
heap_exec=$(counts "$tmp/exec.json" 1)

"$KDET" scan "$tmp/old.toml" --db "$tmp/old.db" -q || true
"$KDET" scan "$tmp/new.toml" --db "$tmp/new.db" -q
"$KDET" compare "$tmp/old.db" "$tmp/new.db" --json "$tmp/c1.json" >"$tmp/c1.txt" && rc=0 || rc=$?
check "compare old new: exit" "$rc" 0
check "compare old new" "$(counts "$tmp/c1.json")" "fixed=4"
grep -q "fixed" "$tmp/c1.txt"
# Where A varied, B (the echo fake) emits code A never gave; the answers say so.
grep -q "where A varied (4 jobs), B emits: code A never gave in 4" "$tmp/c1.txt"
check "answers in JSON" "$(json_answers "$tmp/c1.json")" "4 0 4"
"$KDET" compare "$tmp/new.db" "$tmp/old.db" --json "$tmp/c2.json" >/dev/null && rc=0 || rc=$?
check "compare new old: exit" "$rc" 1
check "compare new old" "$(counts "$tmp/c2.json")" "regressed=4"
"$KDET" compare "$tmp/old.db" "$tmp/old.db" --json "$tmp/c3.json" >/dev/null || true
check "compare old old" "$(counts "$tmp/c3.json")" "varies-both=4"
# That scan's budget (target_rate 0.1) bounds B's rate only below ~10%: not ten times below
# A's rate, so "not-seen", with both numbers; a margin of 1 accepts it.
"$KDET" compare "$tmp/lib.db" "$tmp/lib.db" --a-compiler heap --b-compiler base --json "$tmp/c4.json" >"$tmp/c4.txt"
check "compare heap base in one db" "$(counts "$tmp/c4.json")" "not-seen=8"
grep -Eq "not-seen +.*A: [0-9]+ of [0-9]+ runs differ .*B: one output in [0-9]+ runs, rate < .* at 95%.*not 10x below" "$tmp/c4.txt"
grep -q "does B vary?  not seen in 8 jobs" "$tmp/c4.txt"
"$KDET" compare "$tmp/lib.db" "$tmp/lib.db" --a-compiler heap --b-compiler base --margin 1 --json "$tmp/c5.json" >/dev/null
check "compare heap base, margin 1" "$(counts "$tmp/c5.json")" "fixed=8"
"$KDET" compare "$tmp/lib.db" "$tmp/lib.db" --margin 0.5 2>/dev/null && rc=0 || rc=$?
check "compare --margin below 1: exit" "$rc" 2
"$KDET" compare "$tmp/lib.db" "$tmp/new.db" 2>"$tmp/err" && rc=0 || rc=$?
check "compare without naming one of several compilers: exit" "$rc" 2
grep -q "choose one with --a-compiler" "$tmp/err"
echo "scan_compare: identical, changed, regressed, fixed, varies-both all labelled as expected (exec heaporder: $heap_exec)"
