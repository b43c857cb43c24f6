#!/usr/bin/env bash
# cache_variants.sh: a nondeterministic compiler through `kdet cc`. fake_cc in
# pid mode writes its pid into the output, so every compile is a new variant.
# A verified hit detects the mismatch, keeps both variants (the first is still
# served), warns with kdet diff's classification; `kdet cache report` lists the
# key and exits 1; --on-variants fail refuses; `kdet cache verify` exits 1.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped (fake_cc absent).
set -euo pipefail
trap 'echo "cache_variants: FAIL at line $LINENO" >&2' ERR
: "${KDET:?KDET must name the kdet binary}"
fake=${KDET_FAKES_DIR:-}/fake_cc
[[ -x $fake ]] || { echo "cache_variants: SKIP: fake compiler $fake not built"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/cache
printf 'line one\nline two\n' >"$tmp/k.txt"
result() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"])' "$1"; }
cc() { "$KDET" cc "$tmp/k.txt" --dir "$dir" -q "$@" -- "$fake" pid {input} {output}; }

cc -o "$tmp/first.out" --json "$tmp/1.json"
[[ $(result "$tmp/1.json") == miss ]]
cc -o "$tmp/hit.out" --verify-rate 0 --json "$tmp/2.json"
[[ $(result "$tmp/2.json") == hit ]]
cmp "$tmp/first.out" "$tmp/hit.out"

# A verified hit: mismatch, warned with the classification, both kept, the first served (exit 0).
cc -o "$tmp/ver.out" --verify-rate 1 --json "$tmp/3.json" 2>"$tmp/3.err"
[[ $(result "$tmp/3.json") == mismatch ]]
grep -q 'verification MISMATCH' "$tmp/3.err"
grep -q 'output: ' "$tmp/3.err"      # kdet diff's one-line summary of the artifact
cmp "$tmp/first.out" "$tmp/ver.out"
cat "$tmp/3.err"

# The report lists the key with both variants and exits 1 (CI gates on it).
rc=0
"$KDET" cache report --dir "$dir" --json "$tmp/report.json" >"$tmp/report.txt" || rc=$?
[[ $rc == 1 ]]
cat "$tmp/report.txt"
python3 - "$tmp/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "kdet.cache.report/1" and r["keys_with_variants"] == 1, r
v = r["keys"][0]["variants"]
assert len(v) == 2 and v[0]["served"] and v[0]["how"] == "fill" and v[1]["how"] == "verify", v
assert "difference" in v[1] and v[1]["difference"], v
PY

# Serve-first keeps serving the first (warning); fail refuses with exit 1 and writes nothing.
cc -o "$tmp/sf.out" --verify-rate 0 2>"$tmp/sf.err"
cmp "$tmp/first.out" "$tmp/sf.out"
grep -q 'holds 2 variants' "$tmp/sf.err"
rc=0
cc -o "$tmp/fail.out" --verify-rate 0 --on-variants fail 2>/dev/null || rc=$?
[[ $rc == 1 ]]
[[ ! -e $tmp/fail.out ]]

# kdet cache verify recompiles every key: another new variant, exit 1; the report then shows 3.
rc=0
"$KDET" cache verify --dir "$dir" >"$tmp/verify.txt" || rc=$?
[[ $rc == 1 ]]
grep -q MISMATCH "$tmp/verify.txt"
"$KDET" cache stats --dir "$dir" --json - | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["keys"] == 1 and s["variants"] == 3 and s["keys_with_variants"] == 1, s
assert s["verifications"]["mismatch"] == 2, s'

# A deterministic compiler through the same cache gives a clean report for its own key.
"$KDET" cc "$tmp/k.txt" --dir "$tmp/clean" -q -o "$tmp/e.out" -- "$fake" echo {input} {output}
"$KDET" cc "$tmp/k.txt" --dir "$tmp/clean" -q --verify-rate 1 --json "$tmp/e.json" -o "$tmp/e2.out" -- "$fake" echo {input} {output}
[[ $(result "$tmp/e.json") == verified ]]
"$KDET" cache report --dir "$tmp/clean" >/dev/null
echo "cache_variants: PASS"
