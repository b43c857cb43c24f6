#!/usr/bin/env bash
# tier: cuda
# cache_nvvm.sh: `kdet cache compile` against the real libNVVM: miss, hit,
# verified hit, keys that change with options/env/library content, a corrupted
# entry (a miss with a warning, evidence moved aside), `kdet cache verify`.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped (no libnvvm.so).
source "$(dirname "$0")/lib/common.bash"
nvvm=${CUDA_HOME:-/usr/local/cuda}/lib64/libnvvm.so
[[ -r $nvvm ]] || skip "$nvvm not found"

dir=$T/cache
in=$EX/nvvm/llvm7/saxpy.ll
opts=(-- -arch=compute_90a -opt=3)
# result JSON_FILE: the "result" field
result() { json_get "$1" '["result"]'; }

"$KDET" cache compile "$in" --dir "$dir" -q --json "$T/r1.json" -o "$T/miss.ptx" "${opts[@]}"
[[ $(result "$T/r1.json") == miss ]]
grep -q '.target sm_90a' "$T/miss.ptx"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$T/r2.json" -o "$T/hit.ptx" "${opts[@]}"
[[ $(result "$T/r2.json") == hit ]]
cmp "$T/miss.ptx" "$T/hit.ptx"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 1 --json "$T/r3.json" -o "$T/ver.ptx" "${opts[@]}"
[[ $(result "$T/r3.json") == verified ]]
cmp "$T/miss.ptx" "$T/ver.ptx"
# KDET_CACHE_DIR is honoured when --dir is absent.
KDET_CACHE_DIR=$dir "$KDET" cache compile "$in" -q --verify-rate 0 --json "$T/r4.json" "${opts[@]}"
[[ $(result "$T/r4.json") == hit ]]

# Options, declared env and library content are in the key; the library's path is not.
"$KDET" cache compile "$in" --dir "$dir" -q --json "$T/o.json" -- -arch=compute_90a -opt=0
[[ $(result "$T/o.json") == miss ]]
FOO=1 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --json "$T/e1.json" "${opts[@]}"
[[ $(result "$T/e1.json") == miss ]]
FOO=2 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --json "$T/e2.json" "${opts[@]}"
[[ $(result "$T/e2.json") == miss ]]
FOO=2 "$KDET" cache compile "$in" --dir "$dir" -q --key-env FOO --verify-rate 0 --json "$T/e3.json" "${opts[@]}"
[[ $(result "$T/e3.json") == hit ]]
cp "$nvvm" "$T/libnvvm-copy.so"
"$KDET" cache compile "$in" --dir "$dir" -q --lib "$T/libnvvm-copy.so" --verify-rate 0 --json "$T/l1.json" "${opts[@]}"
[[ $(result "$T/l1.json") == hit ]]   # same content elsewhere: same compiler
printf '\0' >>"$T/libnvvm-copy.so"     # one byte more: another compiler, never an old entry
"$KDET" cache compile "$in" --dir "$dir" -q --lib "$T/libnvvm-copy.so" --verify-rate 0 --json "$T/l2.json" "${opts[@]}"
[[ $(result "$T/l2.json") == miss ]]

# A corrupted artifact: a miss with a warning, the damaged variant kept aside, the output still right.
key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/r1.json")
art=$(ls "$dir"/v1/entries/"${key:0:2}"/"$key"/variants/*/a0)
printf 'XX' | dd of="$art" bs=1 seek=10 conv=notrunc status=none
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$T/c.json" -o "$T/c.ptx" "${opts[@]}" 2>"$T/c.err"
[[ $(result "$T/c.json") == miss ]]
grep -q 'damaged' "$T/c.err"
cmp "$T/miss.ptx" "$T/c.ptx"
ls "$dir"/v1/damaged | grep -q "$key"
"$KDET" cache compile "$in" --dir "$dir" -q --verify-rate 0 --json "$T/c2.json" "${opts[@]}"
[[ $(result "$T/c2.json") == hit ]]

"$KDET" cache verify --dir "$dir" >"$T/verify.txt"
grep -q '0 mismatch' "$T/verify.txt"
"$KDET" cache report --dir "$dir" >/dev/null   # exit 0: no key with two variants
"$KDET" cache stats --dir "$dir" --json - | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["keys"] == 5 and s["variants"] == 5 and s["damaged"] == 1, s'
echo "cache_nvvm: PASS"
