#!/usr/bin/env bash
# tier: cuda
# corpus_libnvvm.sh: kernels from `kdet corpus` compile with the real libNVVM 13.0.
#
# Writes 22 kernels (small, medium and large; both dialects) and compiles each
# once through `kdet run`: llvm7 kernels for -arch=compute_90a -opt=3 and
# -arch=compute_80 -opt=0, modern kernels for -arch=compute_100a -opt=3. Also
# checks that a seed gives byte-identical files from the command line, that
# another seed gives different ones, and that bad options exit 2.
# Env: KDET (kdet binary). Exit 0 pass, 1 fail, 77 skipped (libNVVM absent).
source "$(dirname "$0")/lib/common.bash"
cuda=${CUDA_HOME:-/usr/local/cuda}
[[ -e $cuda/lib64/libnvvm.so || -e $cuda/nvvm/lib64/libnvvm.so ]] ||
  skip "libnvvm.so not found under $cuda"

"$KDET" corpus --out "$T/old" --count 9 --size mixed --seed 0x5eed --dialect llvm7 -q
"$KDET" corpus --out "$T/old_large" --count 1 --size large --seed 3 --dialect llvm7 -q
"$KDET" corpus --out "$T/new" --count 10 --size mixed --seed 0x5eed --dialect modern -q
"$KDET" corpus --out "$T/new_large" --count 1 --size large --seed 4 --dialect modern -q
"$KDET" corpus --out "$T/odd" --count 1 --size 333 --seed 5 -q

# Determinism from the command line: same seed, same bytes; another seed, other bytes.
"$KDET" corpus --out "$T/again" --count 9 --size mixed --seed 0x5eed --dialect llvm7 -q
diff -r "$T/old" "$T/again"
"$KDET" corpus --out "$T/other" --count 9 --size mixed --seed 0x5eee --dialect llvm7 -q
if cmp -s "$T/old/gen_0000.ll" "$T/other/gen_0000.ll"; then
  echo "corpus_libnvvm: seeds 0x5eed and 0x5eee gave the same gen_0000.ll"; exit 1
fi
grep -q "seed     0x5eed" "$T/old/README.txt"
grep -q "dialect  modern" "$T/new/README.txt"

# Mixed sizes really are mixed (small ~150 and medium/large > 700 instructions).
sizes=$(cat "$T"/old/README.txt "$T"/new/README.txt | sed -n 's/.*\.ll  \([0-9]*\) instructions.*/\1/p')
small=$(awk '$1 < 300' <<<"$sizes" | wc -l)
big=$(awk '$1 > 700' <<<"$sizes" | wc -l)
[[ $small -ge 1 && $big -ge 1 ]] || fail "sizes not mixed: $sizes"

compiled=0
compile() { # FILE OPTIONS...
  local file=$1; shift
  if ! "$KDET" run "$file" -n 1 --quiet -- "$@"; then
    echo "corpus_libnvvm: libNVVM rejected $file with $*:"
    "$KDET" run "$file" -n 1 -- "$@" || true
    exit 1
  fi
  compiled=$((compiled + 1))
}
for f in "$T"/old/*.ll "$T"/old_large/*.ll "$T"/odd/*.ll; do
  compile "$f" -arch=compute_90a -opt=3
  compile "$f" -arch=compute_80 -opt=0
done
for f in "$T"/new/*.ll "$T"/new_large/*.ll; do
  compile "$f" -arch=compute_100a -opt=3
done

# Bad options are usage errors (exit 2) that name the option.
rc=0
out=$("$KDET" corpus --out "$T/bad" --count 1 --size huge 2>&1) || rc=$?
[[ $rc -eq 2 && $out == *"--size huge"* ]] || fail "--size huge gave $rc: $out"
rc=0
out=$("$KDET" corpus --out "$T/bad" --count 1 --dialect llvm17 2>&1) || rc=$?
[[ $rc -eq 2 && $out == *"--dialect llvm17"* ]] || fail "--dialect llvm17 gave $rc: $out"

echo "corpus_libnvvm: PASS ($compiled compiles of 22 generated kernels)"
