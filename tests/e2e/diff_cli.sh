#!/usr/bin/env bash
# tier: quick
# e2e: `kdet diff` exit codes and output, on files, folders and a run folder.
# Needs $KDET and $KDET_SOURCE_DIR (set by CTest).
source "$(dirname "$0")/lib/common.bash"
data="$KDET_SOURCE_DIR/tests/data/diff"


# Identical files: exit 0, says identical.
expect_rc 0 "$KDET" diff "$data/saxpy.ptx" "$data/saxpy.ptx"
grep -q "identical" "$T/out"

# A swapped pair of independent loads: exit 1, named as instruction order.
awk '/ld.param.u64/ && !done { held=$0; getline; print; print held; done=1; next } { print }' \
  "$data/block_reduce.ptx" >"$T/swapped.ptx"
expect_rc 1 "$KDET" diff "$data/block_reduce.ptx" "$T/swapped.ptx" --color never
grep -q "differ by instruction order in 1 of 1 function" "$T/out"

# JSON to stdout is versioned; HTML fragment is written.
expect_rc 1 "$KDET" diff "$data/block_reduce.ptx" "$T/swapped.ptx" --json - --html "$T/d.html"
python3 - "$T/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "kdet.diff/1", j["schema"]
assert j["overall"] == "reordered", j["overall"]
PY
grep -q 'kdet-diff-reordered' "$T/d.html"
if grep -q '<html' "$T/d.html"; then fail "HTML fragment must not contain <html>"; fi

# Missing file: exit 2 and the message names it.
expect_rc 2 "$KDET" diff "$data/saxpy.ptx" "$T/does-not-exist.ptx"
grep -q "does-not-exist.ptx" "$T/err"

# Bad option value: exit 2.
expect_rc 2 "$KDET" diff --format sass "$data/saxpy.ptx" "$data/saxpy.ptx"

# Forced format that does not fit: exit 2 naming the files.
expect_rc 2 "$KDET" diff --format cubin "$data/saxpy.ptx" "$data/block_reduce.ptx"
grep -q "saxpy.ptx" "$T/err"

# Plain text and binary fallbacks.
printf 'a\nb\nc\n' >"$T/t1"; printf 'a\nB\nc\n' >"$T/t2"
expect_rc 1 "$KDET" diff "$T/t1" "$T/t2"
grep -q "text differs" "$T/out"
printf '\0\1\2\3' >"$T/b1"; printf '\0\1\7\3' >"$T/b2"
expect_rc 1 "$KDET" diff "$T/b1" "$T/b2"
grep -q "binary differs: 1 byte in 1 range" "$T/out"

# A run folder: DIR/variants/<id>/<artifact> and result.json, most common first.
run="$T/run"
mkdir -p "$run/variants/aaaa1111" "$run/variants/bbbb2222" "$run/variants/cccc3333"
cp "$data/block_reduce.ptx" "$run/variants/aaaa1111/ptx"
cp "$T/swapped.ptx" "$run/variants/bbbb2222/ptx"
cp "$data/block_reduce.ptx" "$run/variants/cccc3333/ptx"
cat >"$run/result.json" <<'JSON'
{"schema": "kdet.run/1", "variants": [{"id": "cccc3333ffff", "count": 2},
 {"id": "aaaa1111ffff", "count": 7}, {"id": "bbbb2222ffff", "count": 3}]}
JSON
expect_rc 1 "$KDET" diff --run-dir "$run" --color never      # aaaa (7) vs bbbb (3)
grep -q "aaaa1111/ptx vs bbbb2222/ptx" "$T/out"
grep -q "instruction order" "$T/out"
expect_rc 0 "$KDET" diff "$run" aaaa cccc                    # prefixes of the folder names
grep -q "identical" "$T/out"
expect_rc 2 "$KDET" diff "$run" aaaa zzzz
grep -q "zzzz" "$T/err"
expect_rc 1 "$KDET" diff "$run/variants/aaaa1111" "$run/variants/bbbb2222" --json "$T/set.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['schema']=='kdet.diff-set/1' and not j['identical']" "$T/set.json"

# People's view: a hand-written kernel, and B with its two loads swapped and registers renamed
# as a compiler does (first use). Ordering differences only; hunks in each file's own text.
cat >"$T/k_a.ptx" <<'PTX'
.version 9.0
.target sm_90a
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	ld.global.u32 	%r1, [%rd3];
	st.global.u32 	[%rd4], %r1;
	ret;
}
PTX
sed -e 's/^\tld.param.u64 \t%rd1, \[k_param_0\];/\tld.param.u64 \t%rd5, [k_param_1];/' \
    -e 's/^\tld.param.u64 \t%rd2, \[k_param_1\];/\tld.param.u64 \t%rd1, [k_param_0];/' \
    -e 's/%rd4, %rd2;/%rd4, %rd5;/' "$T/k_a.ptx" >"$T/k_b.ptx"
grep -q 'rd4, %rd5;' "$T/k_b.ptx" || fail "the test's sed did not apply"
expect_rc 1 "$KDET" diff "$T/k_a.ptx" "$T/k_b.ptx" --color never
expect_line() { grep -qxF -- "$1" "$T/out" || { cat "$T/out" >&2; fail "output lacks the line: $1"; }; }
expect_line "$T/k_a.ptx vs $T/k_b.ptx (ptx): ordering differences only: differ by instruction order in 1 of 1 function"
expect_line "-    13        ld.param.u64 %rd1, [k_param_0];"
expect_line "+          14  ld.param.u64 %rd1, [k_param_0];"
expect_line "~    14        ld.param.u64 %rd2, [k_param_1];"
expect_line "~          13  ld.param.u64 %rd5, [k_param_1];"
expect_line "~    16        cvta.to.global.u64 %rd4, %rd2;"
expect_line "~          16  cvta.to.global.u64 %rd4, %rd5;"
if grep -q "'" "$T/out"; then fail "own-text hunks show a mapped (primed) name"; fi
# --canonical: the renamed view, no ~ pairs.
expect_rc 1 "$KDET" diff "$T/k_a.ptx" "$T/k_b.ptx" --color never --canonical
expect_line "-    13        ld.param.u64 %rd1, [k_param_0];"
if grep -q '^~' "$T/out"; then fail "--canonical shows ~ pairs"; fi
"$KDET" diff --help >"$T/help" && grep -q -- "--canonical" "$T/help" || fail "--help lacks --canonical"
# JSON: ordering_only, and B's own text beside A's in a context line.
expect_rc 1 "$KDET" diff "$T/k_a.ptx" "$T/k_b.ptx" --json -
python3 - "$T/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ordering_only"] is True and j["functions_reordered"] is False, j
lines = [l for e in j["entries"] for h in e["hunks"] for l in h["lines"]]
assert {"op": " ", "text": "ld.param.u64 %rd2, [k_param_1];",
        "text_b": "ld.param.u64 %rd5, [k_param_1];", "line_a": 14, "line_b": 13} in lines, lines
PY
# The same text with one instruction changed is not "ordering differences only".
sed 's/ld.global.u32/ld.global.u16/' "$T/k_b.ptx" >"$T/k_c.ptx"
expect_rc 1 "$KDET" diff "$T/k_a.ptx" "$T/k_c.ptx" --color never
if grep -q "ordering differences only" "$T/out"; then fail "a code change called ordering only"; fi
grep -q "code changed in 1 of 1 function" "$T/out"
# Text files: the same lines in another order.
seq 1 31 >"$T/n1"; seq 31 -1 1 >"$T/n2"
expect_rc 1 "$KDET" diff "$T/n1" "$T/n2" --color never
expect_line "$T/n1 vs $T/n2 (text): ordering differences only: the same lines in another order: 30 of 31 moved"

# `-` is standard input, on either side; both `-` is an error naming the fix.
expect_rc 1 "$KDET" diff - "$T/k_b.ptx" --color never <"$T/k_a.ptx"
expect_line "- vs $T/k_b.ptx (ptx): ordering differences only: differ by instruction order in 1 of 1 function"
expect_rc 0 "$KDET" diff "$T/k_a.ptx" - <"$T/k_a.ptx"
expect_rc 1 "$KDET" diff - "$T/k_b.ptx" --max-size 100 <"$T/k_a.ptx"   # past the limit: by hash
grep -q "too large for a detailed comparison" "$T/out"
expect_rc 0 "$KDET" diff - "$T/k_a.ptx" --max-size 100 <"$T/k_a.ptx"
expect_rc 2 "$KDET" diff - - <"$T/k_a.ptx"
grep -q "standard input can be only one side" "$T/err"
expect_rc 2 "$KDET" diff - "$run" <"$T/k_a.ptx"
grep -q "is a folder" "$T/err"

echo "diff_cli: all checks passed"
