#!/usr/bin/env bash
# corpus_libnvvm.sh: kernels from `kdet corpus` compile with the real libNVVM 13.0.
#
# Writes 22 kernels (small, medium and large; both dialects) and compiles each
# once through `kdet run`: llvm7 kernels for -arch=compute_90a -opt=3 and
# -arch=compute_80 -opt=0, modern kernels for -arch=compute_100a -opt=3. Also
# checks that a seed gives byte-identical files from the command line, that
# another seed gives different ones, and that bad options exit 2.
# Env: KDET (kdet binary). Exit 0 pass, 1 fail, 77 skipped (libNVVM absent).
set -euo pipefail
trap 'echo "corpus_libnvvm: FAIL at line $LINENO" >&2' ERR

: "${KDET:?KDET must name the kdet binary}"
cuda=${CUDA_HOME:-/usr/local/cuda}
[[ -e $cuda/lib64/libnvvm.so || -e $cuda/nvvm/lib64/libnvvm.so ]] ||
  { echo "corpus_libnvvm: SKIP: libnvvm.so not found under $cuda"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kdet-corpus-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KDET" corpus --out "$work/old" --count 9 --size mixed --seed 0x5eed --dialect llvm7 -q
"$KDET" corpus --out "$work/old_large" --count 1 --size large --seed 3 --dialect llvm7 -q
"$KDET" corpus --out "$work/new" --count 10 --size mixed --seed 0x5eed --dialect modern -q
"$KDET" corpus --out "$work/new_large" --count 1 --size large --seed 4 --dialect modern -q
"$KDET" corpus --out "$work/odd" --count 1 --size 333 --seed 5 -q

# Determinism from the command line: same seed, same bytes; another seed, other bytes.
"$KDET" corpus --out "$work/again" --count 9 --size mixed --seed 0x5eed --dialect llvm7 -q
diff -r "$work/old" "$work/again"
"$KDET" corpus --out "$work/other" --count 9 --size mixed --seed 0x5eee --dialect llvm7 -q
if cmp -s "$work/old/gen_0000.ll" "$work/other/gen_0000.ll"; then
  echo "corpus_libnvvm: seeds 0x5eed and 0x5eee gave the same gen_0000.ll"; exit 1
fi
grep -q "seed     0x5eed" "$work/old/README.txt"
grep -q "dialect  modern" "$work/new/README.txt"

# Mixed sizes really are mixed (small ~150 and medium/large > 700 instructions).
sizes=$(cat "$work"/old/README.txt "$work"/new/README.txt | sed -n 's/.*\.ll  \([0-9]*\) instructions.*/\1/p')
small=$(awk '$1 < 300' <<<"$sizes" | wc -l)
big=$(awk '$1 > 700' <<<"$sizes" | wc -l)
[[ $small -ge 1 && $big -ge 1 ]] || { echo "corpus_libnvvm: sizes not mixed: $sizes"; exit 1; }

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
for f in "$work"/old/*.ll "$work"/old_large/*.ll "$work"/odd/*.ll; do
  compile "$f" -arch=compute_90a -opt=3
  compile "$f" -arch=compute_80 -opt=0
done
for f in "$work"/new/*.ll "$work"/new_large/*.ll; do
  compile "$f" -arch=compute_100a -opt=3
done

# Bad options are usage errors (exit 2) that name the option.
rc=0
out=$("$KDET" corpus --out "$work/bad" --count 1 --size huge 2>&1) || rc=$?
[[ $rc -eq 2 && $out == *"--size huge"* ]] || { echo "corpus_libnvvm: --size huge gave $rc: $out"; exit 1; }
rc=0
out=$("$KDET" corpus --out "$work/bad" --count 1 --dialect llvm17 2>&1) || rc=$?
[[ $rc -eq 2 && $out == *"--dialect llvm17"* ]] || { echo "corpus_libnvvm: --dialect llvm17 gave $rc: $out"; exit 1; }

echo "corpus_libnvvm: PASS ($compiled compiles of 22 generated kernels)"
