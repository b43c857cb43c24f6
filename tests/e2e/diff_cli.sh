#!/usr/bin/env bash
# e2e: `kdet diff` exit codes and output, on files, folders and a run folder.
# Needs $KDET and $KDET_SOURCE_DIR (set by CTest).
source "$(dirname "$0")/lib/common.bash"
data="$KDET_SOURCE_DIR/tests/data/diff"

expect_rc() {  # expect_rc WANT CMD...; leaves stdout in $T/out, stderr in $T/err
  local want=$1; shift
  set +e
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  set -e
  if [ "$rc" != "$want" ]; then
    cat "$T/out" "$T/err" >&2
    fail "expected exit $want, got $rc: $*"
  fi
}

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

echo "diff_cli: all checks passed"
