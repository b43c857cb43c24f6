#!/usr/bin/env bash
# tier: cuda
# kdet reduce on a real Inductor kernel's PTX (tests/data/inductor) under the real ptxas, whose
# cubin follows the modification time of the files the PTX's .file directives name: the result
# is a few lines that still vary (at most 15 % of the original), a .file path is never renamed
# as a symbol, and the reproducer folder keeps a copy of each named file the result still names,
# with its input naming the copies, so the folder reproduces alone. The user's files are
# untouched.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA's ptxas is not installed"
inductor_kernel
before=$(stat -c '%Y %s %i' "$T/src/$SRC" "$T/src/standard.py")

expect_exit 0 "$KDET" reduce "$T/k.ptx" "${CMD[@]}" --seed 1 --final-runs 16 -o "$T/small.ptx"
orig=$(wc -c <"$T/k.ptx")
got=$(wc -c <"$T/small.ptx")
((got * 100 <= orig * 15)) || { cat "$T/small.ptx"; fail "reduced to $got of $orig bytes, want at most 15 %"; }
expect_output "pass +ptx-sections: [0-9]+ tested, [1-9][0-9]* accepted"
# What still varies names at least one of the files, by its own path.
grep -Eq "^\s*\.file\s+[0-9]+ \"$T/src/($SRC|standard\.py)\"" "$T/small.ptx" ||
  { cat "$T/small.ptx"; fail "the result names no file by its path (renamed?)"; }
R=$T/small.ptx.repro
n=0
while read -r path; do
  base=${path##*/}
  cmp -s "$path" "$R/files/$base" || fail "files/$base is not a copy of $path"
  grep -q "\"$R/files/$base\"" "$R/small.ptx" || fail "the reproducer's input does not name files/$base"
  grep -qF "\`files/$base\`: \`$path\`" "$R/README.md" || fail "the README does not list files/$base"
  n=$((n + 1))
done < <(sed -nE 's/^\s*\.file\s+[0-9]+ "([^"]*)".*/\1/p' "$T/small.ptx")
((n >= 1)) || fail "no named file checked"
grep -q "\"$T/src/" "$R/small.ptx" && fail "the reproducer's input still names the user's files"
expect_eq "the reproducer's runs" "$(json_get "$R/run/result.json" '["verdict"]')" nondeterministic
# The folder alone reproduces, with the user's files gone.
mv "$T/src" "$T/src.away"
expect_exit 1 "$KDET" run "$R/small.ptx" -n 6 --seed 1 "${CMD[@]}"
mv "$T/src.away" "$T/src"
expect_eq "the named files are untouched" "$(stat -c '%Y %s %i' "$T/src/$SRC" "$T/src/standard.py")" "$before"
echo "reduce_ptx_files: $orig -> $got bytes, $n named file(s) kept in the reproducer"
