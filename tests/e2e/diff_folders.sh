#!/usr/bin/env bash
# tier: quick
# kdet diff on folders recurses as diff -r does: nested files that differ are found (exit 1),
# files only on one side listed, links never followed (a link out of the tree is compared by
# its target, never read), a walk past its bound says so and is not called identical (exit 2).
# PTX as libNVVM hands it over (text + NUL, as a capture's outputs/HASH.ptx holds it) is
# read as PTX, alone and inside folders. Two capture folders whose kernels differ: exit 1.
source "$(dirname "$0")/lib/common.bash"
data="$KDET_SOURCE_DIR/tests/data/diff"


# The same PTX, a second time with one pair of loads swapped; each with libNVVM's NUL.
awk '/ld.param.u64/ && !done { held=$0; getline; print; print held; done=1; next } { print }' \
  "$data/block_reduce.ptx" >"$T/swapped.ptx"
{ cat "$data/block_reduce.ptx"; printf '\0'; } >"$T/a0.ptx"
{ cat "$T/swapped.ptx"; printf '\0'; } >"$T/b0.ptx"

# Two NUL-terminated PTX files: PTX, not binary, with the change named.
expect_rc 1 "$KDET" diff "$T/a0.ptx" "$T/b0.ptx" --json -
expect_eq "NUL-terminated PTX: format" "$(json_get "$T/out" '["format"]')" ptx
expect_eq "NUL-terminated PTX: change" "$(json_get "$T/out" '["overall"]')" reordered
expect_rc 0 "$KDET" diff "$T/a0.ptx" "$T/a0.ptx"
# With and without the NUL: the same PTX, the NUL named, never "binary differs".
expect_rc 1 "$KDET" diff "$T/a0.ptx" "$data/block_reduce.ptx" --color never
grep -q "NUL byte" "$T/out" || { cat "$T/out"; fail "the trailing NUL is not named"; }
if grep -q "binary" "$T/out"; then cat "$T/out"; fail "PTX with a NUL read as binary"; fi

# Nested folders in which every kernel differs: found three levels down.
for side in a b; do mkdir -p "$T/$side/k1/deep/er" "$T/$side/k2"; done
cp "$T/a0.ptx" "$T/a/k1/deep/er/kernel.ptx"
cp "$T/b0.ptx" "$T/b/k1/deep/er/kernel.ptx"
cp "$data/saxpy.ptx" "$T/a/k2/same.ptx"
cp "$data/saxpy.ptx" "$T/b/k2/same.ptx"
echo only-a >"$T/a/k2/only-a.txt"
mkdir -p "$T/b/new" && echo only-b >"$T/b/new/only-b.txt"
# Links out of the tree: never followed, compared by target.
mkdir -p "$T/outside" && echo secret-outside >"$T/outside/secret.txt"
ln -s "$T/outside/secret.txt" "$T/a/k2/link"
ln -s "$T/outside/secret.txt" "$T/b/k2/link"
ln -s "$T/outside" "$T/a/dirlink"
ln -s "$T/outside/secret.txt" "$T/b/dirlink"
expect_rc 1 "$KDET" diff "$T/a" "$T/b" --color never --json "$T/set.json"
grep -q "k1/deep/er/kernel.ptx" "$T/out" || { cat "$T/out"; fail "the nested kernel was not compared"; }
grep -q "k2/only-a.txt: only in A" "$T/out" || fail "only-in-A file not listed"
grep -q "new/only-b.txt: only in B" "$T/out" || fail "only-in-B file in a B-only folder not listed"
grep -q "k2/link: a link to $T/outside/secret.txt in both" "$T/out" || { cat "$T/out"; fail "same link"; }
grep -q "dirlink: a link to $T/outside in A, a link to $T/outside/secret.txt in B" "$T/out" ||
  { cat "$T/out"; fail "links with other targets"; }
if grep -q "secret-outside\|dirlink/secret" "$T/out"; then fail "a link out of the tree was followed"; fi
expect_eq "JSON: identical" "$(json_get "$T/set.json" '["identical"]')" False
expect_eq "JSON: nested PTX report" \
  "$(json_eval "$T/set.json" '[a["report"]["format"] + " " + a["report"]["overall"] for a in d["artifacts"] if a["name"] == "k1/deep/er/kernel.ptx"][0]')" "ptx reordered"
expect_eq "JSON: only_in" \
  "$(json_eval "$T/set.json" 'sorted(a["name"] + "=" + a["only_in"] for a in d["artifacts"] if "only_in" in a)')" \
  "['k2/only-a.txt=A', 'new/only-b.txt=B']"

# Identical nested folders: exit 0.
cp -a "$T/a" "$T/a2"
expect_rc 0 "$KDET" diff "$T/a" "$T/a2"

# Bounds: more files than --max-files, or deeper than 64 folders: a note, never "identical".
expect_rc 2 "$KDET" diff "$T/a" "$T/a2" --max-files 1 --json "$T/cut.json"
grep -q "more than 1 files" "$T/err" || { cat "$T/out" "$T/err"; fail "no note on the file bound"; }
expect_eq "cut short: identical" "$(json_get "$T/cut.json" '["identical"]')" False
deep=$(printf 'd/%.0s' $(seq 70))
for side in x y; do mkdir -p "$T/$side/$deep" && echo same >"$T/$side/$deep/f" && echo top >"$T/$side/top"; done
expect_rc 2 "$KDET" diff "$T/x" "$T/y"
grep -q "deeper than 64 folders" "$T/err" || { cat "$T/out" "$T/err"; fail "no note on the depth bound"; }
echo changed >"$T/y/top"
expect_rc 1 "$KDET" diff "$T/x" "$T/y"

# Two capture folders of the fake libNVVM in garbage mode: every kernel differs, and the
# difference is found below bundles/ID/outputs (exit 1), where it once said "identical".
FAKE=${KDET_FAKES_DIR:-}/libfakenvvm.so
CL=${KDET_BINARY_DIR:-}/tests/capture
if [[ -f $FAKE && -x $CL/capture_nvvm_client ]]; then
  for c in c1 c2; do
    "$KDET" capture --out "$T/$c" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$EX/nvvm/llvm7/saxpy.ll" -- -fake-mode=garbage 2>/dev/null
  done
  expect_rc 1 "$KDET" diff "$T/c1/bundles" "$T/c2/bundles" --color never
  grep -Eq "^[0-9a-f]+/outputs/[0-9a-f]+\.[a-z]+: only in A" "$T/out" || { cat "$T/out"; fail "the captured outputs were not compared"; }
fi
echo "diff_folders: nested differences found, one-sided files listed, links not followed, bounds noted, NUL-terminated PTX read as PTX"
