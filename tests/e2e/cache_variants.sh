#!/usr/bin/env bash
# tier: quick
# cache_variants.sh: a nondeterministic compiler through `kdet cc`. fake_cc in
# pid mode writes its pid into the output, so every compile is a new variant.
# A verified hit detects the mismatch, keeps both variants (the first is still
# served), warns with kdet diff's classification; `kdet cache report` lists the
# key and exits 1; --on-variants fail refuses; `kdet cache verify` exits 1.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped (fake_cc absent).
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
fake=$FAKES/fake_cc

dir=$T/cache
printf 'line one\nline two\n' >"$T/k.txt"
result() { json_get "$1" '["result"]'; }
cc() { "$KDET" cc "$T/k.txt" --dir "$dir" -q "$@" -- "$fake" pid {input} {output}; }

cc -o "$T/first.out" --json "$T/1.json"
[[ $(result "$T/1.json") == miss ]]
cc -o "$T/hit.out" --verify-rate 0 --json "$T/2.json"
[[ $(result "$T/2.json") == hit ]]
cmp "$T/first.out" "$T/hit.out"

# A verified hit: mismatch, warned with the classification, both kept, and the recompile's
# output served, never the stored bytes it disagrees with (exit 0); the next hit serves the first.
cc -o "$T/ver.out" --verify-rate 1 --json "$T/3.json" 2>"$T/3.err"
[[ $(result "$T/3.json") == mismatch ]]
grep -q 'verification MISMATCH' "$T/3.err"
grep -q 'output: ' "$T/3.err"      # kdet diff's one-line summary of the artifact
if cmp -s "$T/first.out" "$T/ver.out"; then echo "the stored bytes were served on a mismatch" >&2; exit 1; fi
cc -o "$T/hit2.out" --verify-rate 0 --json "$T/3b.json"
cmp "$T/first.out" "$T/hit2.out"
cat "$T/3.err"

# The report lists the key with both variants and exits 1 (CI gates on it).
rc=0
"$KDET" cache report --dir "$dir" --json "$T/report.json" >"$T/report.txt" || rc=$?
[[ $rc == 1 ]]
cat "$T/report.txt"
python3 - "$T/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "kdet.cache.report/1" and r["keys_with_variants"] == 1, r
v = r["keys"][0]["variants"]
assert len(v) == 2 and v[0]["served"] and v[0]["how"] == "fill" and v[1]["how"] == "verify", v
assert "difference" in v[1] and v[1]["difference"], v
PY
# JUnit for a CI page: the key with two variants fails, naming its input; stdout takes the
# XML and the text goes to stderr; --json and --junit cannot both take stdout.
rc=0
"$KDET" cache report --dir "$dir" --junit - >"$T/report.xml" 2>"$T/report.err" || rc=$?
[[ $rc == 1 ]] || fail "cache report --junit -: exit $rc"
grep -q "more than one variant" "$T/report.err" || fail "no text on stderr"
python3 - "$T/report.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("failures") == "1" and root.get("tests") == "1", root.attrib
case = root.find("testsuite/testcase")
assert case.get("name").startswith("k.txt"), case.attrib
f = case.find("failure")
assert f is not None and f.get("message") == "2 variants" and "vs the served" in f.text, f.text
PY
expect_exit 2 "$KDET" cache report --dir "$dir" --junit - --json -
expect_output "--json and --junit cannot both go to stdout"

# Serve-first keeps serving the first (warning); fail refuses with exit 1 and writes nothing.
cc -o "$T/sf.out" --verify-rate 0 2>"$T/sf.err"
cmp "$T/first.out" "$T/sf.out"
grep -q 'holds 2 variants' "$T/sf.err"
rc=0
cc -o "$T/fail.out" --verify-rate 0 --on-variants fail 2>/dev/null || rc=$?
[[ $rc == 1 ]]
[[ ! -e $T/fail.out ]]

# kdet cache verify recompiles every key: another new variant, exit 1; the report then shows 3.
rc=0
"$KDET" cache verify --dir "$dir" >"$T/verify.txt" || rc=$?
[[ $rc == 1 ]]
grep -q MISMATCH "$T/verify.txt"
"$KDET" cache stats --dir "$dir" --json - | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["keys"] == 1 and s["variants"] == 3 and s["keys_with_variants"] == 1, s
assert s["verifications"]["mismatch"] == 2, s'

# A deterministic compiler through the same cache gives a clean report for its own key.
"$KDET" cc "$T/k.txt" --dir "$T/clean" -q -o "$T/e.out" -- "$fake" echo {input} {output}
"$KDET" cc "$T/k.txt" --dir "$T/clean" -q --verify-rate 1 --json "$T/e.json" -o "$T/e2.out" -- "$fake" echo {input} {output}
[[ $(result "$T/e.json") == verified ]]
"$KDET" cache report --dir "$T/clean" --junit "$T/clean.xml" >/dev/null
python3 - "$T/clean.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("failures") == "0" and root.get("tests") == "1", root.attrib
assert root.find("testsuite/testcase").get("name") == "1 other key with one variant each"
PY
# An empty cache judges nothing: a skipped case, not an empty green suite.
"$KDET" cache report --dir "$T/empty" --junit "$T/empty.xml" >/dev/null
grep -q '<skipped message="the cache holds no key' "$T/empty.xml" || fail "$(cat "$T/empty.xml")"
echo "cache_variants: PASS"
