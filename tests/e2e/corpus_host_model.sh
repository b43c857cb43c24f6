#!/usr/bin/env bash
# tier: slow
# corpus_host_model.sh: `kdet corpus` kernels compute finite results, and the planted pair of
# tests/data/gpu gives different ones, on a CPU model of the GPU launch (lib/host_model.py:
# the kernel's IR compiled for the host by clang-14, each block's threads as pthreads).
#
# A kernel whose outputs are NaN or inf cannot show a difference between two variants, so
# `kdet impact --run` would say "same results" of any pair; the generator bounds its values
# (loop accumulators clamped, exp2 arguments capped, small integers converted) so that this
# does not happen. Checked: 8 kernels of mixed sizes, every output element finite and not all
# zero; the planted pair (gen_0001.ll against gen_0001.b.ll, one folded constant) differs in
# most output elements, and gen_0001.ll against itself in none.
# Env: KDET (kdet binary). Exit 0 pass, 1 fail, 77 skipped (clang-14 or Python 3.11 absent).
source "$(dirname "$0")/lib/common.bash"
command -v clang-14 >/dev/null || skip "clang-14 is not installed (Debian package clang-14)"
python3 -c 'import tomllib' 2>/dev/null || skip "python3 has no tomllib (Python 3.11 or later)"
model=$(dirname "$0")/lib/host_model.py
G=$(dirname "$0")/../data/gpu

"$KDET" corpus --out "$T/corpus" --count 8 --size mixed --seed 0x10de -q
for ll in "$T"/corpus/gen_*.ll; do
  k=$(basename "$ll" .ll)
  mkdir "$T/$k"
  python3 "$model" "$ll" "$T/corpus/$k.recipe.toml" 2 "$T/$k" "$T/$k/out.bin" >"$T/$k/report" ||
    fail "$k: the host model failed"
  [[ -s $T/$k/report ]] || fail "$k: no output buffer reported"
  while read -r name finite _ nan _ inf _ zero _; do
    ((nan == 0 && inf == 0)) || fail "$k: $name has $nan NaN and $inf inf elements"
    ((finite > 0)) || fail "$k: $name has no finite nonzero element ($zero zero)"
  done <"$T/$k/report"
done

mkdir "$T/a" "$T/b" "$T/a2"
python3 "$model" "$G/gen_0001.ll" "$G/gen_0001.recipe.toml" 4 "$T/a" "$T/a.bin" >/dev/null
python3 "$model" "$G/gen_0001.b.ll" "$G/gen_0001.recipe.toml" 4 "$T/b" "$T/b.bin" >/dev/null
python3 "$model" "$G/gen_0001.ll" "$G/gen_0001.recipe.toml" 4 "$T/a2" "$T/a2.bin" >/dev/null
differ() { # A.bin B.bin: how many float elements differ, of how many
  python3 -c '
import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
n = len(a) // 4
fa, fb = struct.unpack(f"{n}f", a), struct.unpack(f"{n}f", b)
print(sum(x != y for x, y in zip(fa, fb)), n)' "$1" "$2"
}
read -r d n < <(differ "$T/a.bin" "$T/b.bin")
((d * 2 > n)) || fail "planted pair: $d of $n elements differ (expected most)"
read -r d0 _ < <(differ "$T/a.bin" "$T/a2.bin")
((d0 == 0)) || fail "gen_0001 against itself: $d0 elements differ"
echo "corpus_host_model: PASS (8 kernels finite; planted pair differs in $d of $n elements)"
