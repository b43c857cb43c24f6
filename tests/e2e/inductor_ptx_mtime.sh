#!/usr/bin/env bash
# tier: cuda
# A real Inductor kernel's PTX (tests/data/inductor), assembled by the real ptxas as Triton runs
# it: its cubin follows the modification time of the files its .file directives name. kdet run
# calls it nondeterministic with every factor varied and deterministic with --mtime fixed (and
# at the mtime factor's natural level: the files do not change between runs); kdet explain
# names the mtime factor and both files, and nothing else; the files themselves are untouched.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA's ptxas is not installed"
inductor_kernel
before=$(stat -c '%Y %s %i' "$T/src/$SRC" "$T/src/standard.py")

expect_exit 1 "$KDET" run "$T/k.ptx" -n 6 --seed 1 "${CMD[@]}" --json "$T/vary.json"
expect_eq "varied" "$(json_get "$T/vary.json" '["verdict"]')" nondeterministic
expect_exit 0 "$KDET" run "$T/k.ptx" -n 6 --seed 1 --mtime fixed "${CMD[@]}"
expect_exit 0 "$KDET" run "$T/k.ptx" -n 6 --seed 1 --unnamed natural "${CMD[@]}"

expect_exit 1 "$KDET" explain "$T/k.ptx" --seed 1 "${CMD[@]}" --color never --json "$T/explain.json"
expect_output "EXPLAINED: the cubin follows the modification time of $T/src/$SRC and $T/src/standard.py; nothing else matters"
expect_eq "cause" "$(json_eval "$T/explain.json" 'd["cause"]')" "['mtime']"
expect_eq "the named files are untouched" "$(stat -c '%Y %s %i' "$T/src/$SRC" "$T/src/standard.py")" "$before"
echo "inductor_ptx_mtime: ok"
