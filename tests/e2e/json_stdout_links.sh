#!/usr/bin/env bash
# tier: quick
# --json through a link to stdout (/dev/stdout, /proc/self/fd/1) counts as stdout, as "-"
# does: the text report moves to stderr and stdout is one valid JSON document. kdet capture,
# whose stdout is the pipeline's, refuses it as it refuses "-".
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
IN=$EX/nvvm/llvm7/saxpy.ll
for link in /dev/stdout /proc/self/fd/1; do
  [[ -e $link ]] || continue
  "$KDET" run "$IN" --lib "$FAKES/libfakenvvm.so" -n 2 --unnamed natural --json "$link" \
    >"$T/out.json" 2>"$T/err.txt" || fail "kdet run --json $link exited $?"
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out.json" ||
    fail "stdout is not one JSON document with --json $link: $(head -c 300 "$T/out.json")"
  grep -q '^verdict ' "$T/err.txt" || fail "the text report did not move to stderr with --json $link"
  "$KDET" diff "$IN" "$IN" --json "$link" >"$T/diff.json" 2>/dev/null
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/diff.json" || fail "kdet diff --json $link"
  expect_exit 2 "$KDET" capture --json "$link" -- true
  expect_output "the pipeline writes to stdout too"
done
# A file that stdout is redirected to is stdout too: one document, not the report and JSON mixed.
"$KDET" run "$IN" --lib "$FAKES/libfakenvvm.so" -n 2 --unnamed natural --json "$T/same.json" \
  >"$T/same.json" 2>"$T/err2.txt" || fail "kdet run into its own stdout file"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/same.json" || fail "the redirected file is not one JSON document"
echo "json_stdout_links: ok"
