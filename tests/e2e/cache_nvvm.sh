#!/usr/bin/env bash
# cache_nvvm.sh: `kdet cache compile` against the real libNVVM: miss, hit,
# verified hit, keys that change with options/env/library content, a corrupted
# entry (a miss with a warning, evidence moved aside), `kdet cache verify`.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped (no libnvvm.so).
set -euo pipefail
trap 'echo "cache_nvvm: FAIL at line $LINENO" >&2' ERR
: "${KDET:?KDET must name the kdet binary}"
src=${KDET_SOURCE_DIR:?}
nvvm=${CUDA_HOME:-/usr/local/cuda}/lib64/libnvvm.so
[[ -r $nvvm ]] || { echo "cache_nvvm: SKIP: $nvvm not found"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/cache
in=$src/examples/nvvm/llvm7/saxpy.ll
opts=(-- -arch=compute_90a -opt=3)
# result JSON_FILE: the "result" field
result() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"])' "$1"; }

"$KDET" cache compile "$in" --dir "$dir" -q --json "$tmp/r1.json" -o "$tmp/miss.ptx" "${opts[@]}"
[[ $(result "$tmp/r1.json") == miss ]]
grep -q '.target sm_90a' "$tmp/miss.ptx"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$tmp/r2.json" -o "$tmp/hit.ptx" "${opts[@]}"
[[ $(result "$tmp/r2.json") == hit ]]
cmp "$tmp/miss.ptx" "$tmp/hit.ptx"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 1 --json "$tmp/r3.json" -o "$tmp/ver.ptx" "${opts[@]}"
[[ $(result "$tmp/r3.json") == verified ]]
cmp "$tmp/miss.ptx" "$tmp/ver.ptx"
# KDET_CACHE_DIR is honoured when --dir is absent.
KDET_CACHE_DIR=$dir "$KDET" cache compile "$in" -q --verify-rate 0 --json "$tmp/r4.json" "${opts[@]}"
[[ $(result "$tmp/r4.json") == hit ]]

# Options, declared env and library content are in the key; the library's path is not.
"$KDET" cache compile "$in" --dir "$dir" -q --json "$tmp/o.json" -- -arch=compute_90a -opt=0
[[ $(result "$tmp/o.json") == miss ]]
FOO=1 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --json "$tmp/e1.json" "${opts[@]}"
[[ $(result "$tmp/e1.json") == miss ]]
FOO=2 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --json "$tmp/e2.json" "${opts[@]}"
[[ $(result "$tmp/e2.json") == miss ]]
FOO=2 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --verify-rate 0 --json "$tmp/e3.json" "${opts[@]}"
[[ $(result "$tmp/e3.json") == hit ]]
cp "$nvvm" "$tmp/libnvvm-copy.so"
"$KDET" cache compile "$in" --dir "$dir" -q --lib "$tmp/libnvvm-copy.so" --verify-rate 0 --json "$tmp/l1.json" "${opts[@]}"
[[ $(result "$tmp/l1.json") == hit ]]   # same content elsewhere: same compiler
printf '\0' >>"$tmp/libnvvm-copy.so"     # one byte more: another compiler, never an old entry
"$KDET" cache compile "$in" --dir "$dir" -q --lib "$tmp/libnvvm-copy.so" --verify-rate 0 --json "$tmp/l2.json" "${opts[@]}"
[[ $(result "$tmp/l2.json") == miss ]]

# A corrupted artifact: a miss with a warning, the damaged variant kept aside, the output still right.
key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$tmp/r1.json")
art=$(ls "$dir"/v1/entries/"${key:0:2}"/"$key"/variants/*/a0)
printf 'XX' | dd of="$art" bs=1 seek=10 conv=notrunc status=none
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$tmp/c.json" -o "$tmp/c.ptx" "${opts[@]}" 2>"$tmp/c.err"
[[ $(result "$tmp/c.json") == miss ]]
grep -q 'damaged' "$tmp/c.err"
cmp "$tmp/miss.ptx" "$tmp/c.ptx"
ls "$dir"/v1/damaged | grep -q "$key"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$tmp/c2.json" "${opts[@]}"
[[ $(result "$tmp/c2.json") == hit ]]

"$KDET" cache verify --dir "$dir" >"$tmp/verify.txt"
grep -q '0 mismatch' "$tmp/verify.txt"
"$KDET" cache report --dir "$dir" >/dev/null   # exit 0: no key with two variants
"$KDET" cache stats --dir "$dir" --json - | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["keys"] == 5 and s["variants"] == 5 and s["damaged"] == 1, s'
echo "cache_nvvm: PASS"
